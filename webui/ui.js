// SPDX-License-Identifier: MIT
/*
 * ui.js: the widgets every page shares (a page gets them as ctx.ui):
 *
 *   skeleton(rows)        a placeholder for content on its way (aria-busy)
 *   formErrors(form, e)   an ApiError's messages next to the fields it names
 *   clearErrors(form)     removes them
 *   toast(text, options)  a short message at the bottom of the screen
 *   message(view, {...})  a heading and a paragraph in place of a page
 *   stylesheet(url)       adds a page's CSS once; resolves when it applies
 *   chart()               the chart widget (chart.js), fetched on first use
 *                         so that only pages that chart download it
 *   suggest(input, find)  offers what `find` answers as the field is typed in
 *   pickContact(input, api, start)  a field that picks a contact as it is typed in
 *   contactAsked(api, query)  the contact a form was opened for (?contact=)
 *   people(api)           the sub-account's people by id (null: not to be had)
 *   pickPerson(select, people, me, value)  a filter's choice of person:
 *                         anyone, me, or one of `people`
 *   paged({...})          a list shown in pages: "Load more", and the next
 *                         page as the end of the list comes into view
 *   onSeen(el, fn)        fn() whenever `el` comes near the view
 *   figure(label, value, note, tone)  a figure as a card, for a .figures grid
 *   confirm(slot, question, yes)  asks in `slot` before something is undone
 *   renumber(order, save) positions 0, 1, 2... for a list put in a new order
 *   logoField(form, api, path, url, signal)  a logo uploaded as it is chosen
 *
 * Everything that comes from data is put in as text (html.js).
 */
import { html } from './html.js';

/* A grey outline of a heading and `rows` lines, announced as loading. */
export function skeleton(rows) {
	const lines = [];
	for (let i = 0; i < (rows || 6); i++)
		lines.push(html`<span class="skeleton-line"></span>`);
	const frag = html`<div class="skeleton" aria-busy="true">
		<span class="visually-hidden" role="status">Loading…</span>
		<span class="skeleton-title"></span>${lines}</div>`;
	return frag.firstElementChild;
}

/* Asks in place (no modal: every browser we serve has the markup for
 * this) whether to go on: `slot` shows the question with two buttons;
 * resolves true for yes. The focus goes back to where it was either way
 * (the caller may then move it); a question asked again in the same slot
 * answers the one before with no. */
const asking = new WeakMap(); /* slot -> the answer to its open question */

export function confirm(slot, question, yes) {
	if (asking.has(slot))
		asking.get(slot)(false);
	return new Promise((resolve) => {
		const before = document.activeElement;
		slot.textContent = '';
		slot.append(html`<div class="confirm" role="alertdialog" aria-label="${question}">
			<p>${question}</p>
			<div class="confirm-actions">
				<button type="button" class="btn btn-danger" data-yes>${yes}</button>
				<button type="button" class="btn" data-no>Cancel</button>
			</div></div>`);
		const box = slot.firstElementChild;
		const done = (answer) => {
			asking.delete(slot);
			box.remove();
			if (before && before.isConnected)
				before.focus();
			resolve(answer);
		};
		asking.set(slot, done);
		box.querySelector('[data-yes]').addEventListener('click', () => done(true));
		box.querySelector('[data-no]').addEventListener('click', () => done(false));
		box.addEventListener('keydown', (e) => {
			if (e.key === 'Escape') {
				e.stopPropagation();
				done(false);
			}
		});
		box.querySelector('[data-no]').focus();
	});
}

/* Gives the items of `order` (each with its `position`) the positions 0,
 * 1, 2... in that order: save(item, position) for each whose number
 * changes, one after another; rejects with the first failure. */
export async function renumber(order, save) {
	for (let i = 0; i < order.length; i++) {
		if (order[i].position !== i)
			await save(order[i], i);
	}
}

/* A figure as a card named by its label (an article a screen reader
 * lists): the value large, a note under it, red when tone is 'is-bad'. */
let figureSeq = 0;
export function figure(label, value, note, tone) {
	const id = 'figure-' + (++figureSeq);
	return html`<article class="card figure" aria-labelledby="${id}">
		<h3 class="figure-label" id="${id}">${label}</h3>
		<p class="figure-value">${value}</p>
		<p class="${'figure-note' + (tone ? ' ' + tone : '')}">${note}</p>
	</article>`;
}

let errorSeq = 0;

/* A function that runs `refresh` now, or, while the person is busy in
 * `area` (typing in a field there, a row opened for editing, shown by
 * aria-expanded="true", a question of confirm open, or a button pressed
 * and not yet let go: a row drawn anew between the two would swallow the
 * click), once they are done: for pages that redraw on changes made
 * elsewhere (ctx.onLive), so a redraw never takes away what someone is
 * writing or clicking. `refresh(busy)` may ask busy() again once its
 * answer is in, just before it draws (they may have opened a form while
 * it waited), and return false to be run again later. Stops when
 * `signal` aborts. */
export function whenFree(area, refresh, signal) {
	let timer = 0;
	let pressed = false;
	signal.addEventListener('abort', () => clearTimeout(timer));
	area.addEventListener('pointerdown', () => { pressed = true; }, { signal });
	for (const type of ['pointerup', 'pointercancel'])
		window.addEventListener(type, () => { pressed = false; }, { signal });
	const typing = (el) => el && area.contains(el) &&
		(el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' ||
			(el.tagName === 'INPUT' && !/^(checkbox|radio|button|submit)$/.test(el.type)));
	const busy = () => Boolean(pressed || typing(document.activeElement) ||
		area.querySelector('[aria-expanded="true"], [role="alertdialog"]'));
	const run = async () => {
		clearTimeout(timer);
		if (signal.aborted)
			return;
		if (busy() || await refresh(busy) === false)
			timer = setTimeout(run, 500);
	};
	return run;
}

/* A channel page's "Send a test" form: `form` has a `to` field, a submit
 * button and an outcome line (role="status"). Sent, the test is POSTed
 * to `path` ({"to"}: 202 with its record), then its record (path/ID)
 * asked for every half second until it is sent or failed, for 30 s at
 * most; the line says how it went, `who` naming what took it or refused
 * it ("relay", "provider"). */
export function testSending(form, api, path, who, signal) {
	const outcome = form.querySelector('[role="status"]');
	const button = form.querySelector('button[type="submit"]');
	const settled = async (id) => {
		for (let i = 0; i < 60 && !signal.aborted; i++) {
			const t = await api.get(path + '/' + id);
			if (t.status === 'sent' || t.status === 'failed')
				return t;
			await new Promise((r) => setTimeout(r, 500));
		}
		return null;
	};
	form.addEventListener('submit', async (e) => {
		e.preventDefault();
		clearErrors(form);
		button.disabled = true;
		outcome.className = 'test-outcome muted';
		outcome.textContent = 'Sending…';
		try {
			const t = await settled((await api.post(path, { to: form.elements.to.value.trim() })).id);
			outcome.textContent = !t ? 'The ' + who + ' has not answered yet.'
				: t.status === 'sent' ? 'Sent to ' + t.to + '. The ' + who + ' took it.' : 'Not sent: ' + t.reason;
			outcome.className = 'test-outcome ' + (t && t.status === 'sent' ? 'is-ok' : 'is-bad');
		} catch (err) {
			outcome.textContent = '';
			if (!signal.aborted)
				formErrors(form, err);
		} finally {
			button.disabled = false;
		}
	});
}

export function clearErrors(form) {
	for (const el of Array.from(form.querySelectorAll('.field-error, .form-error')))
		el.remove();
	for (const el of Array.from(form.querySelectorAll('[aria-invalid]'))) {
		el.removeAttribute('aria-invalid');
		const ids = (el.getAttribute('aria-describedby') || '').split(' ')
			.filter((id) => id && id.indexOf('err-') !== 0);
		if (ids.length)
			el.setAttribute('aria-describedby', ids.join(' '));
		else
			el.removeAttribute('aria-describedby');
	}
}

function sentence(text) {
	return text ? text.charAt(0).toUpperCase() + text.slice(1) : text;
}

/* Shows what the server said: each message of error.fields under the
 * field of that name (marked aria-invalid and described by it), anything
 * else in an alert at the top of the form. Focuses the first field in
 * error. Returns true when any message went next to a field. */
export function formErrors(form, error) {
	clearErrors(form);
	const fields = (error && error.fields) || {};
	let first = null;
	let unplaced = [];
	for (const name of Object.keys(fields)) {
		const field = form.elements.namedItem(name);
		const el = field && field.nodeType === 1 ? field : null;
		if (!el) {
			unplaced.push(sentence(name + ': ' + fields[name]));
			continue;
		}
		const id = 'err-' + (++errorSeq);
		const note = html`<p class="field-error" id="${id}">${sentence(fields[name])}</p>`;
		const holder = el.closest('.field');
		if (holder)
			holder.append(note);
		else
			el.after(note);
		el.setAttribute('aria-invalid', 'true');
		const ids = el.getAttribute('aria-describedby');
		el.setAttribute('aria-describedby', ids ? ids + ' ' + id : id);
		first = first || el;
	}
	if (!first && error && !unplaced.length)
		unplaced = [sentence(error.message || 'Something went wrong.')];
	if (unplaced.length) {
		const alert = html`<div class="form-error" role="alert">${unplaced.map((t) => html`<p>${t}</p>`)}</div>`;
		form.prepend(alert);
	}
	if (first)
		first.focus();
	return !!first;
}

let toasts = null;
/* Notices shown at once: more would cover the page they speak of. */
const TOASTS_SHOWN = 2;

/* options: kind "info" (default), "success" or "error" (announced at
 * once, stays until dismissed or 10 s), timeout in ms. The same words
 * again take the place of the notice that said them; past
 * TOASTS_SHOWN, the oldest goes, an error last. */
export function toast(text, options) {
	const o = options || {};
	if (!toasts || !toasts.isConnected) {
		toasts = html`<div class="toasts"></div>`.firstElementChild;
		document.body.append(toasts);
	}
	const error = o.kind === 'error';
	const item = html`<div class="toast toast-${o.kind || 'info'}" role="${error ? 'alert' : 'status'}">
		<p>${text}</p><button type="button" class="toast-close">Dismiss</button></div>`.firstElementChild;
	const close = () => item.remove();
	item.querySelector('button').addEventListener('click', close);
	for (const old of Array.from(toasts.children))
		if (old.querySelector('p').textContent === text)
			old.remove();
	while (toasts.children.length >= TOASTS_SHOWN)
		(toasts.querySelector('.toast:not(.toast-error)') || toasts.firstElementChild).remove();
	toasts.append(item);
	setTimeout(close, o.timeout || (error ? 10000 : 5000));
	return close;
}

/* Fills `view` with a heading and a paragraph (and a link or a button),
 * for the shell's own states: not found, no access, failed to load. */
export function message(view, m) {
	view.textContent = '';
	view.append(html`<div class="message">
		<h1 tabindex="-1">${m.title}</h1>
		<p>${m.text}</p>
		${m.href ? html`<p><a href="${m.href}">${m.link}</a></p>` : null}
		${m.action ? html`<p><button type="button" class="btn">${m.action}</button></p>` : null}
	</div>`);
	const button = view.querySelector('.message button');
	if (button && m.onAction)
		button.addEventListener('click', m.onAction);
	return view;
}

const sheets = new Map();

/* A <link rel="stylesheet"> for `url` (a page passes new URL('./x.css',
 * import.meta.url)), added once; the promise settles when it has loaded
 * or failed, so a page can wait for its looks before it shows. A sheet
 * the document carries already (<style media="not all" data-href>: the
 * server puts a signed-in page's there, core/http/styles.c) is switched on
 * instead. */
export function stylesheet(url) {
	const href = String(url);
	let p = sheets.get(href);
	const carried = !p && document.querySelector('style[data-href="' + new URL(href).pathname + '"]');
	if (carried) {
		carried.media = 'all';
		p = Promise.resolve();
		sheets.set(href, p);
	} else if (!p) {
		p = new Promise((resolve) => {
			const link = document.createElement('link');
			link.rel = 'stylesheet';
			link.href = href;
			link.addEventListener('load', resolve);
			link.addEventListener('error', resolve);
			document.head.append(link);
		});
		sheets.set(href, p);
	}
	return p;
}

/* chart.js's exports ({line, bar}), with its stylesheet applied. */
export function chart() {
	return Promise.all([import('./chart.js'), stylesheet(new URL('./chart.css', import.meta.url))])
		.then((loaded) => loaded[0]);
}

/* Offers choices as `input` is typed in: 200 ms after the last key,
 * find(text) resolves to [{label, value}], shown as the field's list (a
 * <datalist>, which every browser we serve draws as a person expects);
 * an answer for an older text is dropped. Returns chosen(): the value
 * of the choice whose label the field holds now, or undefined (nothing
 * typed: null). `start` ({label, value}, optional): the choice the
 * field holds to begin with. */
let suggestSeq = 0;

export function suggest(input, find, start) {
	const list = html`<datalist></datalist>`.firstElementChild;
	list.id = 'suggest-' + (++suggestSeq);
	input.setAttribute('list', list.id);
	input.after(list);
	const known = new Map(); /* label -> value */
	if (start) {
		known.set(start.label, start.value);
		input.value = start.label;
	}
	let timer = 0;
	let asked = 0;
	input.addEventListener('input', () => {
		clearTimeout(timer);
		const text = input.value.trim();
		if (!text || known.has(text))
			return;
		timer = setTimeout(async () => {
			const mine = ++asked;
			let found;
			try {
				found = await find(text);
			} catch (e) {
				return; /* chosen() then says nothing matched */
			}
			if (mine !== asked)
				return;
			list.textContent = '';
			for (const f of found) {
				known.set(f.label, f.value);
				list.append(html`<option value="${f.label}"></option>`);
			}
		}, 200);
	});
	return () => {
		const text = input.value.trim();
		return text ? known.get(text) : null;
	};
}

/* A contact's name as a picker offers it: its name, and its e-mail when
 * it has one. */
function contactLabel(c) {
	const name = [c.first_name, c.last_name].filter(Boolean).join(' ') || c.email || c.phone || 'Contact ' + c.id;
	return c.email ? name + ' (' + c.email + ')' : name;
}

/* The contact a form was opened for (?contact=ID, as a contact's quick
 * actions link), as the API has it; null when none is named or it
 * cannot be read. */
export async function contactAsked(api, query) {
	const id = query.get('contact') || '';
	if (!/^[1-9]\d{0,17}$/.test(id))
		return null;
	return api.get('/api/contacts/' + id).catch(() => null);
}

/* `input` picks a contact as it is typed in (the contacts the API finds
 * for the text: suggest()); returns chosen(), suggest's. `start`: the
 * contact it holds to begin with (as the API has it), or nothing. */
export function pickContact(input, api, start) {
	return suggest(input, async (q) => {
		const answer = await api.get('/api/contacts', { q, limit: 8, sort: 'best' });
		return (answer.data || []).map((c) => ({ label: contactLabel(c), value: c.id }));
	}, start && start.id ? { label: contactLabel(start), value: start.id } : undefined);
}

/* fn() each time `el` comes within `margin` px of the view (the end of a
 * list being scrolled to); watch() looks again (after the list grew, the
 * element may still be in view). Returns {watch, stop}; without
 * IntersectionObserver, nothing is watched (the list's button remains). */
export function onSeen(el, fn, margin) {
	if (!('IntersectionObserver' in window))
		return { watch() {}, stop() {} };
	const observer = new IntersectionObserver((entries) => {
		if (entries.some((e) => e.isIntersecting))
			fn();
	}, { rootMargin: '0px 0px ' + (margin || 400) + 'px 0px' });
	return {
		watch() {
			observer.disconnect();
			observer.observe(el);
		},
		stop: () => observer.disconnect(),
	};
}

/* A list shown in pages, the one way every list pages:
 *
 *   open()                  a pager over the list as it is now (ctx.api.list)
 *   draw(rows, pager, fresh)  shows a page of it; fresh: the first, in place
 *                           of what was shown
 *   more                    the list's "Load more" button (its words its own):
 *                           pressed for the next page, hidden once every
 *                           page is in; the next page
 *                           also comes as it nears the view (scroll: false
 *                           leaves that out)
 *   failed(e, fresh)        says a page did not come (default: a toast
 *                           naming `what`, "The tasks")
 *   signal                  the page's: nothing is drawn once it aborts
 *
 * Returns {restart(extra), begin(pager, rows), more(), stop(), pager}:
 * restart asks for the first page again (extra: members of its query, a
 * {limit} as long as the list shown); begin draws a first page the caller
 * has asked for itself. An answer asked for before a restart, a begin or
 * stop() is dropped. While a page is on its way the button says so and is
 * aria-disabled (a disabled button would lose the keyboard's focus). */
export function paged(o) {
	const button = o.more;
	const label = button.textContent;
	let pager = null;
	let gen = 0;
	let loading = false;
	const seen = o.scroll === false ? { watch() {}, stop() {} } : onSeen(button, () => more());
	if (o.signal)
		o.signal.addEventListener('abort', () => stop());

	function showButton() {
		button.hidden = !pager || pager.done;
		button.setAttribute('aria-disabled', loading ? 'true' : 'false');
		button.textContent = loading ? 'Loading…' : label;
		if (!button.hidden && !loading)
			seen.watch();
	}

	const live = (mine) => mine === gen && !(o.signal && o.signal.aborted);

	async function next(fresh, extra) {
		const mine = gen;
		const p = pager;
		loading = true;
		showButton();
		let rows;
		try {
			rows = await p.next(extra);
		} catch (e) {
			if (!live(mine))
				return;
			loading = false;
			showButton();
			if (o.failed)
				o.failed(e, fresh);
			else
				toast((fresh ? '' : 'More of ') + (o.what || 'The list') + ' could not be loaded: ' + e.message,
					{ kind: 'error' });
			return;
		}
		if (!live(mine))
			return;
		loading = false;
		o.draw(rows, p, fresh);
		showButton();
	}

	function more() {
		if (loading || !pager || pager.done)
			return Promise.resolve();
		return next(false);
	}

	function stop() {
		gen++;
		loading = false;
		seen.stop();
	}

	button.addEventListener('click', () => more());
	return {
		restart(extra) {
			gen++;
			pager = o.open();
			return next(true, extra);
		},
		begin(p, rows) {
			gen++;
			loading = false;
			pager = p;
			o.draw(rows, p, true);
			showButton();
		},
		more,
		stop,
		get pager() {
			return pager;
		},
	};
}

/* The sub-account's people by id (GET /api/users); null when they could
 * not be had: a page then names no one, which is no reason to fail it. */
export function people(api) {
	return api.get('/api/users').then((answer) => new Map(((answer && answer.data) || []).map((u) => [u.id, u])),
		() => null);
}

/* Fills `select`, a filter's choice of person: "Anyone", "Me" (user `me`)
 * and each of `people` (a Map from people(), or null while it is on its
 * way), `value` chosen (by default the one chosen now); someone not among
 * them (gone, or not known yet) stays chosen, by name when known. */
export function pickPerson(select, people, me, value) {
	const keep = value === undefined ? select.value : value || '';
	select.textContent = '';
	select.append(html`<option value="">Anyone</option><option value="me">Me</option>
		${Array.from(people ? people.values() : []).filter((u) => u.id !== me).map((u) =>
			html`<option value="${u.id}">${u.name}</option>`)}`);
	select.value = keep;
	if (select.value !== keep) {
		const u = people && people.get(Number(keep));
		select.append(html`<option value="${keep}">${u ? u.name : 'User ' + keep}</option>`);
		select.value = keep;
	}
}

/* A form's logo (an img, a [data-remove-logo] button, a file input named
 * logo): uploaded to `path` as soon as it is chosen, shown, or taken away;
 * `url` the one it has now. */
export function logoField(form, api, path, url, signal) {
	const img = form.querySelector('img');
	const remove = form.querySelector('[data-remove-logo]');
	const show = (u) => {
		img.hidden = remove.hidden = !u;
		if (u)
			img.src = u;
	};
	show(url);
	const input = form.elements.logo;
	input.addEventListener('change', async () => {
		clearErrors(form);
		if (!input.files[0])
			return;
		try {
			show((await api.put(path, input.files[0])).logo_url);
		} catch (err) {
			if (!signal.aborted)
				formErrors(form, { fields: { logo: err.message.replace(/^logo: /, '') } });
			return;
		}
		input.value = '';
		toast('Logo saved.', { kind: 'success' });
	});
	remove.addEventListener('click', async () => {
		try {
			show((await api.del(path)).logo_url);
		} catch (err) {
			if (!signal.aborted)
				toast('The logo could not be removed: ' + err.message, { kind: 'error' });
			return;
		}
		input.focus();
		toast('Logo removed.', { kind: 'success' });
	});
}

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
 *   cents(text)           an amount typed ("1,250.50") as whole cents, or NaN
 *   figure(label, value, note, tone)  a figure as a card, for a .figures grid
 *   confirm(slot, question, yes)  asks in `slot` before something is undone
 *   renumber(order, save) positions 0, 1, 2... for a list put in a new order
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
 * aria-expanded="true", or a question of confirm open), once they are
 * done: for pages that redraw on changes made elsewhere (ctx.onLive), so
 * a redraw never takes away what someone is writing. `refresh(busy)` may
 * ask busy() again once its answer is in, just before it draws (they may
 * have opened a form while it waited), and return false to be run again
 * later. Stops when `signal` aborts. */
export function whenFree(area, refresh, signal) {
	let timer = 0;
	signal.addEventListener('abort', () => clearTimeout(timer));
	const typing = (el) => el && area.contains(el) &&
		(el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' ||
			(el.tagName === 'INPUT' && !/^(checkbox|radio|button|submit)$/.test(el.type)));
	const busy = () => Boolean(typing(document.activeElement) ||
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

/* options: kind "info" (default), "success" or "error" (announced at
 * once, stays until dismissed or 10 s), timeout in ms. */
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

/* An amount as a person types it ("1,250.50", "1250") as whole cents;
 * NaN when it is not one (a sign, letters, more than two decimals). */
export function cents(text) {
	const t = String(text).replace(/[\s,]/g, '');
	if (!/^\d+(\.\d{0,2})?$/.test(t))
		return NaN;
	const [units, fraction] = t.split('.');
	return Number(units) * 100 + Number(((fraction || '') + '00').slice(0, 2));
}

/* Offers choices as `input` is typed in: 200 ms after the last key,
 * find(text) resolves to [{label, value}], shown as the field's list (a
 * <datalist>, which every browser we serve draws as a person expects);
 * an answer for an older text is dropped. Returns chosen(): the value
 * of the choice whose label the field holds now, or undefined (nothing
 * typed: null). */
let suggestSeq = 0;

export function suggest(input, find) {
	const list = html`<datalist></datalist>`.firstElementChild;
	list.id = 'suggest-' + (++suggestSeq);
	input.setAttribute('list', list.id);
	input.after(list);
	const known = new Map(); /* label -> value */
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

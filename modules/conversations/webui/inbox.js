// SPDX-License-Identifier: MIT
/*
 * inbox.js: the conversations pages. /app/conversations is the inbox,
 * newest first or unread first (all, unread or starred; by channel and by
 * assignee, kept in the URL); /app/conversations/:id opens a thread beside it (on a
 * phone, instead of it): its messages, oldest at the top, older ones
 * loaded as it is scrolled up; a reply sent from the box at the bottom;
 * read when opened; starred with one button. A new conversation starts
 * from a contact, picked by typing part of a name.
 *
 * The inbox's last answer is kept while the app runs, so that opening
 * another thread draws the inbox at once and then brings it up to date.
 * Both follow what others do (ctx.onLive): a message that comes in shows
 * in the inbox and, when its thread is open, at the bottom of it.
 * Every name and message is put in as text (ctx.html, textContent).
 */

const SHOW = [['', 'All'], ['unread', 'Unread'], ['starred', 'Starred']];
const CHANNELS = [['sms', 'SMS'], ['email', 'E-mail'], ['whatsapp', 'WhatsApp'], ['facebook', 'Facebook'],
	['instagram', 'Instagram'], ['webchat', 'Web chat'], ['phone', 'Phone']];
const FILTERS = ['unread', 'starred', 'channel', 'assigned', 'sort'];
const BODY_MAX = 5000;

const dayFormat = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });
const timeFormat = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit' });
const fullFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/* "10:42" today, "Nov 29" before. */
function when(iso) {
	const d = new Date(iso);
	if (isNaN(d))
		return '';
	return d.toDateString() === new Date().toDateString() ? timeFormat.format(d) : dayFormat.format(d);
}

const channelName = (c) => (CHANNELS.find((x) => x[0] === c) || [c, c])[1];

let lastInbox = null; /* { key, answer }: the inbox as last drawn */

export default async function page(view, ctx) {
	const { html, api, ui } = ctx;
	const id = ctx.params.id;
	if (id !== undefined && !/^[1-9]\d{0,17}$/.test(id)) {
		const e = new Error('No such conversation');
		e.status = 404;
		throw e;
	}
	const filters = ctx.queryOf(FILTERS);
	const key = (ctx.location ? ctx.location.id : '') + ' ' + JSON.stringify(filters);
	const inboxComing = api.get('/api/conversations', filters);
	const peopleComing = api.get('/api/users').catch(() => null);
	const threadComing = id === undefined ? null
		: Promise.all([api.get('/api/conversations/' + id), api.get('/api/conversations/' + id + '/messages')]);
	const styled = ui.stylesheet(new URL('./inbox.css', import.meta.url));
	const kept = lastInbox && lastInbox.key === key ? lastInbox.answer : null;
	const [inbox, thread] = await Promise.all([kept || inboxComing, threadComing, styled]);
	const me = ctx.user.id;
	const href = (path) => '/app' + path + (ctx.location ? '?location=' + ctx.location.id : '');
	const hrefKeeping = (path) => {
		const q = new URLSearchParams(Object.assign(ctx.location ? { location: ctx.location.id } : {}, filters));
		return '/app' + path + '?' + q.toString();
	};
	let cursor = null;
	let seq = 0;
	let threadHears = null; /* the open thread's part of a live update */

	ctx.title(thread ? thread[0].contact_name || 'Conversation' : 'Conversations');
	view.classList.add('inbox-page');
	view.append(html`
<div class="page-head">
	<h1>Conversations</h1>
	<button type="button" class="btn btn-primary" data-new aria-expanded="false" aria-controls="i-new">New conversation</button>
</div>
<form class="card i-new" id="i-new" hidden novalidate aria-label="New conversation">
	<div class="field"><label for="i-new-contact">Contact</label>
		<input id="i-new-contact" name="contact_id" type="search" autocomplete="off" placeholder="Type a name"></div>
	<div class="field"><label for="i-new-channel">Channel</label>
		<select id="i-new-channel" name="channel">${CHANNELS.map((c) => html`<option value="${c[0]}">${c[1]}</option>`)}</select></div>
	<div class="i-new-actions"><button type="submit" class="btn btn-primary">Open conversation</button>
		<button type="button" class="btn" data-cancel>Cancel</button></div>
</form>
<div class="${'i-panes' + (thread ? ' has-thread' : '')}">
	<section class="i-inbox" aria-labelledby="i-inbox-h">
		<h2 id="i-inbox-h" class="visually-hidden">Inbox</h2>
		<form class="i-filters" role="search" aria-label="Filter conversations">
			<fieldset class="segmented"><legend>Show</legend>
				${SHOW.map((s) => html`<label><input type="radio" name="show" value="${s[0]}"
					checked="${s[0] === (filters.unread ? 'unread' : filters.starred ? 'starred' : '')}"><span>${s[1]}</span></label>`)}
			</fieldset>
			<div class="i-selects">
				<div><label for="i-channel">Channel</label><select id="i-channel" name="channel">
					<option value="">All channels</option>${CHANNELS.map((c) => html`<option value="${c[0]}"
						selected="${c[0] === filters.channel}">${c[1]}</option>`)}</select></div>
				<div><label for="i-assigned">Assigned to</label><select id="i-assigned" name="assigned">
					<option value="">Anyone</option><option value="me">Me</option></select></div>
				<div><label for="i-sort">Order</label><select id="i-sort" name="sort">
					<option value="">Newest first</option>
					<option value="unread" selected="${filters.sort === 'unread'}">Unread first</option></select></div>
			</div>
		</form>
		<p class="i-count muted" role="status"></p>
		<ul class="i-list"></ul>
		<div class="i-more"><button type="button" class="btn" data-more hidden>Load more</button></div>
	</section>
	<section class="i-thread" aria-labelledby="i-thread-h"></section>
</div>`);

	const el = {
		newButton: view.querySelector('[data-new]'),
		newForm: view.querySelector('.i-new'),
		filters: view.querySelector('.i-filters'),
		assigned: view.querySelector('#i-assigned'),
		count: view.querySelector('.i-count'),
		list: view.querySelector('.i-list'),
		more: view.querySelector('[data-more]'),
		thread: view.querySelector('.i-thread'),
	};
	if (filters.assigned && filters.assigned !== 'me')
		el.assigned.append(html`<option value="${filters.assigned}">${'User ' + filters.assigned}</option>`);
	el.assigned.value = filters.assigned || '';

	/* ---- the inbox ---- */

	function item(c) {
		const current = thread && String(c.id) === id;
		return html`<li><a class="${'i-item' + (c.unread_count ? ' is-unread' : '')}" data-id="${c.id}"
			href="${hrefKeeping('/conversations/' + c.id)}" aria-current="${current ? 'page' : null}">
			<span class="i-name">${c.contact_name || 'Contact ' + c.contact_id}</span>
			<span class="i-when">${when(c.last_message_at || c.created_at)}</span>
			<span class="i-preview">${c.last_message_preview || 'No messages yet'}</span>
			<span class="i-tags">
				<span class="i-channel">${channelName(c.channel)}</span>
				${c.starred ? html`<span class="i-star" title="Starred">★<span class="visually-hidden">Starred</span></span>` : ''}
				${c.unread_count ? html`<span class="i-unread">${c.unread_count}<span class="visually-hidden"> unread</span></span>` : ''}
			</span></a></li>`;
	}

	function showInbox(answer, replace) {
		if (replace)
			el.list.textContent = '';
		for (const c of answer.data || [])
			el.list.append(item(c));
		cursor = answer.next_cursor || null;
		el.more.hidden = !cursor;
		const n = el.list.children.length;
		el.count.textContent = n ? n + (cursor ? '+' : '') + (n === 1 ? ' conversation' : ' conversations')
			: 'No conversations' + (Object.keys(filters).some((k) => k !== 'sort') ? ' match these filters.' : ' yet.');
	}

	async function refilter() {
		const f = el.filters;
		const show = f.elements.show.value;
		ctx.setQuery({ unread: show === 'unread' ? 1 : '', starred: show === 'starred' ? 1 : '',
			channel: f.elements.channel.value, assigned: el.assigned.value, sort: f.elements.sort.value });
		const now = ctx.queryOf(FILTERS);
		for (const k of FILTERS)
			delete filters[k];
		Object.assign(filters, now);
		for (const a of el.list.querySelectorAll('a'))
			a.href = hrefKeeping('/conversations/' + a.dataset.id);
		const mine = ++seq;
		try {
			const answer = await api.get('/api/conversations', filters);
			if (mine === seq && !ctx.signal.aborted) {
				lastInbox = { key: (ctx.location ? ctx.location.id : '') + ' ' + JSON.stringify(filters), answer };
				showInbox(answer, true);
			}
		} catch (e) {
			if (mine === seq && !ctx.signal.aborted)
				ui.toast('The inbox could not be loaded: ' + e.message, { kind: 'error' });
		}
	}

	el.filters.addEventListener('submit', (e) => e.preventDefault());
	el.filters.addEventListener('change', refilter);
	/* an answer asked for under other filters than today's is dropped */
	el.more.addEventListener('click', async () => {
		const mine = seq;
		try {
			const more = await api.get('/api/conversations', Object.assign({}, filters, { cursor }));
			if (mine === seq && !ctx.signal.aborted)
				showInbox(more, false);
		} catch (e) {
			if (mine === seq && !ctx.signal.aborted)
				ui.toast('More conversations could not be loaded: ' + e.message, { kind: 'error' });
		}
	});

	showInbox(inbox, true);
	lastInbox = { key, answer: inbox };
	if (kept) { /* drawn from memory: bring it up to date */
		const mine = seq;
		inboxComing.then((fresh) => {
			if (ctx.signal.aborted || mine !== seq)
				return;
			lastInbox = { key, answer: fresh };
			showInbox(fresh, true);
		}, () => {});
	}

	/* Changes by others: the inbox asked again for as many as it shows
	 * (the focus staying on the same conversation), and the open thread
	 * told. */
	async function inboxChanged(events) {
		const mine = seq;
		const shown = el.list.children.length;
		const ask = Object.assign({}, filters, shown > 50 ? { limit: Math.min(shown, 1000) } : {});
		let answer;
		try {
			answer = await api.get('/api/conversations', ask);
		} catch (e) {
			return; /* the next change asks again */
		}
		if (mine !== seq || ctx.signal.aborted)
			return;
		const active = document.activeElement;
		const focused = active && el.list.contains(active) ? active.dataset.id : null;
		lastInbox = { key: (ctx.location ? ctx.location.id : '') + ' ' + JSON.stringify(filters), answer };
		showInbox(answer, true);
		const again = focused && el.list.querySelector('[data-id="' + focused + '"]');
		if (again)
			again.focus({ preventScroll: true });
		if (threadHears)
			threadHears(events);
	}
	ctx.onLive(['message.*', 'conversation.*'], inboxChanged);

	/* ---- the thread ---- */

	if (thread)
		openThread(thread[0], thread[1]);
	else
		el.thread.append(html`<h2 id="i-thread-h" class="visually-hidden">Thread</h2>
			<p class="i-none muted">Pick a conversation to read it and reply.</p>`);

	function message(m) {
		const out = m.direction === 'outbound';
		return html`<li class="${'i-msg ' + (out ? 'is-out' : 'is-in')}">
			<p class="i-body">${m.body}</p>
			<span class="i-meta" title="${fullFormat.format(new Date(m.created_at))}">${(out ? 'Sent ' : 'Received ') + when(m.created_at) +
				(out && m.status ? ' · ' + m.status : '')}</span></li>`;
	}

	function openThread(c, page1) {
		let older = page1.next_cursor || null;
		el.thread.append(html`
<header class="i-thread-head">
	<a class="i-back" href="${hrefKeeping('/conversations')}">Inbox</a>
	<h2 id="i-thread-h">${c.contact_name || 'Contact ' + c.contact_id}</h2>
	<span class="i-channel">${channelName(c.channel)}</span>
	<button type="button" class="btn btn-small" data-star aria-pressed="${String(!!c.starred)}">${c.starred ? 'Starred' : 'Star'}</button>
	<a class="btn btn-small" href="${href('/contacts/' + c.contact_id)}">Contact</a>
</header>
<div class="i-scroll" tabindex="0" aria-label="Messages">
	<p class="i-older-note muted" hidden>Loading older messages…</p>
	<ol class="i-messages"></ol>
</div>
<form class="i-compose" novalidate>
	<label for="i-body">Reply</label>
	<textarea id="i-body" name="body" rows="3" maxlength="${BODY_MAX}" required placeholder="Write a message"></textarea>
	<div class="i-compose-actions"><span class="muted i-hint">Ctrl+Enter sends</span>
		<button type="submit" class="btn btn-primary">Send</button></div>
</form>`);
		const scroll = el.thread.querySelector('.i-scroll');
		const list = el.thread.querySelector('.i-messages');
		const note = el.thread.querySelector('.i-older-note');
		const form = el.thread.querySelector('.i-compose');
		const star = el.thread.querySelector('[data-star]');
		const shown = new Set();
		for (const m of (page1.data || []).slice().reverse()) {
			list.append(message(m));
			shown.add(m.id);
		}
		requestAnimationFrame(() => { scroll.scrollTop = scroll.scrollHeight; });

		/* Messages of this thread sent or received elsewhere join it at
		 * the bottom; read at once when the page is being looked at. */
		threadHears = async (events) => {
			const ours = events.some((e) => e.type === 'reload' ||
				(e.event.startsWith('message.') && e.data && e.data.conversation_id === c.id));
			if (!ours)
				return;
			let newest;
			try {
				newest = await api.get('/api/conversations/' + c.id + '/messages');
			} catch (e) {
				return;
			}
			if (ctx.signal.aborted)
				return;
			const atEnd = scroll.scrollTop + scroll.clientHeight >= scroll.scrollHeight - 40;
			let heard = false;
			for (const m of (newest.data || []).slice().reverse()) {
				if (shown.has(m.id))
					continue;
				shown.add(m.id);
				list.append(message(m));
				heard = heard || m.direction !== 'outbound';
			}
			if (atEnd)
				scroll.scrollTop = scroll.scrollHeight;
			if (heard && document.visibilityState === 'visible')
				api.post('/api/conversations/' + c.id + '/read').catch(() => {});
		};

		let loading = false;
		scroll.addEventListener('scroll', async () => {
			if (scroll.scrollTop > 80 || !older || loading)
				return;
			loading = true;
			note.hidden = false;
			try {
				const answer = await api.get('/api/conversations/' + c.id + '/messages', { cursor: older });
				if (ctx.signal.aborted)
					return;
				const before = scroll.scrollHeight;
				for (const m of answer.data || [])
					list.prepend(message(m));
				older = answer.next_cursor || null;
				scroll.scrollTop += scroll.scrollHeight - before; /* the one read stays in place */
			} catch (e) {
				if (!ctx.signal.aborted)
					ui.toast('Older messages could not be loaded: ' + e.message, { kind: 'error' });
			} finally {
				loading = false;
				note.hidden = true;
			}
		}, { passive: true });

		if (c.unread_count) {
			api.post('/api/conversations/' + c.id + '/read').then(() => {
				const a = el.list.querySelector('[data-id="' + c.id + '"]');
				if (a) {
					a.classList.remove('is-unread');
					const badge = a.querySelector('.i-unread');
					if (badge)
						badge.remove();
				}
			}, () => {});
		}

		star.addEventListener('click', async () => {
			const on = star.getAttribute('aria-pressed') !== 'true';
			try {
				await api.patch('/api/conversations/' + c.id, { starred: on });
			} catch (e) {
				if (!ctx.signal.aborted)
					ui.toast('The conversation could not be starred: ' + e.message, { kind: 'error' });
				return;
			}
			star.setAttribute('aria-pressed', String(on));
			star.textContent = on ? 'Starred' : 'Star';
		});

		form.addEventListener('keydown', (e) => {
			if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
				e.preventDefault();
				form.requestSubmit ? form.requestSubmit() : form.dispatchEvent(new Event('submit', { cancelable: true }));
			}
		});
		form.addEventListener('submit', async (e) => {
			e.preventDefault();
			ui.clearErrors(form);
			const body = form.elements.body.value.trim();
			if (!body) {
				ui.formErrors(form, { fields: { body: 'write a message first' } });
				return;
			}
			const button = form.querySelector('[type="submit"]');
			button.disabled = true;
			let sent;
			try {
				sent = await api.post('/api/conversations/' + c.id + '/messages', { body });
			} catch (err) {
				if (!ctx.signal.aborted)
					ui.formErrors(form, err);
				return;
			} finally {
				button.disabled = false;
			}
			if (!shown.has(sent.id)) {
				shown.add(sent.id);
				list.append(message(sent));
			}
			scroll.scrollTop = scroll.scrollHeight;
			form.elements.body.value = '';
			form.elements.body.focus();
			const a = el.list.querySelector('[data-id="' + c.id + '"] .i-preview');
			if (a)
				a.textContent = body;
		});
	}

	/* ---- a new conversation ---- */

	const chosen = ui.suggest(el.newForm.elements.contact_id, async (q) => {
		const answer = await api.get('/api/contacts', { q, limit: 8 });
		return (answer.data || []).map((c) => {
			const name = [c.first_name, c.last_name].filter(Boolean).join(' ') || c.email || c.phone || 'Contact ' + c.id;
			return { label: c.email ? name + ' (' + c.email + ')' : name, value: c.id };
		});
	});
	el.newButton.addEventListener('click', () => {
		el.newForm.hidden = !el.newForm.hidden;
		el.newButton.setAttribute('aria-expanded', String(!el.newForm.hidden));
		if (!el.newForm.hidden)
			el.newForm.elements.contact_id.focus();
	});
	el.newForm.querySelector('[data-cancel]').addEventListener('click', () => {
		el.newForm.hidden = true;
		el.newButton.setAttribute('aria-expanded', 'false');
		el.newButton.focus();
	});
	el.newForm.addEventListener('submit', async (e) => {
		e.preventDefault();
		ui.clearErrors(el.newForm);
		const contact = chosen();
		if (!contact) {
			ui.formErrors(el.newForm, { fields: { contact_id: 'choose a contact from the list as you type' } });
			return;
		}
		let opened;
		try {
			opened = await api.post('/api/conversations', { contact_id: contact, channel: el.newForm.elements.channel.value });
		} catch (err) {
			if (!ctx.signal.aborted)
				ui.formErrors(el.newForm, err);
			return;
		}
		lastInbox = null;
		ctx.navigate(hrefKeeping('/conversations/' + opened.id));
	});

	peopleComing.then((answer) => {
		if (!answer || ctx.signal.aborted)
			return;
		const keep = el.assigned.value;
		el.assigned.textContent = '';
		el.assigned.append(html`<option value="">Anyone</option><option value="me">Me</option>
			${(answer.data || []).filter((u) => u.id !== me).map((u) => html`<option value="${u.id}">${u.name}</option>`)}`);
		el.assigned.value = keep;
	});
}

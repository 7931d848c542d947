// SPDX-License-Identifier: MIT
/*
 * inbox.js: the conversations pages. /app/conversations is the inbox,
 * newest first or unread first (all, unread or starred; by channel and by
 * assignee, kept in the URL); /app/conversations/:id opens a thread beside
 * it (on a phone, instead of it): inbox-thread.js. A new conversation
 * starts from a contact, picked by typing part of a name.
 *
 * The inbox's last answer is kept while the app runs, so that opening
 * another thread draws the inbox at once and then brings it up to date.
 * Both follow what others do (ctx.onLive): a message that comes in shows
 * in the inbox and, when its thread is open, at the bottom of it. The
 * inbox pages through ctx.ui.paged.
 *
 * The page's state `x`: {ctx, el, id (the thread's, or undefined),
 * filters, list (the pager), threadHears (the open thread's part of a
 * live update), people (the sub-account's, as ui.people gives them: one
 * request for the filter and the thread's assignee)}. Every name and message is put in as text (ctx.html,
 * textContent).
 */
import { CHANNELS, channelName, openThread } from './inbox-thread.js';

const SHOW = [['', 'All'], ['unread', 'Unread'], ['starred', 'Starred']];
const FILTERS = ['unread', 'starred', 'channel', 'assigned', 'sort'];

let lastInbox = null; /* { key, answer }: the inbox as last drawn */

export default async function page(view, ctx) {
	const { api, ui } = ctx;
	const id = ctx.params.id;
	if (id !== undefined && !/^[1-9]\d{0,17}$/.test(id)) {
		const e = new Error('No such conversation');
		e.status = 404;
		throw e;
	}
	const filters = ctx.queryOf(FILTERS);
	const inboxComing = api.get('/api/conversations', filters);
	const peopleComing = ui.people(api);
	const threadComing = id === undefined ? null
		: Promise.all([api.get('/api/conversations/' + id), api.get('/api/conversations/' + id + '/messages')]);
	const styled = ui.stylesheet(new URL('./inbox.css', import.meta.url));
	const kept = lastInbox && lastInbox.key === keyOf(ctx, filters) ? lastInbox.answer : null;
	const [inbox, thread] = await Promise.all([kept || inboxComing, threadComing, styled]);
	const x = { ctx, id, filters, threadHears: null, people: peopleComing };
	x.hrefKeeping = (path) => hrefKeeping(x, path);
	ctx.title(thread ? thread[0].contact_name || 'Conversation' : 'Conversations');
	view.classList.add('inbox-page');
	x.el = frame(view, x);
	x.list = ui.paged({
		more: x.el.more, what: 'The conversations', signal: ctx.signal, scroll: false,
		open: () => api.list('/api/conversations', x.filters),
		draw: (rows, pager, fresh) => showInbox(x, rows, pager, fresh),
	});
	filtering(x);
	showAnswer(x, inbox);
	if (kept) { /* drawn from memory: bring it up to date */
		inboxComing.then((fresh) => {
			if (!ctx.signal.aborted && keyOf(ctx, x.filters) === keyOf(ctx, filters))
				showAnswer(x, fresh);
		}, () => {});
	}
	following(x);
	if (thread)
		x.threadHears = openThread(x, thread[0], thread[1]);
	else
		x.el.thread.append(ctx.html`<h2 id="i-thread-h" class="visually-hidden">Thread</h2>
			<p class="i-none muted">Pick a conversation to read it and reply.</p>`);
	starting(x);
	peopleComing.then((people) => {
		if (people && !ctx.signal.aborted)
			ui.pickPerson(x.el.assigned, people, ctx.user.id);
	});
	return x.list.stop;
}

/* What the kept inbox is for: the sub-account and the filters. */
function keyOf(ctx, filters) {
	return (ctx.location ? ctx.location.id : '') + ' ' + JSON.stringify(filters);
}

/* A link in the app that keeps the inbox's filters. */
function hrefKeeping(x, path) {
	const q = new URLSearchParams(x.filters).toString();
	return x.ctx.href(path + (q ? '?' + q : ''));
}

function frame(view, x) {
	const { ctx, filters } = x;
	const { html } = ctx;
	view.append(html`
<div class="page-head">
	<h1>Conversations</h1>
	<a class="btn" href="${ctx.href('/saved-replies')}">Saved replies</a>
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
<div class="${'i-panes' + (x.id !== undefined ? ' has-thread' : '')}">
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
				<div><label for="i-assigned">Assigned to</label><select id="i-assigned" name="assigned"></select></div>
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
	ctx.ui.pickPerson(el.assigned, null, ctx.user.id, filters.assigned);
	return el;
}

/* ---- the inbox ---- */

function item(x, c) {
	const { ctx } = x;
	const current = String(c.id) === x.id;
	return ctx.html`<li><a class="${'i-item' + (c.unread_count ? ' is-unread' : '')}" data-id="${c.id}"
		href="${x.hrefKeeping('/conversations/' + c.id)}" aria-current="${current ? 'page' : null}">
		<span class="i-name">${c.contact_name || 'Contact ' + c.contact_id}</span>
		<span class="i-when">${ctx.format.when(c.last_message_at || c.created_at)}</span>
		<span class="i-preview">${c.last_message_preview || 'No messages yet'}</span>
		<span class="i-tags">
			<span class="i-channel">${channelName(c.channel)}</span>
			${c.starred ? ctx.html`<span class="i-star" title="Starred">★<span class="visually-hidden">Starred</span></span>` : ''}
			${c.unread_count ? ctx.html`<span class="i-unread">${c.unread_count}<span class="visually-hidden"> unread</span></span>` : ''}
		</span></a></li>`;
}

function showInbox(x, rows, pager, fresh) {
	const { el, filters } = x;
	if (fresh) {
		el.list.textContent = '';
		lastInbox = { key: keyOf(x.ctx, filters), answer: { data: rows, next_cursor: pager.cursor } };
	}
	for (const c of rows)
		el.list.append(item(x, c));
	const n = el.list.children.length;
	el.count.textContent = n ? n + (pager.done ? '' : '+') + (n === 1 ? ' conversation' : ' conversations')
		: 'No conversations' + (Object.keys(filters).some((k) => k !== 'sort') ? ' match these filters.' : ' yet.');
}

/* An answer of the inbox's first page (asked for early, or kept) shown,
 * the pager going on after it. */
function showAnswer(x, answer) {
	x.list.begin(x.ctx.api.list('/api/conversations', x.filters, answer), answer.data || []);
	lastInbox = { key: keyOf(x.ctx, x.filters), answer };
}

function filtering(x) {
	const { ctx, el } = x;
	el.filters.addEventListener('submit', (e) => e.preventDefault());
	el.filters.addEventListener('change', () => {
		const f = el.filters;
		const show = f.elements.show.value;
		ctx.setQuery({ unread: show === 'unread' ? 1 : '', starred: show === 'starred' ? 1 : '',
			channel: f.elements.channel.value, assigned: el.assigned.value, sort: f.elements.sort.value });
		x.filters = ctx.queryOf(FILTERS);
		for (const a of el.list.querySelectorAll('a'))
			a.href = x.hrefKeeping('/conversations/' + a.dataset.id);
		x.list.restart();
	});
}

/* Changes by others: the inbox asked again for as many as it shows (the
 * focus staying on the same conversation), and the open thread told. A
 * message's status moving on (message.status: sending, sent, delivered,
 * many a second in a campaign) changes no entry of the inbox: only the
 * thread hears of it. */
function following(x) {
	const { ctx, el } = x;
	ctx.onLive(['message.*', 'conversation.*'], async (events) => {
		if (events.some((e) => e.type === 'reload' || e.event !== 'message.status')) {
			const shown = el.list.children.length;
			const active = document.activeElement;
			const focused = active && el.list.contains(active) ? active.dataset.id : null;
			await x.list.restart(shown > 50 ? { limit: Math.min(shown, 1000) } : null);
			const again = focused && el.list.querySelector('[data-id="' + focused + '"]');
			if (again)
				again.focus({ preventScroll: true });
		}
		if (x.threadHears)
			x.threadHears(events);
	});
}

/* ---- a new conversation ---- */

/* A contact's "Send message" opens the form with the contact in it. */
async function starting(x) {
	const { ctx, el } = x;
	const { ui } = ctx;
	const form = el.newForm;
	const about = await ui.contactAsked(ctx.api, ctx.query);
	const chosen = ui.pickContact(form.elements.contact_id, ctx.api, about);
	const toggle = () => {
		form.hidden = !form.hidden;
		el.newButton.setAttribute('aria-expanded', String(!form.hidden));
		if (!form.hidden)
			(about ? form.elements.channel : form.elements.contact_id).focus();
	};
	el.newButton.addEventListener('click', toggle);
	if (about)
		toggle();
	form.querySelector('[data-cancel]').addEventListener('click', () => {
		form.hidden = true;
		el.newButton.setAttribute('aria-expanded', 'false');
		el.newButton.focus();
	});
	form.addEventListener('submit', async (e) => {
		e.preventDefault();
		ui.clearErrors(form);
		const contact = chosen();
		if (!contact) {
			ui.formErrors(form, { fields: { contact_id: 'choose a contact from the list as you type' } });
			return;
		}
		let opened;
		try {
			opened = await ctx.api.post('/api/conversations', { contact_id: contact, channel: form.elements.channel.value });
		} catch (err) {
			if (!ctx.signal.aborted)
				ui.formErrors(form, err);
			return;
		}
		lastInbox = null;
		ctx.navigate(x.hrefKeeping('/conversations/' + opened.id));
	});
}

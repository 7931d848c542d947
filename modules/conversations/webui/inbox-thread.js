// SPDX-License-Identifier: MIT
/*
 * inbox-thread.js: a conversation's thread beside the inbox (inbox.js,
 * whose state `x` is passed in): its messages, oldest at the top, older
 * ones loaded as it is scrolled up (a pager over the messages' cursor); a
 * reply sent from the box at the bottom (Ctrl+Enter sends); read when
 * opened; starred with one button. Each message written here shows its
 * status as it leaves (queued, sending, sent ...), why when it did not go,
 * and Retry when it failed. The composer sends on the conversation's
 * channel or another one a person picks (SMS and e-mail, each with a
 * contact's own address); an e-mail has a subject (the thread's, "Re:",
 * when left empty) and may take files (uploaded to the email module
 * first); a text counts its segments (segments.js); merge fields
 * ({{contact.first_name|there}}, merge-fields.js) and saved replies are
 * inserted from lists and filled by the server when it is sent. The head
 * of the thread assigns it and marks it unread. openThread() returns what
 * the thread does when others change it: messages sent or received
 * elsewhere join it at the bottom, and those shown take their new status.
 */

import { segmentsNote } from './segments.js';
import { FIELDS, fieldPicker, insertAt } from './merge-fields.js';

export const CHANNELS = [['sms', 'SMS'], ['email', 'E-mail'], ['whatsapp', 'WhatsApp'], ['facebook', 'Facebook'],
	['instagram', 'Instagram'], ['webchat', 'Web chat'], ['phone', 'Phone']];
const BODY_MAX = 5000;
/* The channels a person may pick in the composer. */
const PICKABLE = ['sms', 'email'];

export const channelName = (c) => (CHANNELS.find((x) => x[0] === c) || [c, c])[1];

/* What a person reads of an outbound message's status. */
const STATUS = {
	queued: 'Queued', sending: 'Sending…', sent: 'Sent', delivered: 'Delivered', read: 'Read',
	failed: 'Not sent', bounced: 'Bounced', unknown: 'May not have been sent',
};
const PROBLEM = new Set(['failed', 'bounced', 'unknown']);
const RETRY = new Set(['failed', 'unknown']);

function message(ctx, m) {
	const out = m.direction === 'outbound';
	const f = ctx.format;
	const status = out && m.status ? STATUS[m.status] || m.status : '';
	const li = ctx.html`<li class="${'i-msg ' + (out ? 'is-out' : 'is-in') + (PROBLEM.has(m.status) ? ' is-problem' : '')}"
		data-message="${String(m.id)}">
		${m.subject ? ctx.html`<p class="i-subject">${m.subject}</p>` : null}
		${m.html ? ctx.html`<div class="i-body i-rich">${ctx.rendered(m.html)}</div>` : ctx.html`<p class="i-body">${m.body}</p>`}
		${(m.attachments || []).length ? ctx.html`<p class="i-files">${m.attachments.map((id, i) =>
			ctx.html`<a href="${'/api/email/attachments/' + id + (ctx.location ? '?location_id=' + ctx.location.id : '')}"
				data-file="${String(id)}" download>${'File ' + (i + 1)}</a>`)}</p>` : null}
		<span class="i-meta" title="${f.moment(m.created_at)}">${(out ? '' : 'Received ') + f.when(m.created_at) +
			(status ? ' · ' : '')}<span class="i-status">${status}</span></span></li>`.firstElementChild;
	if (out && m.status_reason) /* a sentence, as the server words it: its first letter raised */
		li.append(ctx.html`<span class="i-reason">${m.status_reason.charAt(0).toUpperCase() + m.status_reason.slice(1)}</span>`);
	if (out && RETRY.has(m.status))
		li.append(ctx.html`<button type="button" class="btn btn-small" data-retry="${String(m.id)}">Retry</button>`);
	return li;
}

function frame(x, c) {
	const { ctx } = x;
	return ctx.html`
<header class="i-thread-head">
	<a class="i-back" href="${x.hrefKeeping('/conversations')}">Inbox</a>
	<h2 id="i-thread-h">${c.contact_name || 'Contact ' + c.contact_id}</h2>
	<span class="i-channel">${channelName(c.channel)}</span>
	<button type="button" class="btn btn-small" data-star aria-pressed="${String(!!c.starred)}">${c.starred ? 'Starred' : 'Star'}</button>
	<a class="btn btn-small" href="${ctx.href('/contacts/' + c.contact_id)}">Contact</a>
	<button type="button" class="btn btn-small" data-unread>Mark unread</button>
	${ctx.user.assigned_only ? null : ctx.html`<label class="i-assignee">Assigned to
		<select name="assigned_to"><option value="">No one</option></select></label>`}
</header>
<div class="i-scroll" tabindex="0" aria-label="Messages">
	<p class="i-older-note muted" hidden>Loading older messages…</p>
	<ol class="i-messages"></ol>
</div>
<form class="i-compose" novalidate>
	${c.opted_out ? ctx.html`<p class="i-opted-out" role="status">${(c.contact_name || 'The contact') +
		' opted out of ' + channelName(c.channel) + ': messages on this channel are refused.'}</p>` : null}
	<div class="i-compose-head">
		${PICKABLE.includes(c.channel) ? ctx.html`<label class="i-pick"><span class="i-pick-word">Send as</span> <select name="channel">${PICKABLE.map((k) =>
			ctx.html`<option value="${k}" selected="${k === c.channel}">${channelName(k)}</option>`)}</select></label>` : null}
		<label class="i-pick"><span class="i-pick-word">Insert</span> <select name="field"><option value="">a field…</option>${FIELDS.map(([k, label]) =>
			ctx.html`<option value="${k}">${label}</option>`)}</select></label>
		<label class="i-pick"><span class="i-pick-word">Saved reply</span> <select name="saved"><option value="">a saved reply…</option></select></label>
		<label class="i-pick i-files-field" hidden><span class="i-pick-word">Attach files</span> <input name="files" type="file" multiple></label>
	</div>
	<div class="field i-subject-field" hidden><label for="i-subject">Subject</label>
		<input id="i-subject" name="subject" maxlength="300" autocomplete="off" placeholder="Re: the thread's subject"></div>
	<label for="i-body">Reply</label>
	<textarea id="i-body" name="body" rows="3" maxlength="${BODY_MAX}" required placeholder="Write a message"></textarea>
	<p class="muted i-segments" aria-live="polite"></p>
	<div class="i-compose-actions"><span class="muted i-hint">Ctrl+Enter sends</span>
		<button type="submit" class="btn btn-primary">Send</button></div>
</form>`;
}

/* The thread of conversation `c`, its newest messages `page1` first. The
 * thread's state `t`: {x, ctx, c, el (scroll, list, note, form, star),
 * shown (each message shown, by id: its status and reason as shown)}. */
export function openThread(x, c, page1) {
	const { ctx } = x;
	x.el.thread.append(frame(x, c));
	const q = (sel) => x.el.thread.querySelector(sel);
	const t = {
		x, ctx, c, shown: new Map(), files: new Map(), unnamed: new Set(),
		el: { scroll: q('.i-scroll'), list: q('.i-messages'), note: q('.i-older-note'), form: q('.i-compose'),
			star: q('[data-star]'), unread: q('[data-unread]'), assignee: q('[name="assigned_to"]') },
	};
	for (const m of (page1.data || []).slice().reverse())
		t.el.list.append(show(t, m));
	requestAnimationFrame(() => { t.el.scroll.scrollTop = t.el.scroll.scrollHeight; });
	older(t, ctx.api.list('/api/conversations/' + c.id + '/messages', null, page1));
	if (c.unread_count)
		read(t);
	starring(t);
	unreading(t);
	assigning(t);
	replying(t);
	savedReplies(t);
	retrying(t);
	return (events) => heard(t, events);
}

/* What of message `m` the thread shows may change: its status and why. */
const stateOf = (m) => m.status + '\n' + (m.status_reason || '');

/* Message `m`'s element, remembered as shown. */
function show(t, m) {
	t.shown.set(m.id, stateOf(m));
	const li = message(t.ctx, m);
	nameFiles(t, li);
	return li;
}

/* A file's link says its name and size, and saves it under that name. */
function named(a, f) {
	const kb = Math.max(1, Math.round(f.bytes / 1024));
	a.textContent = f.name + ' (' + (kb < 1024 ? kb + ' KB' : (kb / 1024).toFixed(1) + ' MB') + ')';
	a.setAttribute('download', f.name);
}

/* The names of the files of messages drawn, asked for together once they
 * are (GET /api/email/attachments?ids=) and kept for the thread; a link
 * whose name does not come keeps its number. */
function nameFiles(t, li) {
	for (const a of li.querySelectorAll('a[data-file]')) {
		const f = t.files.get(a.dataset.file);
		if (f)
			named(a, f);
		else if (t.unnamed.add(a).size === 1)
			queueMicrotask(() => askNames(t));
	}
}

async function askNames(t) {
	const links = Array.from(t.unnamed);
	t.unnamed.clear();
	const ids = Array.from(new Set(links.map((a) => a.dataset.file))).slice(0, 100);
	try {
		const answer = await t.ctx.api.get('/api/email/attachments?ids=' + ids.join(','));
		for (const f of answer.data || [])
			t.files.set(String(f.id), f);
	} catch (e) {
		return;
	}
	for (const a of links) {
		const f = t.files.get(a.dataset.file);
		if (f)
			named(a, f);
	}
}

/* Message `m`'s status again, where it is shown, when it changed: the
 * status line, the reason and Retry, in place (its links and text stay
 * the elements they were, so a click on one is never lost). */
function update(t, m) {
	if (t.shown.get(m.id) === stateOf(m))
		return;
	const old = t.el.list.querySelector('[data-message="' + m.id + '"]');
	if (!old)
		return;
	t.shown.set(m.id, stateOf(m));
	const end = atEnd(t.el.scroll);
	const fresh = message(t.ctx, m);
	old.className = fresh.className;
	for (const el of Array.from(old.querySelectorAll('.i-reason, [data-retry]')))
		el.remove();
	old.querySelector('.i-meta').replaceWith(fresh.querySelector('.i-meta'));
	old.append(...Array.from(fresh.querySelectorAll('.i-reason, [data-retry]')));
	if (end) /* a reason and Retry, grown at the bottom, stay in view */
		t.el.scroll.scrollTop = t.el.scroll.scrollHeight;
}

/* Whether `scroll` shows the end of the thread, give or take a line. */
function atEnd(scroll) {
	return scroll.scrollTop + scroll.clientHeight >= scroll.scrollHeight - 40;
}

/* Scrolled to the top, the thread shows its older messages, the one read
 * staying in place. */
function older(t, pager) {
	const { ctx, el } = t;
	let loading = false;
	el.scroll.addEventListener('scroll', async () => {
		if (el.scroll.scrollTop > 80 || pager.done || loading)
			return;
		loading = true;
		el.note.hidden = false;
		try {
			const rows = await pager.next();
			if (ctx.signal.aborted)
				return;
			const before = el.scroll.scrollHeight;
			for (const m of rows)
				el.list.prepend(show(t, m));
			el.scroll.scrollTop += el.scroll.scrollHeight - before;
		} catch (e) {
			if (!ctx.signal.aborted)
				ctx.ui.toast('Older messages could not be loaded: ' + e.message, { kind: 'error' });
		} finally {
			loading = false;
			el.note.hidden = true;
		}
	}, { passive: true });
}

/* Read when opened: the inbox's entry loses its unread mark. */
function read(t) {
	const { ctx, c, x } = t;
	ctx.api.post('/api/conversations/' + c.id + '/read').then(() => {
		const a = x.el.list.querySelector('[data-id="' + c.id + '"]');
		if (a) {
			a.classList.remove('is-unread');
			const badge = a.querySelector('.i-unread');
			if (badge)
				badge.remove();
		}
	}, () => {});
}

/* Messages of this thread sent or received elsewhere join it at the
 * bottom; read at once when the page is being looked at. */
async function heard(t, events) {
	const { ctx, c, el } = t;
	const ours = events.some((e) => e.type === 'reload' ||
		(e.event.startsWith('message.') && e.data && e.data.conversation_id === c.id));
	if (!ours)
		return;
	let newest;
	try {
		newest = await ctx.api.get('/api/conversations/' + c.id + '/messages');
	} catch (e) {
		return;
	}
	if (ctx.signal.aborted)
		return;
	const end = atEnd(el.scroll);
	let theirs = false;
	for (const m of (newest.data || []).slice().reverse()) {
		if (t.shown.has(m.id)) {
			update(t, m);
			continue;
		}
		el.list.append(show(t, m));
		theirs = theirs || m.direction !== 'outbound';
	}
	if (end)
		el.scroll.scrollTop = el.scroll.scrollHeight;
	if (theirs && document.visibilityState === 'visible')
		ctx.api.post('/api/conversations/' + c.id + '/read').catch(() => {});
}

/* Retry on a message that failed, or whose sending is unknown: queued
 * again, shown as such. */
function retrying(t) {
	const { ctx, c, el } = t;
	el.list.addEventListener('click', async (e) => {
		const button = e.target.closest('[data-retry]');
		if (!button)
			return;
		button.disabled = true;
		let m;
		try {
			m = await ctx.api.post('/api/conversations/' + c.id + '/messages/' + button.dataset.retry + '/retry');
		} catch (err) {
			button.disabled = false;
			if (!ctx.signal.aborted)
				ctx.ui.toast('The message could not be sent again: ' + err.message, { kind: 'error' });
			return;
		}
		update(t, m);
		ctx.ui.toast('Sending the message again.');
	});
}

function starring(t) {
	const { ctx, c } = t;
	const star = t.el.star;
	star.addEventListener('click', async () => {
		const on = star.getAttribute('aria-pressed') !== 'true';
		try {
			await ctx.api.patch('/api/conversations/' + c.id, { starred: on });
		} catch (e) {
			if (!ctx.signal.aborted)
				ctx.ui.toast('The conversation could not be starred: ' + e.message, { kind: 'error' });
			return;
		}
		star.setAttribute('aria-pressed', String(on));
		star.textContent = on ? 'Starred' : 'Star';
	});
}

/* Mark unread: the conversation waits in the inbox, bold, for whoever
 * opens it next; the thread closes, as it would be read again if kept. */
function unreading(t) {
	const { ctx, c, x } = t;
	t.el.unread.addEventListener('click', async () => {
		t.el.unread.disabled = true;
		try {
			await ctx.api.post('/api/conversations/' + c.id + '/unread');
		} catch (e) {
			t.el.unread.disabled = false;
			if (!ctx.signal.aborted)
				ctx.ui.toast('The conversation could not be marked unread: ' + e.message, { kind: 'error' });
			return;
		}
		if (ctx.signal.aborted) /* gone elsewhere meanwhile: not pulled back */
			return;
		ctx.ui.toast('Marked unread.');
		ctx.navigate(x.hrefKeeping('/conversations'));
	});
}

/* Who answers it: anyone of the sub-account, or no one; saved as it is
 * chosen. Not offered to those who see only their own conversations. */
async function assigning(t) {
	const { ctx, c } = t;
	const select = t.el.assignee;
	if (!select)
		return;
	const people = await t.x.people;
	if (ctx.signal.aborted)
		return;
	for (const u of people ? people.values() : [])
		select.append(ctx.html`<option value="${u.id}">${u.id === ctx.user.id ? u.name + ' (me)' : u.name}</option>`);
	let now = c.assigned_to ? String(c.assigned_to) : '';
	if (now && !select.querySelector('option[value="' + now + '"]'))
		select.append(ctx.html`<option value="${now}">${'User ' + now}</option>`);
	select.value = now;
	select.addEventListener('change', async () => {
		const to = select.value;
		try {
			await ctx.api.patch('/api/conversations/' + c.id, { assigned_to: to ? Number(to) : null });
		} catch (e) {
			select.value = now;
			if (!ctx.signal.aborted)
				ctx.ui.toast('The conversation could not be assigned: ' + e.message, { kind: 'error' });
			return;
		}
		now = to;
		const who = people && people.get(Number(to));
		ctx.ui.toast(!to ? 'Nobody is assigned now.' : 'Assigned to ' + (who ? who.name : 'user ' + to) + '.');
	});
}

/* The sub-account's saved replies, offered in the composer: one chosen
 * goes in where the caret is (its merge fields filled when it is sent),
 * and its subject into an e-mail's empty subject. */
async function savedReplies(t) {
	const { ctx } = t;
	const f = t.el.form.elements;
	let replies = [];
	try {
		replies = (await ctx.api.get('/api/saved-replies')).data || [];
	} catch (e) {
		/* none offered: the composer works without them */
	}
	if (ctx.signal.aborted)
		return;
	f.saved.append(...replies.map((r) => ctx.html`<option value="${String(r.id)}">${r.name}</option>`));
	if (!replies.length)
		f.saved.append(ctx.html`<option value="" disabled>None saved yet</option>`);
	f.saved.addEventListener('change', () => {
		const r = replies.find((x) => String(x.id) === f.saved.value);
		f.saved.value = '';
		if (!r)
			return;
		if (r.subject && !f.subject.value.trim())
			f.subject.value = r.subject;
		insertAt(f.body, r.body);
	});
}

/* The channel the composer sends on. */
const picked = (t) => (t.el.form.elements.channel ? t.el.form.elements.channel.value : t.c.channel);

function replying(t) {
	const { form } = t.el;
	const f = form.elements;
	const segments = form.querySelector('.i-segments');
	const subject = form.querySelector('.i-subject-field');
	const fit = () => {
		segments.textContent = picked(t) === 'sms' ? segmentsNote(f.body.value) : '';
		subject.hidden = picked(t) !== 'email';
		form.querySelector('.i-files-field').hidden = picked(t) !== 'email';
	};
	fit();
	f.body.addEventListener('input', fit);
	if (f.channel)
		f.channel.addEventListener('change', fit);
	fieldPicker(f.field, f.body);
	form.addEventListener('keydown', (e) => {
		if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
			e.preventDefault();
			form.requestSubmit ? form.requestSubmit() : form.dispatchEvent(new Event('submit', { cancelable: true }));
		}
	});
	form.addEventListener('submit', (e) => {
		e.preventDefault();
		reply(t);
	});
}

async function reply(t) {
	const { ctx, c, el } = t;
	const { form } = el;
	ctx.ui.clearErrors(form);
	const body = form.elements.body.value.trim();
	const payload = { body, channel: picked(t) };
	if (payload.channel === 'email' && form.elements.subject.value.trim())
		payload.subject = form.elements.subject.value.trim();
	if (!body) {
		ctx.ui.formErrors(form, { fields: { body: 'write a message first' } });
		return;
	}
	const button = form.querySelector('[type="submit"]');
	button.disabled = true;
	let sent;
	try {
		/* an e-mail's files go first; the message names them */
		const files = payload.channel === 'email' ? Array.from(form.elements.files.files) : [];
		if (files.length)
			payload.attachments = [];
		for (const file of files)
			payload.attachments.push((await ctx.api.post('/api/email/files?name=' + encodeURIComponent(file.name), file)).id);
		sent = await ctx.api.post('/api/conversations/' + c.id + '/messages', payload);
	} catch (err) {
		if (!ctx.signal.aborted)
			ctx.ui.formErrors(form, err);
		return;
	} finally {
		button.disabled = false;
	}
	if (!t.shown.has(sent.id))
		el.list.append(show(t, sent));
	el.scroll.scrollTop = el.scroll.scrollHeight;
	form.elements.body.value = '';
	form.elements.subject.value = '';
	form.elements.files.value = '';
	form.elements.body.dispatchEvent(new Event('input'));
	form.elements.body.focus();
	/* the inbox's entry, its preview the server's words, comes with the
	 * live message.sent, as for a message sent elsewhere */
}

// SPDX-License-Identifier: MIT
/*
 * record.js: a contact's page, /app/contacts/:id. Its name and details,
 * quick actions, custom fields, tags (add, remove), its timeline, notes
 * (list, add, delete) and when it was last active; Edit turns the
 * details into the form of form.js, Delete asks in place and goes back
 * to the list.
 *
 * A contact that does not exist (or is another sub-account's) makes the
 * page function throw the API's 404, and the shell says "Not found".
 * Loaded by contacts.js; gets its helpers as `lib`. The page's state `r`
 * ({ctx, lib, path, c (the contact as last read), fields, el, left}) is
 * passed to its parts: this file (the head, details, editing, deleting,
 * activity), record-notes.js (the tags and the notes) and
 * record-timeline.js (the timeline and the quick actions).
 */
import { notes, tags } from './record-notes.js';
import { firstLines, quickActions, timeline } from './record-timeline.js';

const NOTES_PAGE = 20;

export default async function record(view, ctx, lib) {
	const { api } = ctx;
	const path = '/api/contacts/' + encodeURIComponent(ctx.params.id);
	const [contact, fieldList] = await Promise.all([
		api.get(path),
		api.get('/api/custom-fields', { limit: 1000 }).catch(() => null),
	]);
	const pager = api.list(path + '/notes', { limit: NOTES_PAGE });
	const [firstNotes, lines] = await Promise.all([pager.next().catch(() => null), firstLines(ctx, path)]);
	view.classList.add('contacts', 'c-record');
	const r = { ctx, lib, path, c: contact, fields: (fieldList && fieldList.data) || [], left: false,
		el: frame(view, ctx) };
	r.head = () => head(r);
	head(r);
	details(r);
	editing(r);
	deleting(r);
	quickActions(r);
	tags(r);
	activity(r);
	consent(r);
	timeline(r, lines);
	notes(r, pager, firstNotes);
	return () => {
		r.left = true;
	};
}

function frame(view, ctx) {
	const { html } = ctx;
	view.append(html`
<nav class="crumbs" aria-label="Breadcrumb"><a href="${ctx.href('/contacts')}">Contacts</a></nav>
<div class="page-head r-head">
	<span class="avatar avatar-lg" aria-hidden="true"></span>
	<div class="r-title"><h1></h1><p class="r-lead muted"></p></div>
	<div class="c-actions">
		<button type="button" class="btn" data-edit>Edit</button>
		<button type="button" class="btn btn-danger" data-delete>Delete</button>
	</div>
</div>
<div class="r-quick" role="group" aria-label="Quick actions"></div>
<div class="r-confirm"></div>
<div class="r-grid">
	<div class="r-main">
		<section class="card" aria-labelledby="r-timeline-h">
			<h2 id="r-timeline-h">Timeline</h2>
			<ol class="r-timeline" aria-label="What happened, newest first"></ol>
			<p class="r-notes-more"><button type="button" class="btn" data-timeline-more hidden>Show older</button></p>
		</section>
		<section class="card" aria-labelledby="r-details-h">
			<h2 id="r-details-h">Details</h2>
			<div class="r-details"></div>
		</section>
		<section class="card" aria-labelledby="r-notes-h">
			<h2 id="r-notes-h">Notes</h2>
			<form class="r-note-form">
				<div class="field">
					<label for="r-note">New note</label>
					<p class="field-hint muted" id="r-note-hint">Type @ to mention someone: they are told.</p>
					<textarea aria-describedby="r-note-hint" id="r-note" name="body" rows="3" maxlength="10000"></textarea>
				</div>
				<button type="submit" class="btn btn-primary">Add note</button>
			</form>
			<ul class="r-notes"></ul>
			<p class="r-notes-more"><button type="button" class="btn" data-older hidden>Show older notes</button></p>
		</section>
	</div>
	<div class="r-side">
		<section class="card" aria-labelledby="r-tags-h">
			<h2 id="r-tags-h">Tags</h2>
			<ul class="r-tags" aria-label="Tags of this contact"></ul>
			<form class="r-tag-form">
				<label for="r-tag">Add a tag</label>
				<div class="r-inline">
					<input id="r-tag" name="tag" list="r-tag-names" autocomplete="off" maxlength="64">
					<datalist id="r-tag-names"></datalist>
					<button type="submit" class="btn">Add</button>
				</div>
			</form>
		</section>
		<section class="card" aria-labelledby="r-activity-h">
			<h2 id="r-activity-h">Activity</h2>
			<div class="r-activity"></div>
		</section>
		<section class="card" aria-labelledby="r-consent-h" hidden>
			<h2 id="r-consent-h">Messages allowed</h2>
			<div class="r-consent"></div>
		</section>
	</div>
</div>`);
	return {
		avatar: view.querySelector('.avatar'),
		h1: view.querySelector('h1'),
		lead: view.querySelector('.r-lead'),
		edit: view.querySelector('[data-edit]'),
		del: view.querySelector('[data-delete]'),
		confirm: view.querySelector('.r-confirm'),
		quick: view.querySelector('.r-quick'),
		timeline: view.querySelector('.r-timeline'),
		timelineMore: view.querySelector('[data-timeline-more]'),
		details: view.querySelector('.r-details'),
		noteForm: view.querySelector('.r-note-form'),
		notes: view.querySelector('.r-notes'),
		older: view.querySelector('[data-older]'),
		tags: view.querySelector('.r-tags'),
		tagForm: view.querySelector('.r-tag-form'),
		tagNames: view.querySelector('#r-tag-names'),
		activity: view.querySelector('.r-activity'),
		consent: view.querySelector('.r-consent'),
	};
}

/* ---- the head and the details ---- */

function head(r) {
	const { ctx, lib, c, el } = r;
	const name = lib.fullName(c);
	ctx.title(name);
	el.h1.textContent = name;
	el.avatar.textContent = lib.initials(c);
	el.lead.textContent = [c.company_name, c.email].filter(Boolean).join(' · ');
}

function fieldValue(ctx, f, v) {
	if (v == null || v === '')
		return null;
	if (f.type === 'checkbox')
		return v ? 'Yes' : 'No';
	if (f.type === 'date')
		return ctx.format.day(v) || v;
	if (f.type === 'number' && typeof v === 'number')
		return ctx.format.number(v);
	return String(v);
}

function details(r) {
	const { ctx, c, el, fields } = r;
	const { html } = ctx;
	const none = html`<span class="muted">Not set</span>`;
	const row = (label, value) => html`<div class="r-row"><dt>${label}</dt><dd>${value == null || value === '' ? none.cloneNode(true) : value}</dd></div>`;
	const custom = c.custom_fields || {};
	el.details.textContent = '';
	el.details.append(html`<dl class="r-dl">
		${row('E-mail', c.email ? html`<a href="${'mailto:' + c.email}">${c.email}</a>` : null)}
		${row('Phone', c.phone ? html`<a href="${'tel:' + c.phone.replace(/[^\d+]/g, '')}">${c.phone_typed || c.phone}</a>` : null)}
		${row('First name', c.first_name)}
		${row('Last name', c.last_name)}
		${row('Company', c.company_name)}
		${row('Source', c.source)}
		${row('Health score', c.health_score == null ? null : String(c.health_score) + ' of 100')}
		${row('Created', ctx.format.moment(c.created_at))}
		${row('Updated', ctx.format.moment(c.updated_at))}
	</dl>
	${fields.length ? html`<h3 class="r-sub">Custom fields</h3><dl class="r-dl">
		${fields.map((f) => row(f.name, fieldValue(ctx, f, custom[f.key])))}</dl>` : null}`);
}

/* ---- editing ---- */

/* Edit turns the details into the contact's form (form.js, loaded then). */
function editing(r) {
	const { ctx, el } = r;
	let busy = false;
	el.edit.addEventListener('click', async () => {
		if (busy)
			return;
		busy = true;
		el.edit.disabled = true;
		let form;
		try {
			form = await import('./form.js');
		} catch (err) {
			busy = false;
			el.edit.disabled = false;
			ctx.ui.toast('The form could not be loaded: ' + err.message, { kind: 'error' });
			return;
		}
		if (!r.left)
			edit(r, form, () => {
				busy = false;
				el.edit.disabled = false;
				details(r);
				el.edit.focus();
			});
	});
}

function edit(r, form, stop) {
	const { ctx, lib, el, fields } = r;
	const f = form.contactForm(ctx, r.c, fields, 'Save changes');
	f.setAttribute('aria-label', 'Edit ' + lib.fullName(r.c));
	el.details.textContent = '';
	el.details.append(f);
	f.querySelector('[data-cancel]').addEventListener('click', stop);
	f.addEventListener('keydown', (e) => {
		if (e.key === 'Escape')
			stop();
	});
	f.addEventListener('submit', async (e) => {
		e.preventDefault();
		const body = form.formBody(f, r.c, fields);
		if (!Object.keys(body).length)
			return stop();
		const saved = await form.submit(ctx, f, (b) => ctx.api.patch(r.path, b), body);
		if (!saved || r.left)
			return;
		r.c = saved;
		head(r);
		stop();
		ctx.ui.toast('Changes saved.', { kind: 'success' });
	});
	f.querySelector('input').focus();
}

/* ---- deleting ---- */

function deleting(r) {
	const { ctx, lib, el } = r;
	el.del.addEventListener('click', async () => {
		const yes = await ctx.ui.confirm(el.confirm, 'Delete ' + lib.fullName(r.c) +
			'? Their notes and tags go with them.', 'Delete contact');
		if (!yes || r.left)
			return;
		try {
			await ctx.api.del(r.path);
		} catch (e) {
			ctx.ui.toast('The contact could not be deleted: ' + e.message, { kind: 'error' });
			return;
		}
		ctx.ui.toast(lib.fullName(r.c) + ' was deleted.', { kind: 'success' });
		ctx.navigate(ctx.href('/contacts'));
	});
}

/* ---- activity ---- */

/* When the contact was last active (what happened is the timeline's). */
function activity(r) {
	const { ctx, c, el } = r;
	const { html } = ctx;
	el.activity.textContent = '';
	el.activity.append(html`
		<dl class="r-dl r-dl-tight">
			<div class="r-row"><dt>Last activity</dt><dd>${c.last_activity_at ? ctx.format.moment(c.last_activity_at) : 'None yet'}</dd></div>
			<div class="r-row"><dt>Notes</dt><dd>${String(c.notes_count || 0)}</dd></div>
		</dl>`);
}

/* ---- consent: the channels the contact opted out of ---- */

const CHANNEL_NAMES = { sms: 'SMS', email: 'E-mail', whatsapp: 'WhatsApp', facebook: 'Facebook',
	instagram: 'Instagram', webchat: 'Web chat', phone: 'Phone' };
const HOW = { reply: 'they replied', link: 'by the unsubscribe link', person: 'noted by a person' };

/* Shown when the server keeps conversations (the opt-outs are theirs):
 * each channel the contact asked for no messages on, with a way to take
 * it back for one who asked again. */
async function consent(r) {
	const { ctx, c, el } = r;
	const { html, api, ui } = ctx;
	let list;
	try {
		list = (await api.get('/api/opt-outs', { contact: c.id })).data;
	} catch {
		return; /* no conversations module: nothing to show */
	}
	if (r.left)
		return;
	el.consent.closest('section').hidden = false;
	el.consent.replaceChildren(list.length
		? html`<ul class="r-consent-list">${list.map((o) => html`<li>
			<span><strong>${'No ' + (CHANNEL_NAMES[o.channel] || o.channel)}</strong>
			<span class="muted">${' since ' + ctx.format.day(o.created_at.slice(0, 10)) + ', ' + (HOW[o.source] || o.source)}</span></span>
			<button type="button" class="btn btn-small" data-opt-in="${o.channel}">${'Allow ' + (CHANNEL_NAMES[o.channel] || o.channel) + ' again'}</button>
		</li>`)}</ul>`
		: html`<p class="muted">Every channel: the contact has not opted out of any.</p>`);
	for (const b of el.consent.querySelectorAll('[data-opt-in]'))
		b.addEventListener('click', async () => {
			try {
				await api.del('/api/opt-outs/' + c.id + '/' + b.dataset.optIn);
			} catch (err) {
				if (!ctx.signal.aborted)
					ui.toast(err.message, { kind: 'error' });
				return;
			}
			ui.toast('Messages on ' + (CHANNEL_NAMES[b.dataset.optIn] || b.dataset.optIn) + ' may go again.', { kind: 'success' });
			consent(r);
		});
}

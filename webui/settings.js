// SPDX-License-Identifier: MIT
/*
 * settings.js: the Settings page (/app/settings; the core registers it in
 * core/http/pages.c). Its sections, each shown only to whom the API allows:
 *
 *   Your account   everyone's own: the password changed, the devices
 *                  signed in listed and signed out (settings-account.js);
 *   API tokens     everyone's own: made (shown once, to copy), revoked;
 *   Agency         agency admins: its name, and the time zone, currency
 *                  and country new sub-accounts start with
 *                  (settings-agency.js);
 *   People         agency admins: who works here, their role and
 *                  sub-accounts; a person added (with a password, or
 *                  invited by a one-time link), disabled or enabled; an
 *                  invitation sent again or revoked; a password reset link
 *                  made (settings-links.js);
 *   Sub-accounts   agency admins: added, renamed, their time zone, currency and
 *                  country (phone numbers without a country code are its);
 *   Modules        agency admins: what the server runs, and what not, why;
 *   Audit log      agency admins: who did what to which record, filtered
 *                  (settings-audit.js).
 *
 * The section is kept in the URL (?section=). The modules' own settings
 * (pipelines, custom fields) live on their pages. Each section is a
 * function of its own, given the page's state `s` ({ctx, view, body,
 * open(name, focus, query)}) and the section's element to fill. Every
 * name is put in as text (ctx.html, textContent).
 */
import { account } from './settings-account.js';
import { agency } from './settings-agency.js';
import { showLink } from './settings-links.js';
import { placeFields, placeLists, placeOf } from './settings-places.js';

import { audit } from './settings-audit.js';

const ROLES = [['location_user', 'Sub-account user'], ['location_admin', 'Sub-account admin'],
	['agency_user', 'Agency user'], ['agency_admin', 'Agency admin']];
const roleName = (r) => (ROLES.find((x) => x[0] === r) || [r, r])[1];

const draws = { account, tokens, agency, people, locations, modules, audit };

export default async function page(view, ctx) {
	const { html, ui } = ctx;
	const admin = ctx.user.role === 'agency_admin';
	const sections = [['account', 'Your account'], ['tokens', 'API tokens']].concat(admin
		? [['agency', 'Agency'], ['people', 'People'], ['locations', 'Sub-accounts'], ['modules', 'Modules'],
			['audit', 'Audit log']] : []);
	const section = sections.some((x) => x[0] === ctx.query.get('section')) ? ctx.query.get('section') : sections[0][0];
	await ui.stylesheet(new URL('./settings.css', import.meta.url));

	ctx.title('Settings');
	view.append(html`
<div class="page-head"><h1>Settings</h1></div>
<nav class="tabs" aria-label="Settings">${sections.map((x) => html`<a href="${'?section=' + x[0]}"
	data-section="${x[0]}">${x[1]}</a>`)}</nav>
<div class="s-body"></div>`);
	const s = { ctx, view, body: view.querySelector('.s-body'), sections, section };
	s.open = (name, focus, query) => open(s, name, focus, query);
	view.querySelector('.tabs').addEventListener('click', (e) => {
		const a = e.target.closest('a[data-section]');
		if (!a)
			return;
		e.preventDefault();
		e.stopPropagation();
		s.open(a.dataset.section, true).catch((err) => ui.toast(err.message, { kind: 'error' }));
	});
	await s.open(section);
}

/* Draws section `name` (with `query`, its filters, in the URL). */
async function open(s, name, focus, query) {
	const { ctx, view, body } = s;
	s.section = name;
	for (const a of view.querySelectorAll('.tabs a')) {
		if (a.dataset.section === name)
			a.setAttribute('aria-current', 'page');
		else
			a.removeAttribute('aria-current');
	}
	ctx.setQuery(Object.assign({ section: name === s.sections[0][0] ? '' : name }, query || {}));
	ctx.query = new URLSearchParams(location.search);
	const part = ctx.html`<section class="s-section"></section>`.firstElementChild;
	await draws[name](s, part);
	if (ctx.signal.aborted || s.section !== name)
		return;
	body.textContent = '';
	body.append(part);
	if (focus)
		part.querySelector('h2').focus();
}

async function tokens(s, part) {
	const { ctx, body } = s;
	const { html, api, ui } = ctx;
	const list = await api.get('/api/auth/tokens');
	const places = new Map((ctx.user.locations || []).map((l) => [l.id, l.name]));
	part.append(html`<h2 tabindex="-1">API tokens</h2>
<p class="muted">A token lets an app or an integration use the API as you. It is shown once, when it is made.</p>
<form class="card s-form" novalidate aria-label="New API token">
<div class="field"><label for="s-token-name">Name</label>
	<input id="s-token-name" name="name" maxlength="100" required autocomplete="off" placeholder="Zapier"></div>
<div class="field"><label for="s-token-loc">Sub-account</label>
	<select id="s-token-loc" name="location_id"><option value="">Every one I may open</option>
		${Array.from(places).map(([id, name]) => html`<option value="${id}">${name}</option>`)}</select></div>
<div class="field"><label for="s-token-days">Expires after (days)</label>
	<input id="s-token-days" name="expires_days" inputmode="numeric" autocomplete="off" placeholder="Never"></div>
<button type="submit" class="btn btn-primary">Make token</button>
</form>
<div class="s-new-token" hidden role="status"></div>
<table class="table s-table s-tokens s-cards"><thead><tr><th scope="col">Name</th><th scope="col">Sub-account</th>
<th scope="col">Made</th><th scope="col">Last used</th><th scope="col">Expires</th>
<th scope="col"><span class="visually-hidden">Revoke</span></th></tr></thead>
<tbody>${(list.data || []).map((t) => html`<tr><td>${t.name}</td>
<td data-label="Sub-account">${t.location_id ? places.get(t.location_id) || 'Sub-account ' + t.location_id : 'All'}</td>
<td data-label="Made">${ctx.format.day(t.created_at)}</td>
<td data-label="Last used">${t.last_used_at ? ctx.format.moment(t.last_used_at) : 'Never'}</td>
<td data-label="Expires">${t.expires_at ? ctx.format.day(t.expires_at) : 'Never'}</td>
<td><button type="button" class="btn btn-small btn-danger" data-revoke="${t.id}">Revoke<span class="visually-hidden">${' ' + t.name}</span></button></td></tr>`)}</tbody></table>
${(list.data || []).length ? '' : html`<p class="muted">No tokens yet.</p>`}`);
	const form = part.querySelector('form');
	form.addEventListener('submit', async (e) => {
		e.preventDefault();
		ui.clearErrors(form);
		const name = form.elements.name.value.trim();
		const days = form.elements.expires_days.value.trim();
		if (!name)
			return ui.formErrors(form, { fields: { name: 'a name says what the token is for' } });
		if (days && !/^[1-9]\d{0,4}$/.test(days))
			return ui.formErrors(form, { fields: { expires_days: 'a whole number of days, or nothing' } });
		const made = { name };
		if (form.elements.location_id.value)
			made.location_id = Number(form.elements.location_id.value);
		if (days)
			made.expires_days = Number(days);
		let token;
		try {
			token = await api.post('/api/auth/tokens', made);
		} catch (err) {
			return ctx.signal.aborted ? null : ui.formErrors(form, err);
		}
		await s.open('tokens');
		const shown = body.querySelector('.s-new-token');
		shown.hidden = false;
		shown.append(html`<p><strong>${'Token “' + token.name + '” made.'}</strong> Copy it now: it is not shown again.</p>
			<p><label for="s-token-value">The token</label>
			<input id="s-token-value" readonly class="s-token-value" value="${token.token}"></p>`);
		const value = shown.querySelector('input');
		value.focus();
		value.select();
	});
	part.addEventListener('click', async (e) => {
		const b = e.target.closest('[data-revoke]');
		if (!b)
			return;
		try {
			await api.del('/api/auth/tokens/' + b.dataset.revoke);
		} catch (err) {
			return ctx.signal.aborted ? null : ui.toast('The token could not be revoked: ' + err.message, { kind: 'error' });
		}
		await s.open('tokens');
		ui.toast('Token revoked: it no longer works.', { kind: 'success' });
	});
}

/* A person's state in People: an invitation not yet accepted says so,
 * and why its e-mail did not leave. */
function state(u) {
	if (u.disabled_at)
		return 'Disabled';
	if (!u.invited)
		return 'Active';
	const k = u.link;
	if (!k || k.used_at || Date.parse(k.expires_at) < Date.now())
		return 'Invited (the link has ended: send it again)';
	return k.mail === 'failed' ? 'Invited (not e-mailed: ' + k.mail_error + ')'
		: k.mail === 'sent' ? 'Invited (e-mailed)' : 'Invited';
}

async function people(s, part) {
	const { ctx, view } = s;
	const { html, api, ui } = ctx;
	const [users, places] = await Promise.all([api.get('/api/admin/users'), api.get('/api/admin/locations')]);
	const placeName = new Map((places.data || []).map((l) => [l.id, l.name]));
	/* The fields of a person; `u` one to change (no e-mail or password
	 * then: those are theirs to keep, or reset on their own). */
	const fields = (id, u) => html`
<div class="field"><label for="${id + '-name'}">Name</label><input id="${id + '-name'}" name="name" maxlength="100" required
	autocomplete="off" value="${u ? u.name : null}"></div>
${u ? null : html`<div class="field"><label for="${id + '-email'}">E-mail</label><input id="${id + '-email'}" name="email" type="email" maxlength="254" required autocomplete="off"></div>
<div class="field"><label for="${id + '-password'}">Password (optional)</label><input id="${id + '-password'}" name="password" type="password" minlength="8"
	autocomplete="new-password" aria-describedby="${id + '-password-hint'}"><span class="muted" id="${id + '-password-hint'}">Leave it empty to invite them: they get a link to choose their own.</span></div>`}
<div class="field"><label for="${id + '-role'}">Role</label><select id="${id + '-role'}" name="role">
	${ROLES.map((r) => html`<option value="${r[0]}" selected="${!!u && u.role === r[0]}">${r[1]}</option>`)}</select></div>
<fieldset class="field s-places"><legend>Sub-accounts (for sub-account roles)</legend>
	${(places.data || []).map((l) => html`<label class="s-check"><input type="checkbox" name="location_ids" value="${l.id}"
		checked="${!!u && (u.location_ids || []).includes(l.id)}"><span>${l.name}</span></label>`)}</fieldset>
<label class="s-check"><input type="checkbox" name="assigned_only" checked="${!!u && u.assigned_only}"><span>Sees only what is assigned to them</span></label>`;
	const named = (u) => html`<span class="visually-hidden">${' ' + u.name}</span>`;
	const actions = (u) => html`<button type="button" class="btn btn-small" data-edit="${u.id}">Edit${named(u)}</button>
	${u.invited ? html`<button type="button" class="btn btn-small" data-link="invitation" data-id="${u.id}">Resend invite${named(u)}</button>
		${u.disabled_at ? '' : html`<button type="button" class="btn btn-small" data-revoke-invitation="${u.id}">Revoke invite${named(u)}</button>`}`
		: html`<button type="button" class="btn btn-small" data-link="reset-link" data-id="${u.id}">Reset password${named(u)}</button>
	<button type="button" class="btn btn-small" data-user="${u.id}"
	data-disable="${u.disabled_at ? '' : '1'}">${u.disabled_at ? 'Enable' : 'Disable'}${named(u)}</button>`}`;
	const chosen = (form) => Array.from(form.querySelectorAll('[name="location_ids"]:checked'), (c) => Number(c.value));
	part.append(html`<h2 tabindex="-1">People</h2>
<form class="card s-form s-person" novalidate aria-label="Add a person">
${fields('s-p')}
<button type="submit" class="btn btn-primary">Add person</button>
</form>
<table class="table s-table"><thead><tr><th scope="col">Name</th><th scope="col">E-mail</th><th scope="col">Role</th>
<th scope="col">Sub-accounts</th><th scope="col">State</th><th scope="col"><span class="visually-hidden">Change</span></th></tr></thead>
<tbody>${(users.data || []).map((u) => html`<tr data-row="${u.id}"><td>${u.name}</td><td>${u.email}</td><td>${roleName(u.role)}${u.assigned_only ? ', assigned only' : ''}</td>
<td>${/^agency/.test(u.role) ? 'All' : (u.location_ids || []).map((id) => placeName.get(id) || '#' + id).join(', ')}</td>
<td class="s-person-state">${state(u)}</td>
<td class="s-row-actions">${u.id === ctx.user.id ? '' : actions(u)}</td></tr>`)}</tbody></table>`);
	const form = part.querySelector('form');
	form.addEventListener('submit', async (e) => {
		e.preventDefault();
		ui.clearErrors(form);
		const f = form.elements;
		const person = {
			name: f.name.value.trim(), email: f.email.value.trim(), role: f.role.value,
			assigned_only: f.assigned_only.checked, location_ids: chosen(form),
		};
		if (f.password.value)
			person.password = f.password.value;
		let made;
		try {
			made = await api.post('/api/admin/users', person);
		} catch (err) {
			return ctx.signal.aborted ? null : ui.formErrors(form, err);
		}
		await s.open('people', !made.invitation);
		if (made.invitation)
			showLink(ctx, s.body.querySelector('h2'), person.name + ' is invited.', made.invitation, made.id);
		else
			ui.toast(person.name + ' can now sign in as ' + person.email + '.', { kind: 'success' });
	});

	/* A new invitation or reset link for a person, shown to hand over. */
	async function link(b) {
		const u = (users.data || []).find((x) => String(x.id) === b.dataset.id);
		let made;
		try {
			made = await api.post('/api/admin/users/' + u.id + '/' + b.dataset.link, {});
		} catch (err) {
			return ctx.signal.aborted ? null : ui.toast(err.message, { kind: 'error' });
		}
		await s.open('people');
		showLink(ctx, s.body.querySelector('h2'), b.dataset.link === 'invitation'
			? 'A new invitation for ' + u.name + ': the earlier link no longer works.'
			: 'A password reset link for ' + u.name + ': their password stays until it is used.', made, u.id);
	}

	/* A person changed in a form in place of their row. */
	function edit(u) {
		const row = part.querySelector('tr[data-row="' + u.id + '"]');
		const slot = html`<tr class="s-editing"><td colspan="6"><form class="s-form s-person" novalidate
			aria-label="${'Change ' + u.name}">${fields('s-e' + u.id, u)}
			<div class="s-form-actions"><button type="submit" class="btn btn-primary">Save changes</button>
			<button type="button" class="btn" data-cancel>Cancel</button></div></form></td></tr>`.firstElementChild;
		row.hidden = true;
		row.after(slot);
		const change = slot.querySelector('form');
		const close = () => {
			slot.remove();
			row.hidden = false;
			row.querySelector('[data-edit]').focus();
		};
		change.querySelector('[data-cancel]').addEventListener('click', close);
		change.addEventListener('submit', async (e) => {
			e.preventDefault();
			e.stopPropagation();
			ui.clearErrors(change);
			const f = change.elements;
			try {
				await api.patch('/api/admin/users/' + u.id, { name: f.name.value.trim(), role: f.role.value,
					assigned_only: f.assigned_only.checked, location_ids: chosen(change) });
			} catch (err) {
				return ctx.signal.aborted ? null : ui.formErrors(change, err);
			}
			await s.open('people');
			const again = view.querySelector('[data-edit="' + u.id + '"]');
			if (again)
				again.focus();
			ui.toast('Saved: ' + f.name.value.trim() + ' has the new role and sub-accounts from the next request.',
				{ kind: 'success' });
		});
		change.elements.name.focus();
	}

	part.addEventListener('click', async (e) => {
		const editing = e.target.closest('[data-edit]');
		if (editing)
			return edit((users.data || []).find((u) => String(u.id) === editing.dataset.edit));
		const linking = e.target.closest('[data-link]');
		if (linking)
			return link(linking);
		const revoking = e.target.closest('[data-revoke-invitation]');
		if (revoking) {
			try {
				await api.del('/api/admin/users/' + revoking.dataset.revokeInvitation + '/invitation');
			} catch (err) {
				return ctx.signal.aborted ? null : ui.toast(err.message, { kind: 'error' });
			}
			await s.open('people');
			return ui.toast('Invitation revoked: its link no longer works.', { kind: 'success' });
		}
		const b = e.target.closest('[data-user]');
		if (!b)
			return;
		const disable = b.dataset.disable === '1';
		try {
			await api.patch('/api/admin/users/' + b.dataset.user, { disabled: disable });
		} catch (err) {
			return ctx.signal.aborted ? null : ui.toast(err.message, { kind: 'error' });
		}
		await s.open('people');
		ui.toast(disable ? 'Disabled: signed out everywhere.' : 'Enabled again.', { kind: 'success' });
	});
}

async function locations(s, part) {
	const { ctx } = s;
	const { html, api, ui } = ctx;
	const [list, agency] = await Promise.all([api.get('/api/admin/locations'), api.get('/api/admin/agency')]);
	part.append(html`<h2 tabindex="-1">Sub-accounts</h2>
${placeLists()}
<form class="card s-form" novalidate aria-label="Add a sub-account">
<div class="field"><label for="s-l-name">Name</label><input id="s-l-name" name="name" maxlength="100" required autocomplete="off"></div>
${placeFields('s-l', agency, true)}
<button type="submit" class="btn btn-primary">Add sub-account</button>
</form>
<ul class="s-places-list">${(list.data || []).map((l) => html`<li class="card">
<form class="s-place" data-id="${l.id}" novalidate aria-label="${'Sub-account ' + l.name}">
	<div class="field"><label for="${'s-ln-' + l.id}">Name</label><input id="${'s-ln-' + l.id}" name="name" value="${l.name}" maxlength="100"></div>
	${placeFields('s-l' + l.id, l, false)}
	<button type="submit" class="btn">Save<span class="visually-hidden">${' ' + l.name}</span></button>
	${l.disabled_at ? html`<span class="muted">Disabled</span>` : ''}
</form></li>`)}</ul>`);
	part.addEventListener('submit', async (e) => {
		e.preventDefault();
		const form = e.target;
		ui.clearErrors(form);
		const place = Object.assign({ name: form.elements.name.value.trim() }, placeOf(form));
		if (!place.name)
			return ui.formErrors(form, { fields: { name: 'a sub-account needs a name' } });
		try {
			if (form.dataset.id)
				await api.patch('/api/admin/locations/' + form.dataset.id, place);
			else
				await api.post('/api/admin/locations', place);
		} catch (err) {
			return ctx.signal.aborted ? null : ui.formErrors(form, err);
		}
		await s.open('locations');
		ui.toast(form.dataset.id ? 'Saved.' : 'Sub-account “' + place.name + '” added. It shows in the switcher after a reload.',
			{ kind: 'success' });
	});
}

async function modules(s, part) {
	const { ctx } = s;
	const { html, api } = ctx;
	const list = (await api.get('/api/admin/modules')).data || [];
	const states = { loaded: 'On', disabled: 'Turned off', refused: 'Refused', found: 'Not loaded' };
	part.append(html`<h2 tabindex="-1">Modules</h2>
<p class="muted s-note">Each feature is a module. An operator turns one on or off in the server's
plugins.d folder; the server reads it when it starts.</p>
<table class="table s-table s-modules"><thead><tr><th scope="col">Module</th><th scope="col">Version</th>
<th scope="col">State</th><th scope="col">What it does</th><th scope="col">Needs</th></tr></thead>
<tbody>${list.map((m) => html`<tr><th scope="row">${m.name}</th><td>${m.version || '—'}</td>
<td><span class="${'s-state s-state-' + m.state}">${states[m.state] || m.state}</span></td>
<td>${m.reason || m.summary || ''}</td><td>${(m.requires || []).join(', ') || '—'}</td></tr>`)}</tbody></table>`);
}

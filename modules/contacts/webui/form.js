// SPDX-License-Identifier: MIT
/*
 * form.js: the contact form, for a new contact (/app/contacts/new) and for
 * editing one on its page (record.js). It holds the contact's own fields
 * and the sub-account's custom fields, each input named as the API names
 * the member ("email", "custom_fields.budget"), so the server's 422 shows
 * next to the field it names (ctx.ui.formErrors). The browser's own checks
 * are off (novalidate): the server's rules are the ones that count, and
 * say what is wrong in words.
 *
 * Loaded by contacts.js when first needed; gets its helpers as `lib`.
 */

const OWN = [
	['first_name', 'First name', 'text', 'given-name'],
	['last_name', 'Last name', 'text', 'family-name'],
	['email', 'E-mail', 'email', 'email'],
	['phone', 'Phone', 'tel', 'tel'],
	['company_name', 'Company', 'text', 'organization'],
	['source', 'Source', 'text', 'off'],
];

function customInput(html, f, value) {
	const id = 'cf-' + f.key;
	const name = 'custom_fields.' + f.key;
	if (f.type === 'checkbox') {
		return html`<div class="field field-check"><label for="${id}"><input id="${id}" name="${name}"
			type="checkbox" checked="${value === true}">${f.name}</label></div>`;
	}
	if (f.type === 'select' || f.type === 'option') {
		const options = Array.isArray(f.options) ? f.options.slice() : [];
		if (value != null && value !== '' && options.indexOf(value) < 0)
			options.push(value);
		return html`<div class="field"><label for="${id}">${f.name}</label>
			<select id="${id}" name="${name}"><option value="">None</option>${options.map((o) =>
		html`<option value="${o}" selected="${o === value}">${o}</option>`)}</select></div>`;
	}
	const type = f.type === 'date' ? 'date' : 'text';
	return html`<div class="field"><label for="${id}">${f.name}</label>
		<input id="${id}" name="${name}" type="${type}" inputmode="${f.type === 'number' ? 'decimal' : null}"
			autocomplete="off" value="${value == null ? '' : String(value)}"></div>`;
}

/* A <form> for `contact` (null: a new one) with the custom `fields`. */
/* Field `key` of contact `c` as the form shows it: a phone as it was
 * typed ("(512) 555-0199"), not as it is kept (+15125550199). */
function shown(c, key) {
	const v = key === 'phone' ? c.phone_typed || c.phone : c[key];
	return v == null ? '' : String(v);
}

export function contactForm(ctx, contact, fields, submitLabel) {
	const { html } = ctx;
	const c = contact || {};
	const custom = c.custom_fields || {};
	const form = html`<form class="c-form" novalidate>
		<div class="c-form-grid">${OWN.map((f) => html`<div class="field">
			<label for="${'f-' + f[0]}">${f[1]}</label>
			<input id="${'f-' + f[0]}" name="${f[0]}" type="${f[2]}" autocomplete="${f[3]}"
				maxlength="500" value="${shown(c, f[0])}"></div>`)}</div>
		${fields.length ? html`<fieldset class="c-custom"><legend>Custom fields</legend>
			<div class="c-form-grid">${fields.map((f) => customInput(html, f, custom[f.key]))}</div></fieldset>` : null}
		<div class="c-form-actions">
			<button type="submit" class="btn btn-primary">${submitLabel}</button>
			<button type="button" class="btn" data-cancel>Cancel</button>
		</div>
	</form>`.firstElementChild;
	return form;
}

function customValue(f, input) {
	if (f.type === 'checkbox')
		return input.checked;
	const v = input.value.trim();
	if (!v)
		return null;
	if (f.type === 'number' && /^-?\d+(\.\d+)?$/.test(v))
		return Number(v);
	return v;
}

/* What the form says, as an API body: for a new contact (`contact`
 * null) what was filled in; for one that exists, only what changed
 * (an emptied field as null, which clears it). */
export function formBody(form, contact, fields) {
	const body = {};
	const before = contact || {};
	for (const f of OWN) {
		const v = form.elements.namedItem(f[0]).value.trim();
		const was = shown(before, f[0]);
		if (contact ? v !== was : v)
			body[f[0]] = v || null;
	}
	const custom = {};
	const had = before.custom_fields || {};
	for (const f of fields) {
		const input = form.elements.namedItem('custom_fields.' + f.key);
		if (!input)
			continue;
		const v = customValue(f, input);
		const was = had[f.key] === undefined ? (f.type === 'checkbox' ? false : null) : had[f.key];
		if (contact ? String(v) !== String(was) : (v !== null && v !== false))
			custom[f.key] = v;
	}
	if (Object.keys(custom).length)
		body.custom_fields = custom;
	return body;
}

/* Sends the form with `send(body)`; shows the server's errors by the
 * fields (a duplicate's with a link to the contact that has the e-mail
 * or phone). Resolves to the answer, or null when it was refused. */
export async function submit(ctx, form, send, body) {
	const buttons = Array.from(form.querySelectorAll('button'));
	ctx.ui.clearErrors(form);
	buttons.forEach((b) => { b.disabled = true; });
	form.setAttribute('aria-busy', 'true');
	try {
		return await send(body);
	} catch (e) {
		if (e.status === 401)
			return null;
		ctx.ui.formErrors(form, e);
		if (e.status === 409 && e.code === 'duplicate')
			await linkTwin(ctx, form, Object.keys(e.fields)[0]);
		return null;
	} finally {
		form.removeAttribute('aria-busy');
		buttons.forEach((b) => { b.disabled = false; });
	}
}

/* After a 409 naming `field` (email or phone): the contact the list
 * finds by what was typed there, linked beside the field's message. Only
 * a contact the caller may open is found; none found, the message says
 * enough. */
async function linkTwin(ctx, form, field) {
	const input = field && form.elements.namedItem(field);
	const note = input && input.closest('.field') && input.closest('.field').querySelector('.field-error');
	const typed = input && input.value.trim();
	if (!note || !typed)
		return;
	let rows;
	try {
		rows = (await ctx.api.get('/api/contacts', { q: typed, limit: 5 })).data || [];
	} catch (e) {
		return;
	}
	const twin = field === 'email' ? rows.find((c) => String(c.email || '').toLowerCase() === typed.toLowerCase())
		: rows[0];
	if (!twin || !note.isConnected)
		return;
	const name = [twin.first_name, twin.last_name].filter(Boolean).join(' ') || twin.email || twin.phone;
	note.append('. ', ctx.html`<a href="${ctx.href('/contacts/' + twin.id)}">Open ${name}</a>`);
}

/* /app/contacts/new */
export async function newContact(view, ctx, lib) {
	const { html, api } = ctx;
	const answer = await api.get('/api/custom-fields', { limit: 1000 }).catch(() => null);
	const fields = (answer && answer.data) || [];
	ctx.title('New contact');
	view.classList.add('contacts');
	view.append(html`<nav class="crumbs" aria-label="Breadcrumb"><a href="${ctx.href('/contacts')}">Contacts</a></nav>
		<div class="page-head"><h1>New contact</h1></div>
		<section class="card c-new" aria-label="Contact"></section>`);
	const form = contactForm(ctx, null, fields, 'Create contact');
	view.querySelector('.c-new').append(form);
	form.querySelector('[data-cancel]').addEventListener('click', () => ctx.navigate(ctx.href('/contacts')));
	form.addEventListener('submit', async (e) => {
		e.preventDefault();
		const created = await submit(ctx, form, (body) => api.post('/api/contacts', body),
			formBody(form, null, fields));
		if (!created || ctx.signal.aborted)
			return;
		ctx.ui.toast(lib.fullName(created) + ' was added.', { kind: 'success' });
		ctx.navigate(ctx.href('/contacts/' + created.id), { replace: true });
	});
}

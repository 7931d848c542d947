// SPDX-License-Identifier: MIT
/*
 * settings-agency.js: Settings' "Agency" section (settings.js), for agency
 * admins: the agency's name, shown at the top of every page; the time
 * zone, currency and country a new sub-account starts with (each
 * sub-account keeps its own, in Sub-accounts); the business details and
 * logo its invoices print (a sub-account may print its own, in its
 * invoice settings). Given the page's state `s` and the section's element.
 */
import { placeFields, placeLists, placeOf } from './settings-places.js';

export async function agency(s, part) {
	const { ctx } = s;
	const { html, api, ui } = ctx;
	const a = await api.get('/api/admin/agency');
	part.append(html`<h2 tabindex="-1">Agency</h2>
<p class="muted">Your agency's name is at the top of every page. A new sub-account starts with this time zone,
	currency and country; each keeps its own after, in Sub-accounts. The name, address, e-mail, phone, tax ID and
	logo are printed on invoices, unless a sub-account gives its own in Invoices, Invoice settings.</p>
${placeLists()}
<form class="card s-form" novalidate aria-label="The agency">
<div class="field"><label for="s-a-name">Name</label><input id="s-a-name" name="name" maxlength="200" required
	autocomplete="organization" value="${a.name}"></div>
${placeFields('s-a', a, true)}
<div class="field s-wide"><label for="s-a-address">Address</label><textarea id="s-a-address" name="address" rows="3"
	maxlength="500" autocomplete="street-address"></textarea></div>
<div class="field"><label for="s-a-email">Billing e-mail</label><input id="s-a-email" name="email" type="email"
	maxlength="200" autocomplete="email" value="${a.email}"></div>
<div class="field"><label for="s-a-phone">Phone</label><input id="s-a-phone" name="phone" type="tel" maxlength="50"
	autocomplete="tel" value="${a.phone}"></div>
<div class="field"><label for="s-a-tax">Tax ID</label><input id="s-a-tax" name="tax_id" maxlength="50"
	autocomplete="off" value="${a.tax_id}"></div>
<button type="submit" class="btn btn-primary">Save</button>
</form>
<form class="card s-form s-logo" novalidate aria-label="The agency's logo">
<h3 class="s-wide">Logo</h3>
<p class="muted s-wide" id="s-a-logo-hint">On every invoice. A PNG, JPEG or WebP image of at most 512 KB.</p>
<img class="s-logo-img" alt="The agency's logo" hidden>
<div class="field"><label for="s-a-logo">Image</label><input id="s-a-logo" name="logo" type="file"
	accept="image/png,image/jpeg,image/webp" aria-describedby="s-a-logo-hint"></div>
<button type="button" class="btn" data-remove-logo hidden>Remove logo</button>
</form>`);
	part.querySelector('[name="address"]').value = a.address; /* html.js puts no value in a textarea */
	s.ctx.ui.logoField(part.querySelector('.s-logo'), s.ctx.api, '/api/admin/agency/logo', a.logo_url, s.ctx.signal);
	const form = part.querySelector('form');
	form.addEventListener('submit', async (e) => {
		e.preventDefault();
		ui.clearErrors(form);
		const body = Object.assign({ name: form.elements.name.value.trim() }, placeOf(form));
		for (const k of ['address', 'email', 'phone', 'tax_id'])
			body[k] = form.elements[k].value.trim();
		if (!body.name)
			return ui.formErrors(form, { fields: { name: 'the agency needs a name' } });
		let saved;
		try {
			saved = await api.patch('/api/admin/agency', body);
		} catch (err) {
			return ctx.signal.aborted ? null : ui.formErrors(form, err);
		}
		if (ctx.signal.aborted)
			return null;
		for (const k of ['name', 'timezone', 'currency', 'country']) /* as kept: "eur" is EUR */
			form.elements[k].value = saved[k];
		ctx.accountChanged();
		ui.toast('Saved.', { kind: 'success' });
		return null;
	});
}

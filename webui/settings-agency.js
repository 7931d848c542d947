// SPDX-License-Identifier: MIT
/*
 * settings-agency.js: Settings' "Agency" section (settings.js), for agency
 * admins: the agency's name, shown at the top of every page, and the time
 * zone, currency and country a new sub-account starts with (each
 * sub-account keeps its own, in Sub-accounts). Given the page's state `s`
 * and the section's element.
 */
import { placeFields, placeLists, placeOf } from './settings-places.js';

export async function agency(s, part) {
	const { ctx } = s;
	const { html, api, ui } = ctx;
	const a = await api.get('/api/admin/agency');
	part.append(html`<h2 tabindex="-1">Agency</h2>
<p class="muted">Your agency's name is at the top of every page. A new sub-account starts with this time zone,
	currency and country; each keeps its own after, in Sub-accounts.</p>
${placeLists()}
<form class="card s-form" novalidate aria-label="The agency">
<div class="field"><label for="s-a-name">Name</label><input id="s-a-name" name="name" maxlength="200" required
	autocomplete="organization" value="${a.name}"></div>
${placeFields('s-a', a, true)}
<button type="submit" class="btn btn-primary">Save</button>
</form>`);
	const form = part.querySelector('form');
	form.addEventListener('submit', async (e) => {
		e.preventDefault();
		ui.clearErrors(form);
		const body = Object.assign({ name: form.elements.name.value.trim() }, placeOf(form));
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

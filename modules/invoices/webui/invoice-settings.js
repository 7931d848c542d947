// SPDX-License-Identifier: MIT
/*
 * invoice-settings.js: a sub-account's invoice settings
 * (/app/invoices/settings, for its admins), opened by invoices.js. The
 * business its invoices come from when it is not the agency (a business
 * name given: its details are printed instead of the agency's, which the
 * page shows as they are set in Settings → Agency) and its logo (the
 * core keeps it: PUT /api/location/logo, uploaded as soon as it is
 * chosen), and the notes and terms a new invoice starts with.
 */

const DETAILS = [['business_name', 'Business name', 200, 'organization'], ['email', 'E-mail', 200, 'email'],
	['phone', 'Phone', 50, 'tel'], ['tax_id', 'Tax ID', 50, 'off']];
const TEXTS = [['address', 'Address', 500], ['notes', 'Notes on new invoices', 2000],
	['terms', 'Terms on new invoices', 2000]];

export default async function invoiceSettings(view, ctx) {
	const { html, api, ui } = ctx;
	const now = await api.get('/api/invoice-settings');
	const a = now.agency || {};
	ctx.title('Invoice settings');
	view.classList.add('invoice-page');
	view.append(html`
<p class="crumbs"><a href="${ctx.href('/invoices')}">Invoices</a></p>
<div class="page-head"><h1 tabindex="-1">Invoice settings</h1></div>
<form class="card v-form" novalidate aria-label="Invoice settings">
	<h2 class="v-sub">The business on this sub-account's invoices</h2>
	<p class="muted">${'Left empty, invoices show the agency\'s: ' + [a.name, a.email, a.phone].filter(Boolean).join(', ')
		+ (a.logo_url ? ', with its logo' : '') + '.'}</p>
	<div class="v-form-grid v-settings-grid">
		${DETAILS.map(([k, label, max, auto]) => html`<div class="field"><label for="${'v-s-' + k}">${label}</label>
			<input id="${'v-s-' + k}" name="${k}" maxlength="${String(max)}" autocomplete="${auto}"
				type="${k === 'email' ? 'email' : 'text'}" value="${now[k] || ''}"></div>`)}
	</div>
	${TEXTS.map(([k, label, max]) => html`<div class="field"><label for="${'v-s-' + k}">${label}</label>
		<textarea id="${'v-s-' + k}" name="${k}" rows="3" maxlength="${String(max)}"></textarea></div>`)}
	<div class="v-actions"><button type="submit" class="btn btn-primary">Save</button></div>
</form>
<form class="card v-form v-logo-form" novalidate aria-label="The sub-account's logo">
	<h2 class="v-sub">Logo</h2>
	<p class="muted" id="v-s-logo-hint">Printed with this sub-account's business name. A PNG, JPEG or WebP image of at
		most 512 KB.</p>
	<img class="v-logo" alt="The sub-account's logo" hidden>
	<div class="field"><label for="v-s-logo">Image</label><input id="v-s-logo" name="logo" type="file"
		accept="image/png,image/jpeg,image/webp" aria-describedby="v-s-logo-hint"></div>
	<button type="button" class="btn" data-remove-logo hidden>Remove logo</button>
</form>`);
	ctx.ui.logoField(view.querySelector('.v-logo-form'), ctx.api, '/api/location/logo', now.logo_url, ctx.signal);
	const form = view.querySelector('form');
	for (const [k] of TEXTS) /* html.js puts no value in a textarea */
		form.elements[k].value = now[k] || '';
	form.addEventListener('submit', async (e) => {
		e.preventDefault();
		ui.clearErrors(form);
		const body = {};
		for (const [k] of DETAILS.concat(TEXTS))
			body[k] = form.elements[k].value.trim();
		try {
			await api.put('/api/invoice-settings', body);
		} catch (err) {
			if (!ctx.signal.aborted)
				ui.formErrors(form, err);
			return;
		}
		ui.toast('Saved.', { kind: 'success' });
	});
}

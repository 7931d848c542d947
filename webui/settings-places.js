// SPDX-License-Identifier: MIT
/*
 * settings-places.js: where a sub-account or the agency is, as Settings
 * asks it (settings.js's Sub-accounts, settings-agency.js): the time zone
 * (its days and hours), the currency (its amounts) and the country (phone
 * numbers typed without +), each a field offering what the browser knows,
 * read back as the API takes them.
 */
import { html } from './html.js';

/* The regions the browser can name, as [code, name]: the server says
 * which of them phone numbers can be read in. */
function countries() {
	if (typeof Intl.DisplayNames !== 'function')
		return [];
	const names = new Intl.DisplayNames(undefined, { type: 'region' });
	const list = [];
	for (let a = 65; a <= 90; a++)
		for (let b = 65; b <= 90; b++) {
			const code = String.fromCharCode(a, b);
			const name = names.of(code);
			if (name && name !== code && !/\d|Unknown|Outlying|Union|Nations|Pseudo/.test(name))
				list.push([code, name]);
		}
	return list.sort((x, y) => x[1].localeCompare(y[1]));
}

/* The lists the fields offer, once per section. */
export function placeLists() {
	const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
	return html`<datalist id="s-zones">${zones.map((z) => html`<option value="${z}"></option>`)}</datalist>
<datalist id="s-countries">${countries().map(([code, name]) => html`<option value="${code}" label="${name}"></option>`)}</datalist>`;
}

/* The three fields of `place` ({timezone, currency, country}), their ids
 * made from `id`; the country's note said when `note`. */
export function placeFields(id, place, note) {
	return html`<div class="field"><label for="${id + '-zone'}">Time zone</label><input id="${id + '-zone'}" name="timezone"
	list="s-zones" maxlength="64" autocomplete="off" value="${place.timezone || 'UTC'}"></div>
<div class="field"><label for="${id + '-cur'}">Currency</label><input id="${id + '-cur'}" name="currency" maxlength="3" size="4"
	autocomplete="off" spellcheck="false" value="${place.currency || 'USD'}"></div>
<div class="field"><label for="${id + '-country'}">Country</label><input id="${id + '-country'}" name="country" list="s-countries"
	maxlength="2" size="4" autocomplete="off" spellcheck="false" value="${place.country || 'US'}"
	aria-describedby="${note ? id + '-country-note' : null}">${note ? html`<small id="${id + '-country-note'}"
	class="muted">for phone numbers typed without +</small>` : null}</div>`;
}

/* The place a form's fields say, as the API takes it. */
export function placeOf(form) {
	const f = form.elements;
	return { timezone: f.timezone.value.trim(), currency: f.currency.value.trim().toUpperCase(),
		country: f.country.value.trim().toUpperCase() };
}

// SPDX-License-Identifier: MIT
/*
 * settings-audit.js: the Settings page's Audit log section (agency
 * admins). It shows who did what to which record, a sentence a row:
 * "When · Who · Sub-account · What", the What as the server reads it
 * ("changed invoice INV-00001"; an older entry without a name says
 * "#id"). Its filters are select lists of what the server offers
 * (/api/admin/audit/choices), kept in the URL (in, user, action, kind).
 * On a phone each entry is a card.
 */

const FILTERS = [['in', 'location'], ['user', 'user'], ['action', 'action'], ['kind', 'entity']];

/* What was done, as a person reads it: "changed invoice INV-00001". */
export function what(a) {
	const name = a.label || (a.kind && a.entity_id != null ? '#' + a.entity_id : '');
	return [a.did, a.kind, name].filter((x) => x).join(' ');
}

function filterForm(html, choices, chosen) {
	const select = (id, name, label, any, options) => html`<div><label for="${id}">${label}</label>
<select id="${id}" name="${name}"><option value="">${any}</option>
	${options.map(([value, text]) => html`<option value="${value}" selected="${String(value) === chosen[name]}">${text}</option>`)}</select></div>`;
	const names = (list) => (list || []).map((c) => [c.name, c.name]);
	const byId = (list) => (list || []).map((c) => [c.id, c.name]);
	return html`<form class="s-audit-filters" role="search" aria-label="Filter the audit log">
${select('s-a-in', 'in', 'Sub-account', 'All', byId(choices.locations))}
${select('s-a-user', 'user', 'Who', 'Anyone', byId(choices.people))}
${select('s-a-action', 'action', 'Action', 'Any action', names(choices.actions))}
${select('s-a-kind', 'kind', 'Kind of record', 'Any kind', names(choices.kinds))}
<button type="submit" class="btn">Filter</button>
</form>`;
}

function entryRow(ctx, a) {
	const { html } = ctx;
	return html`<tr><td data-label="When">${ctx.format.moment(a.at)}${a.client
		? html`<span class="s-audit-from muted">${'from ' + a.client}</span>` : ''}</td>
<td data-label="Who">${a.who || (a.user_id ? 'Person ' + a.user_id : 'Someone')}</td>
<td data-label="Sub-account">${a.location || (a.location_id ? 'Sub-account ' + a.location_id : 'The agency')}</td>
<td data-label="What">${what(a)}</td></tr>`;
}

export async function audit(s, part) {
	const { ctx } = s;
	const { html, api, ui } = ctx;
	const chosen = Object.fromEntries(FILTERS.map(([q]) => [q, ctx.query.get(q) || '']));
	const filters = Object.fromEntries(FILTERS.filter(([q]) => chosen[q]).map(([q, p]) => [p, chosen[q]]));
	const [log, choices] = await Promise.all([api.get('/api/admin/audit', filters),
		api.get('/api/admin/audit/choices')]);
	part.append(html`<h2 tabindex="-1">Audit log</h2>
${filterForm(html, choices, chosen)}
<table class="table s-table s-audit"><thead><tr><th scope="col">When</th><th scope="col">Who</th>
<th scope="col">Sub-account</th><th scope="col">What</th></tr></thead><tbody></tbody></table>
<p class="muted" data-empty hidden>Nothing was done that these filters show.</p>
<p><button type="button" class="btn" data-more hidden>Older entries</button></p>`);
	const rows = part.querySelector('tbody');
	part.querySelector('[data-empty]').hidden = (log.data || []).length > 0;
	const pages = ui.paged({
		more: part.querySelector('[data-more]'), what: 'The audit log', signal: ctx.signal, scroll: false,
		open: () => api.list('/api/admin/audit', filters),
		draw: (entries) => rows.append(html`${entries.map((a) => entryRow(ctx, a))}`),
	});
	pages.begin(api.list('/api/admin/audit', filters, log), log.data || []);
	part.querySelector('form').addEventListener('submit', (e) => {
		e.preventDefault();
		const f = e.target.elements;
		s.open('audit', false, Object.fromEntries(FILTERS.map(([q]) => [q, f[q].value])))
			.catch((err) => ui.toast(err.message, { kind: 'error' }));
	});
}

// SPDX-License-Identifier: MIT
/*
 * views.js: the agency page's views of every sub-account at once, each
 * drawn into the page's body by agency.js (which passes the helpers they
 * share as `lib`):
 *
 *   contacts  every contact, newest first, searched as you type; a name
 *             opens the contact in its own sub-account
 *   deals     the deals of one status (open, won, lost, abandoned) by
 *             sub-account and stage, with the agency's totals
 *   tasks     the open tasks by assignee (open and overdue counted), and
 *             the tasks themselves by due date, overdue only on request
 *
 * Filters are kept in the URL; lists come in pages ("Load more", the
 * page's lib.paged). Each view resolves to the function the shell calls
 * when the page is left.
 */

const PAGE_ROWS = 50;

/* ---- contacts --------------------------------------------------------------- */

export async function contacts(body, ctx, lib) {
	const { html } = ctx;
	let q = ctx.query.get('q') || '';
	body.append(html`
<form class="ag-search" role="search" aria-label="Find a contact">
	<label for="ag-cq">Search contacts</label>
	<input id="ag-cq" type="search" autocomplete="off" spellcheck="false" placeholder="Name, e-mail, phone or company" value="${q}">
	<p class="ag-count muted" role="status"></p>
</form>
<div class="ag-table-wrap">
	<table class="table ag-table" aria-label="Contacts of every sub-account">
		<thead><tr><th scope="col">Name</th><th scope="col">Sub-account</th><th scope="col" class="ag-wide">E-mail</th>
			<th scope="col" class="ag-wide">Phone</th><th scope="col" class="ag-wide">Company</th><th scope="col">Created</th></tr></thead>
		<tbody></tbody>
	</table>
</div>`);
	const input = body.querySelector('#ag-cq');
	const status = body.querySelector('.ag-count');
	const rows = body.querySelector('.ag-table tbody');

	function row(c) {
		const name = [c.first_name, c.last_name].filter(Boolean).join(' ') || c.email || c.phone || 'Contact ' + c.id;
		return html`<tr><th scope="row"><a href="${ctx.href('/contacts/' + c.id, c.location_id)}">${name}</a></th>
			<td><a href="${ctx.href('/', c.location_id)}">${c.location_name}</a></td>
			<td class="ag-wide">${c.email}</td><td class="ag-wide">${c.phone}</td><td class="ag-wide">${c.company_name}</td>
			<td class="ag-nowrap">${ctx.format.day(c.created_at) || '–'}</td></tr>`;
	}

	const list = lib.paged(ctx, body, 'The contacts', '/api/agency/contacts',
		() => ({ q: q.trim(), limit: PAGE_ROWS }),
		(answer) => {
			rows.append(html`${(answer.data || []).map(row)}`);
			const shown = rows.childElementCount;
			status.textContent = !shown ? (q.trim() ? 'No contact matches “' + q.trim() + '”.' : 'No contacts yet.')
				: ctx.format.plural(shown, 'contact', 'contacts') + ' shown' + (answer.next_cursor ? '; there are more' : '');
		});

	function reload() {
		ctx.setQuery({ q: q.trim() });
		rows.textContent = '';
		return list.restart();
	}

	input.addEventListener('input', lib.debounce(() => {
		q = input.value;
		reload();
	}));
	body.querySelector('form').addEventListener('submit', (e) => e.preventDefault());
	await reload();
	return list.stop;
}

/* ---- deals by sub-account and stage ------------------------------------------- */

const STATUSES = [['open', 'Open'], ['won', 'Won'], ['lost', 'Lost'], ['abandoned', 'Abandoned']];

export async function deals(body, ctx, lib) {
	const { html } = ctx;
	const given = ctx.query.get('status');
	let status = STATUSES.some((s) => s[0] === given) ? given : 'open';
	body.append(html`
<fieldset class="segmented ag-status">
	<legend>Deals</legend>
	${STATUSES.map((s) => html`<label><input type="radio" name="status" value="${s[0]}"
		checked="${s[0] === status}"><span>${s[1]}</span></label>`)}
</fieldset>
<h2 class="visually-hidden">Totals by status</h2>
<div class="figures ag-totals"></div>
<h2 class="visually-hidden">By sub-account</h2>
<div class="ag-table-wrap">
	<table class="table ag-table ag-deals">
		<caption class="visually-hidden"></caption>
		<thead><tr><th scope="col">Sub-account</th><th scope="col" class="num">Deals</th>
			<th scope="col" class="num">Value</th><th scope="col">By stage</th></tr></thead>
		<tbody></tbody>
	</table>
</div>`);
	const totals = body.querySelector('.ag-totals');
	const caption = body.querySelector('caption');
	const rows = body.querySelector('.ag-table tbody');

	function stages(list, total, currency) {
		const shown = list.filter((s) => s.count);
		if (!shown.length)
			return html`<span class="muted">None</span>`;
		return html`<div class="ag-bar" aria-hidden="true">${shown.map((s) =>
			html`<span data-share="${total ? s.count / total : 0}"></span>`)}</div>
			<ul class="ag-stages">${shown.map((s) => html`<li><span class="ag-stage">${s.name}</span>
				${lib.count(ctx, s.count)} · ${lib.money(ctx, s.value_cents, currency)}</li>`)}</ul>`;
	}

	function row(p) {
		const tr = html`<tr><th scope="row"><a href="${ctx.href('/opportunities', p.id)}">${p.name}</a></th>
			<td class="num">${lib.count(ctx, p.count)}</td><td class="num">${lib.money(ctx, p.value_cents, p.currency)}</td>
			<td>${stages(p.stages || [], p.count, p.currency)}</td></tr>`;
		/* each stage's share of the bar, set as a style property (the CSP
		 * allows no inline style attribute) */
		for (const span of Array.from(tr.querySelectorAll('[data-share]')))
			span.style.flexGrow = span.dataset.share;
		return tr;
	}

	/* The agency's totals by status; a value is null (not added up) when
	 * the sub-accounts with such deals keep more than one currency, else
	 * in the currency of those shown with deals. */
	function showTotals(t, shown) {
		const some = shown.find((p) => p.count && p.currency);
		const worth = (v) => (v === null ? 'in several currencies' : 'worth ' + lib.money(ctx, v, some && some.currency));
		totals.textContent = '';
		totals.append(...STATUSES.map((s) => ctx.ui.figure(s[1], lib.count(ctx, (t[s[0]] || {}).count),
			worth((t[s[0]] || {}).value_cents))));
	}

	const list = lib.paged(ctx, body, 'The deals', '/api/agency/opportunities',
		() => ({ status: status === 'open' ? null : status, limit: PAGE_ROWS }),
		(answer) => {
			showTotals(answer.totals || {}, answer.sub_accounts || []);
			rows.append(html`${(answer.sub_accounts || []).map(row)}`);
		});

	function reload() {
		ctx.setQuery({ status: status === 'open' ? null : status });
		caption.textContent = STATUSES.find((s) => s[0] === status)[1] + ' deals by sub-account and stage';
		rows.textContent = '';
		return list.restart();
	}

	body.querySelector('.ag-status').addEventListener('change', (e) => {
		status = e.target.value;
		reload();
	});
	await reload();
	return list.stop;
}

/* ---- tasks by assignee ----------------------------------------------------------- */

export async function tasks(body, ctx, lib) {
	const { html } = ctx;
	let overdue = ctx.query.get('status') === 'overdue';
	let assignee = ctx.query.get('assignee') || '';
	let first = true; /* the next answer is a first page: its counts are drawn */
	let names = new Map();
	let refocus = null; /* the person whose button had the focus, drawn again */
	body.append(html`
<div class="ag-split">
	<section class="ag-people" aria-labelledby="ag-people-h">
		<h2 id="ag-people-h">By assignee</h2>
		<div class="ag-table-wrap"><table class="table ag-table">
			<thead><tr><th scope="col">Assignee</th><th scope="col" class="num">Open</th><th scope="col" class="num">Overdue</th></tr></thead>
			<tbody class="ag-assignees"></tbody>
		</table></div>
	</section>
	<section aria-labelledby="ag-tasks-h">
		<h2 id="ag-tasks-h">Open tasks</h2>
		<fieldset class="segmented ag-status">
			<legend>Show</legend>
			<label><input type="radio" name="due" value="" checked="${!overdue}"><span>All open</span></label>
			<label><input type="radio" name="due" value="overdue" checked="${overdue}"><span>Overdue</span></label>
		</fieldset>
		<p class="ag-who"></p>
		<div class="ag-table-wrap"><table class="table ag-table" aria-labelledby="ag-tasks-h">
			<thead><tr><th scope="col">Task</th><th scope="col">Sub-account</th><th scope="col">Due</th><th scope="col">Assignee</th></tr></thead>
			<tbody class="ag-tasks"></tbody>
		</table></div>
	</section>
</div>`);
	const people = body.querySelector('.ag-assignees');
	const rows = body.querySelector('.ag-tasks');
	const who = body.querySelector('.ag-who');
	const now = Date.now();

	function person(a) {
		const name = a.id == null ? 'Unassigned' : a.name;
		const chosen = a.id != null && String(a.id) === assignee;
		return html`<tr class="${chosen ? 'is-chosen' : null}"><th scope="row">${a.id == null ? name
			: html`<button type="button" class="ag-pick" data-id="${a.id}" aria-pressed="${chosen ? 'true' : 'false'}">${name}</button>`}</th>
			<td class="num">${lib.count(ctx, a.open)}</td><td class="${'num' + (a.overdue ? ' is-bad' : '')}">${lib.count(ctx, a.overdue)}</td></tr>`;
	}

	function row(t) {
		const late = t.due_at && new Date(t.due_at).getTime() < now;
		return html`<tr><th scope="row">${t.title}</th>
			<td><a href="${ctx.href('/tasks', t.location_id)}">${t.location_name}</a></td>
			<td class="${'ag-nowrap' + (late ? ' is-bad' : '')}">${t.due_at ? ctx.format.day(t.due_at) : 'No date'}</td>
			<td>${t.assignee_id == null ? 'Unassigned' : names.get(String(t.assignee_id)) || 'User ' + t.assignee_id}</td></tr>`;
	}

	function showPeople(list) {
		names = new Map(list.filter((a) => a.id != null).map((a) => [String(a.id), a.name]));
		people.textContent = '';
		people.append(html`${list.map(person)}`);
		who.textContent = '';
		if (assignee) {
			who.append(html`Assigned to ${names.get(assignee) || 'user ' + assignee}.
				<button type="button" class="ag-pick" data-all>Everyone’s</button>`);
		}
		const again = refocus && people.querySelector('[data-id="' + refocus + '"]');
		if (again)
			again.focus();
		refocus = null;
	}

	const list = lib.paged(ctx, body.querySelector('.ag-split > section:last-child'), 'The tasks', '/api/agency/tasks',
		() => ({ status: overdue ? 'overdue' : null, assignee, limit: PAGE_ROWS }),
		(answer) => {
			if (first)
				showPeople(answer.assignees || []);
			first = false;
			rows.append(html`${(answer.data || []).map(row)}`);
			if (!rows.childElementCount)
				rows.append(html`<tr><td colspan="4" class="muted">No ${overdue ? 'overdue' : 'open'} tasks.</td></tr>`);
		});

	function reload() {
		ctx.setQuery({ status: overdue ? 'overdue' : null, assignee });
		rows.textContent = '';
		first = true;
		return list.restart();
	}

	body.querySelector('.ag-status').addEventListener('change', (e) => {
		overdue = e.target.value === 'overdue';
		reload();
	});
	body.addEventListener('click', (e) => {
		const b = e.target.closest('button[data-id], button[data-all]');
		if (!b)
			return;
		refocus = b.dataset.id || assignee;
		assignee = b.dataset.id && b.dataset.id !== assignee ? b.dataset.id : '';
		reload();
	});
	await reload();
	return list.stop;
}

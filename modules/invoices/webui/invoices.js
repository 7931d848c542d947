// SPDX-License-Identifier: MIT
/*
 * invoices.js: the invoices pages. The shell opens this one module for
 * /app/invoices (the list, here), /app/invoices/new and /app/invoices/:id
 * (an invoice and its payments: invoice.js; a draft's form:
 * invoice-form.js; the sub-account's invoice settings at
 * /app/invoices/settings: invoice-settings.js; each imported when first needed and given the helpers
 * it shares with the list as `lib`).
 *
 * The list: newest first, by status (all, drafts, sent, overdue, part
 * paid, paid, void; kept in the URL), with what the shown ones total and
 * what is still due on them, in the sub-account's currency; pages come as
 * the end of the list comes into view (ctx.ui.paged). Every name and figure is put in as text (ctx.html, textContent).
 */

const STATUSES = [['', 'All'], ['draft', 'Drafts'], ['sent', 'Sent'], ['overdue', 'Overdue'],
	['partially_paid', 'Part paid'], ['paid', 'Paid'], ['void', 'Void']];
const LABELS = { draft: 'Draft', sent: 'Sent', partially_paid: 'Part paid', paid: 'Paid', void: 'Void' };

/* What is owed: only on a sent invoice not paid in full (a draft is not
 * owed yet, a void one never), as the agency's figures count it. */
const DUE = new Set(['sent', 'partially_paid']);

/* An open invoice past its due date is overdue, whatever it was sent as. */
function statusOf(inv) {
	const open = inv.status === 'sent' || inv.status === 'partially_paid';
	return open && inv.due_at && Date.parse(inv.due_at) < Date.now() ? 'overdue' : inv.status;
}

function badge(ctx, inv) {
	const s = statusOf(inv);
	return ctx.html`<span class="${'v-status v-status-' + s}">${s === 'overdue' ? 'Overdue' : LABELS[s] || s}</span>`;
}

function styles(ctx) {
	return ctx.ui.stylesheet(new URL('./invoices.css', import.meta.url));
}

const lib = { badge, statusOf, LABELS };

export default async function page(view, ctx) {
	const id = ctx.params.id;
	if (id === undefined)
		return list(view, ctx);
	if (id === 'settings') {
		const [settings] = await Promise.all([import('./invoice-settings.js'), styles(ctx)]);
		return settings.default(view, ctx);
	}
	if (id !== 'new' && !/^[1-9]\d{0,17}$/.test(id)) {
		const e = new Error('No such invoice');
		e.status = 404;
		throw e;
	}
	if (id === 'new') {
		const [form] = await Promise.all([import('./invoice-form.js'), styles(ctx)]);
		return form.newInvoice(view, ctx);
	}
	const [invoice] = await Promise.all([import('./invoice.js'), styles(ctx)]);
	return invoice.default(view, ctx, lib);
}

async function list(view, ctx) {
	const { api, ui } = ctx;
	const status = STATUSES.some((s) => s[0] === ctx.query.get('status')) ? ctx.query.get('status') : '';
	const query = status ? { status } : {};
	const first = api.list('/api/invoices', query);
	const [rows] = await Promise.all([first.next(), styles(ctx)]);
	const shown = [];
	ctx.title('Invoices');
	view.classList.add('invoices-page');
	view.append(frame(ctx, status));
	const body = view.querySelector('tbody');
	const pages = ui.paged({
		more: view.querySelector('[data-more]'), what: 'The invoices', signal: ctx.signal,
		open: () => api.list('/api/invoices', query),
		draw(page, pager, fresh) {
			if (fresh) {
				body.textContent = '';
				shown.length = 0;
			}
			shown.push(...page);
			body.append(ctx.html`${page.map((inv) => row(ctx, inv))}`);
			view.querySelector('.v-sum').textContent = summary(ctx, shown, pager, status);
		},
	});
	view.querySelector('.v-filters').addEventListener('change', (e) => {
		ctx.setQuery({ status: e.target.value });
		delete query.status;
		if (e.target.value)
			query.status = e.target.value;
		pages.restart();
	});
	/* Changes by others: the list asked again for as many as it shows. */
	ctx.onLive(['invoice.*'], async () => {
		const active = document.activeElement;
		const href = active && body.contains(active) ? active.getAttribute('href') : null;
		await pages.restart(shown.length > 50 ? { limit: Math.min(shown.length, 1000) } : null);
		const again = href && body.querySelector('a[href="' + href + '"]');
		if (again)
			again.focus({ preventScroll: true });
	});
	pages.begin(first, rows);
	return pages.stop;
}

function frame(ctx, status) {
	const { html } = ctx;
	return html`
<div class="page-head">
	<h1>Invoices</h1>
	${/admin$/.test(ctx.user.role) ? html`<a class="btn" href="${ctx.href('/invoices/settings')}">Invoice settings</a>` : null}
	<a class="btn btn-primary" href="${ctx.href('/invoices/new')}">New invoice</a>
</div>
<form class="v-filters" role="search" aria-label="Filter invoices">
	<fieldset class="segmented"><legend>Status</legend>
		${STATUSES.map((s) => html`<label><input type="radio" name="status" value="${s[0]}"
			checked="${s[0] === status}"><span>${s[1]}</span></label>`)}
	</fieldset>
</form>
<p class="v-sum" role="status"></p>
<div class="v-table-wrap">
	<table class="table v-table">
		<thead><tr><th scope="col">Number</th><th scope="col">Contact</th><th scope="col">Status</th>
			<th scope="col" class="v-date">Issued</th><th scope="col" class="v-date">Due</th>
			<th scope="col" class="v-num">Total</th><th scope="col" class="v-num">Balance</th></tr></thead>
		<tbody></tbody>
	</table>
</div>
<div class="v-more"><button type="button" class="btn" data-more hidden>Load more</button></div>`;
}

function row(ctx, inv) {
	const f = ctx.format;
	return ctx.html`<tr>
		<td><a href="${ctx.href('/invoices/' + inv.id)}">${inv.number || 'Draft ' + inv.id}</a></td>
		<td>${inv.contact_name || ''}</td>
		<td>${badge(ctx, inv)}</td>
		<td class="v-date">${f.day(inv.issued_at)}</td>
		<td class="v-date">${f.day(inv.due_at)}</td>
		<td class="v-num">${f.money(inv.total_cents)}</td>
		<td class="v-num">${DUE.has(inv.status) ? f.money(inv.total_cents - inv.paid_cents) : '—'}</td></tr>`;
}

/* How many are shown, what they total and what is due on them. */
function summary(ctx, shown, pager, status) {
	const f = ctx.format;
	if (!shown.length)
		return 'No invoices' + (status ? ' with this status.' : ' yet.');
	const total = shown.reduce((s, i) => s + i.total_cents, 0);
	const due = shown.reduce((s, i) => s + (DUE.has(i.status) ? i.total_cents - i.paid_cents : 0), 0);
	return shown.length + (pager.done ? '' : '+') + (shown.length === 1 ? ' invoice' : ' invoices') +
		' · total ' + f.money(total) + ' · due ' + f.money(due);
}

// SPDX-License-Identifier: MIT
/*
 * invoices.js: the invoices pages. The shell opens this one module for
 * /app/invoices (the list, here), /app/invoices/new and /app/invoices/:id
 * (an invoice, its draft's form and its payments: invoice.js, imported
 * when first needed and given the helpers it shares with the list as
 * `lib`).
 *
 * The list: newest first, by status (all, drafts, sent, overdue, part
 * paid, paid, void; kept in the URL), with what the shown ones total and
 * what is still due on them; pages come as the end of the list comes into
 * view. Every name and figure is put in as text (ctx.html, textContent).
 */

const STATUSES = [['', 'All'], ['draft', 'Drafts'], ['sent', 'Sent'], ['overdue', 'Overdue'],
	['partially_paid', 'Part paid'], ['paid', 'Paid'], ['void', 'Void']];
const LABELS = { draft: 'Draft', sent: 'Sent', partially_paid: 'Part paid', paid: 'Paid', void: 'Void' };

const moneyFormats = new Map();

/* Cents as an amount of `currency`, with its cents. */
function money(cents, currency) {
	let f = moneyFormats.get(currency);
	if (!f) {
		try {
			f = new Intl.NumberFormat(undefined, { style: 'currency', currency: currency || 'USD' });
		} catch (e) {
			f = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
		}
		moneyFormats.set(currency, f);
	}
	return f.format((cents || 0) / 100);
}

const dayFormat = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric' });

function day(iso) {
	const d = iso ? new Date(iso) : null;
	return d && !isNaN(d) ? dayFormat.format(d) : '';
}

/* An open invoice past its due date is overdue, whatever it was sent as. */
function statusOf(inv) {
	const open = inv.status === 'sent' || inv.status === 'partially_paid';
	return open && inv.due_at && Date.parse(inv.due_at) < Date.now() ? 'overdue' : inv.status;
}

function badge(ctx, inv) {
	const s = statusOf(inv);
	return ctx.html`<span class="${'v-status v-status-' + s}">${s === 'overdue' ? 'Overdue' : LABELS[s] || s}</span>`;
}

function appHref(ctx, path) {
	return '/app' + path + (ctx.location ? (path.indexOf('?') < 0 ? '?' : '&') +
		'location=' + encodeURIComponent(ctx.location.id) : '');
}

function styles(ctx) {
	return ctx.ui.stylesheet(new URL('./invoices.css', import.meta.url));
}

const lib = { money, day, badge, appHref, statusOf, LABELS };

export default async function page(view, ctx) {
	const id = ctx.params.id;
	if (id === undefined)
		return list(view, ctx);
	if (id !== 'new' && !/^[1-9]\d{0,17}$/.test(id)) {
		const e = new Error('No such invoice');
		e.status = 404;
		throw e;
	}
	const [invoice] = await Promise.all([import('./invoice.js'), styles(ctx)]);
	return id === 'new' ? invoice.newInvoice(view, ctx, lib) : invoice.default(view, ctx, lib);
}

async function list(view, ctx) {
	const { html, api, ui } = ctx;
	const status = STATUSES.some((s) => s[0] === ctx.query.get('status')) ? ctx.query.get('status') : '';
	const query = status ? { status } : {};
	const [first] = await Promise.all([api.get('/api/invoices', query), styles(ctx)]);
	let cursor = null;
	let seq = 0;
	let asking = false;
	const shown = [];

	ctx.title('Invoices');
	view.classList.add('invoices-page');
	view.append(html`
<div class="page-head">
	<h1>Invoices</h1>
	<a class="btn btn-primary" href="${appHref(ctx, '/invoices/new')}">New invoice</a>
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
<div class="v-more"><button type="button" class="btn" data-more hidden>Load more</button></div>`);
	const body = view.querySelector('tbody');
	const sum = view.querySelector('.v-sum');
	const moreButton = view.querySelector('[data-more]');

	function show(answer, replace) {
		if (replace) {
			body.textContent = '';
			shown.length = 0;
		}
		for (const inv of answer.data || []) {
			shown.push(inv);
			body.append(html`<tr>
				<td><a href="${appHref(ctx, '/invoices/' + inv.id)}">${inv.number || 'Draft ' + inv.id}</a></td>
				<td>${inv.contact_name || ''}</td>
				<td>${badge(ctx, inv)}</td>
				<td class="v-date">${day(inv.issued_at)}</td>
				<td class="v-date">${day(inv.due_at)}</td>
				<td class="v-num">${money(inv.total_cents, inv.currency)}</td>
				<td class="v-num">${money(inv.total_cents - inv.paid_cents, inv.currency)}</td></tr>`);
		}
		cursor = answer.next_cursor || null;
		moreButton.hidden = !cursor;
		const currencies = new Set(shown.map((i) => i.currency));
		const one = currencies.size <= 1 ? shown.length ? shown[0].currency : 'USD' : null;
		const total = shown.reduce((s, i) => s + i.total_cents, 0);
		const due = shown.reduce((s, i) => s + (i.status === 'void' ? 0 : i.total_cents - i.paid_cents), 0);
		sum.textContent = !shown.length ? 'No invoices' + (status ? ' with this status.' : ' yet.')
			: shown.length + (cursor ? '+' : '') + (shown.length === 1 ? ' invoice' : ' invoices') +
				(one ? ' · total ' + money(total, one) + ' · due ' + money(due, one) : ' in several currencies');
	}

	async function more() {
		if (!cursor || asking)
			return;
		const mine = seq;
		asking = true;
		try {
			const answer = await api.get('/api/invoices', Object.assign({}, query, { cursor }));
			if (mine === seq && !ctx.signal.aborted)
				show(answer, false);
		} catch (e) {
			if (!ctx.signal.aborted)
				ui.toast('More invoices could not be loaded: ' + e.message, { kind: 'error' });
		} finally {
			asking = false;
		}
	}

	view.querySelector('.v-filters').addEventListener('change', async (e) => {
		const mine = ++seq;
		const value = e.target.value;
		ctx.setQuery({ status: value });
		delete query.status;
		if (value)
			query.status = value;
		try {
			const answer = await api.get('/api/invoices', query);
			if (mine === seq && !ctx.signal.aborted)
				show(answer, true);
		} catch (err) {
			if (mine === seq && !ctx.signal.aborted)
				ui.toast('The invoices could not be loaded: ' + err.message, { kind: 'error' });
		}
	});
	/* Changes by others: the list asked again for as many as it shows. */
	ctx.onLive(['invoice.*'], async () => {
		const mine = seq;
		const ask = Object.assign({}, query, shown.length > 50 ? { limit: Math.min(shown.length, 1000) } : {});
		let answer;
		try {
			answer = await api.get('/api/invoices', ask);
		} catch (e) {
			return; /* the next change asks again */
		}
		if (mine !== seq || ctx.signal.aborted)
			return;
		const active = document.activeElement;
		const href = active && body.contains(active) ? active.getAttribute('href') : null;
		show(answer, true);
		const again = href && body.querySelector('a[href="' + href + '"]');
		if (again)
			again.focus({ preventScroll: true });
	});
	moreButton.addEventListener('click', more);
	const seen = 'IntersectionObserver' in window
		? new IntersectionObserver((entries) => { if (entries.some((x) => x.isIntersecting)) more(); }, { rootMargin: '300px' })
		: null;
	if (seen)
		seen.observe(moreButton);
	show(first, true);
	return () => {
		if (seen)
			seen.disconnect();
	};
}

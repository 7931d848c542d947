// SPDX-License-Identifier: MIT
/*
 * agency.js: the agency's pages, for its staff: every sub-account at
 * once. The shell opens this module for /app/agency (the overview: the
 * agency's figures, its last 30 days as charts, and the table of its
 * sub-accounts) and for /app/agency/contacts, /deals and /tasks (views.js,
 * imported when first opened). Tabs at the top lead from one to another.
 *
 * The sub-accounts' table sorts by any of its columns (the server's
 * orders; the header's button, again for the other direction) and is
 * searched as you type; both are kept in the URL. A sub-account's name
 * opens it: the app in that sub-account, at its first page.
 *
 * Every name is put in as text (ctx.html, textContent).
 */

const VIEWS = [['', 'Overview'], ['contacts', 'Contacts'], ['deals', 'Deals'], ['tasks', 'Tasks']];
const DEBOUNCE_MS = 200;
const PAGE_ROWS = 50;

/* The table's columns: its header, the API's sort key, the row's value,
 * and the module its figure needs (the column goes when the server says
 * that module is absent). */
const COLUMNS = [
	{ name: 'Sub-account', sort: 'name' },
	{ name: 'Contacts', sort: 'contacts', of: (p) => p.counts.contacts, fmt: 'count' },
	{ name: 'Open deals', sort: 'deals', of: (p) => p.counts.deals.open, fmt: 'count' },
	{ name: 'Pipeline', sort: 'value', of: (p) => p.counts.deals.open_value_cents, fmt: 'money' },
	{ name: 'Unread', sort: 'unread', of: (p) => p.counts.conversations.unread, fmt: 'count' },
	{ name: 'Open tasks', sort: 'tasks', of: (p) => p.counts.tasks.open, fmt: 'count' },
	{ name: 'Overdue tasks', sort: 'overdue', of: (p) => p.counts.tasks.overdue, fmt: 'count', bad: true },
	{ name: 'Invoices due', sort: 'outstanding', of: (p) => invoiceDue(p.counts), fmt: 'money', module: 'invoices' },
	{ name: 'Health', sort: 'health', of: (p) => p.health_score, fmt: 'count' },
	{ name: 'Last activity', sort: 'activity', of: (p) => p.last_activity_at, fmt: 'day' },
];

/* What the pages share with views.js, passed to it (never imported
 * back): a figure that may be absent ("–"), and the list in pages. */
const lib = {
	count: (ctx, n) => (n == null ? '–' : ctx.format.number(n)),
	/* an amount of `currency` (a sub-account's; by default the current one's) */
	money: (ctx, minor, currency) => (minor == null ? '–' : ctx.format.money(minor, currency)),
	/* the agency's sum of `key`: added up when every sub-account keeps one
	 * currency, else each currency's ("$1,200 + £300"), from by_currency */
	sum: (ctx, minor, byCurrency, key) => {
		const each = byCurrency || [];
		if (minor != null)
			return ctx.format.money(minor, each.length === 1 ? each[0].currency : undefined);
		return each.length ? each.map((c) => ctx.format.money(c[key] || 0, c.currency)).join(' + ') : '–';
	},
	debounce(fn) {
		let timer = 0;
		return () => {
			clearTimeout(timer);
			timer = setTimeout(fn, DEBOUNCE_MS);
		};
	},
	paged,
};

/* A list in pages (ctx.ui.paged), with a "Load more" button put at the
 * end of `host`: the list at `path`, asked for with query(); draw(answer,
 * pager) shows a page of it (the whole answer: some say more than their
 * rows). restart() begins again from the first page; an answer asked for
 * before a restart (or stop()) is dropped. `what` names the list in an
 * error ("The contacts"). */
function paged(ctx, host, what, path, query, draw) {
	host.append(ctx.html`<div class="ag-more"><button type="button" class="btn" hidden>Load more</button></div>`);
	return ctx.ui.paged({
		more: host.lastElementChild.querySelector('button'), what, signal: ctx.signal, scroll: false,
		open: () => ctx.api.list(path, query()),
		draw: (rows, pager) => draw(pager.answer, pager),
	});
}

function invoiceDue(counts) {
	const out = counts.invoices && counts.invoices.outstanding;
	return out ? out.amount_due_cents : null; /* no invoices module: no figure */
}

function notFound() {
	const e = new Error('no such view of the agency');
	e.status = 404;
	return e;
}

export default async function page(view, ctx) {
	const which = ctx.params.view || '';
	const tab = VIEWS.find((v) => v[0] === which);
	if (!tab)
		throw notFound();
	const { html, ui } = ctx;
	ctx.title(which ? 'Agency ' + tab[1].toLowerCase() : 'Agency');
	view.classList.add('agency');
	view.append(html`
<div class="page-head"><h1>${which ? 'Agency: ' + tab[1].toLowerCase() : 'Agency'}</h1></div>
<nav class="tabs" aria-label="Agency">${VIEWS.map((v) => html`<a href="${ctx.href('/agency' + (v[0] ? '/' + v[0] : ''))}"
	aria-current="${v[0] === which ? 'page' : null}">${v[1]}</a>`)}</nav>
<div class="ag-body"></div>`);
	const body = view.querySelector('.ag-body');
	const styles = ui.stylesheet(new URL('./agency.css', import.meta.url));
	if (!which) {
		const [leave] = await Promise.all([overview(body, ctx), styles]);
		return leave;
	}
	const [views] = await Promise.all([import('./views.js'), styles]);
	return views[which](body, ctx, lib);
}

/* ---- the overview ----------------------------------------------------------- */

async function overview(body, ctx) {
	const { html, ui } = ctx;
	/* as the app may have asked for it: with the page's query */
	const [data, chart] = await Promise.all([ctx.api.get('/api/agency/overview', ctx.queryOf(['q', 'sort'])),
		ui.chart()]);
	body.append(html`
<h2 class="visually-hidden">Figures</h2>
<div class="figures ag-figures"></div>
<h2>Last 30 days</h2>
<div class="ag-charts"></div>
<h2 id="ag-places-h">Sub-accounts</h2>`);
	body.querySelector('.ag-figures').append(figures(ctx, data));
	body.querySelector('.ag-charts').append(...charts(ctx, chart, data));
	return subAccounts(body, ctx);
}

function figures(ctx, d) {
	const figure = ctx.ui.figure;
	const f = ctx.format;
	const count = (n) => lib.count(ctx, n);
	const sum = (minor, key) => lib.sum(ctx, minor, d.by_currency, key);
	const c = d.counts || {};
	const deals = c.deals || {};
	const tasks = c.tasks || {};
	const inv = c.invoices;
	const out = [
		figure('Sub-accounts', count(d.sub_accounts), d.health_score == null ? 'no contact health yet' : 'contact health ' + d.health_score + ' of 100'),
		figure('Contacts', count(c.contacts), 'in every sub-account'),
		figure('Open deals', count(deals.open), 'worth ' + sum(deals.open_value_cents, 'open_value_cents')),
		figure('Unread conversations', count((c.conversations || {}).unread), 'waiting for a reply'),
		figure('Open tasks', count(tasks.open), f.plural(tasks.overdue || 0, 'overdue', 'overdue'),
			tasks.overdue ? 'is-bad' : ''),
	];
	if (inv) {
		out.push(figure('Invoices outstanding', count(inv.outstanding.count),
			sum(inv.outstanding.amount_due_cents, 'outstanding_cents') + ' due · ' + f.plural(inv.overdue.count, 'overdue', 'overdue'),
			inv.overdue.count ? 'is-bad' : ''));
	}
	const frag = document.createDocumentFragment();
	frag.append(...out);
	return frag;
}

/* The last 30 days as charts; the amounts (null across currencies: no
 * chart) in the agency's one currency. */
function charts(ctx, chart, data) {
	const series = data.series || [];
	const one = (data.by_currency || []).length === 1 ? data.by_currency[0].currency : undefined;
	const money = (minor) => ctx.format.money(minor, one);
	const of = (key) => series.map((d) => ({ x: d.date, y: d[key] || 0 }));
	const specs = [
		{ key: 'contacts_new', kind: 'bar', title: 'New contacts' },
		{ key: 'deals_won', kind: 'bar', title: 'Deals won' },
		{ key: 'messages_received', kind: 'bar', title: 'Messages received' },
		{ key: 'payments_cents', kind: 'line', title: 'Payments received', money: true },
	].filter((sp) => !series.length || series[0][sp.key] != null);
	return specs.map((sp) => {
		const box = document.createElement('div');
		box.className = 'card ag-chart';
		box.append(chart[sp.kind]({
			title: sp.title, total: true, data: of(sp.key),
			yName: sp.money ? sp.title + ' (amount)' : sp.title,
			formatY: sp.money ? money : undefined,
			tickY: sp.money ? (v) => ctx.format.moneyCompact(v, one) : undefined,
			step: sp.money ? Math.pow(10, ctx.format.digits) : 1,
		}));
		return box;
	});
}

/* ---- the sub-accounts' table -------------------------------------------------- */

function sortOf(ctx) {
	const sort = ctx.query.get('sort') || 'name';
	const key = sort.replace(/^-/, '');
	return COLUMNS.some((c) => c.sort === key) ? { key, desc: sort[0] === '-' } : { key: 'name', desc: false };
}

function subAccounts(body, ctx) {
	const { html } = ctx;
	const state = { q: ctx.query.get('q') || '', sort: sortOf(ctx) };
	body.append(html`
<form class="ag-search" role="search" aria-label="Find a sub-account">
	<label for="ag-q">Search sub-accounts</label>
	<input id="ag-q" type="search" autocomplete="off" spellcheck="false" placeholder="Name" value="${state.q}">
	<p class="ag-count muted" role="status"></p>
</form>
<div class="ag-table-wrap">
	<table class="table ag-table" aria-labelledby="ag-places-h">
		<thead><tr>${COLUMNS.map((c, i) => html`<th scope="col" class="${i ? 'num' : null}" data-sort="${c.sort}">
			<button type="button" class="sort">${c.name}</button></th>`)}</tr></thead>
		<tbody></tbody>
	</table>
</div>`);
	const el = {
		q: body.querySelector('#ag-q'),
		count: body.querySelector('.ag-count'),
		head: body.querySelector('.ag-table thead'),
		rows: body.querySelector('.ag-table tbody'),
	};

	let columns = COLUMNS;
	function dropAbsent(absent) {
		if (!absent || !absent.length)
			return;
		columns = columns.filter((c) => !absent.includes(c.module));
		for (const th of Array.from(el.head.querySelectorAll('th[data-sort]')))
			if (!columns.some((c) => c.sort === th.dataset.sort))
				th.remove();
	}

	function cell(c, p) {
		const v = c.of(p);
		const text = c.fmt === 'money' ? lib.money(ctx, v, p.currency) : c.fmt === 'day' ? ctx.format.day(v) || '–' : lib.count(ctx, v);
		return html`<td class="${'num' + (c.bad && v ? ' is-bad' : '')}">${text}</td>`;
	}

	function row(p) {
		return html`<tr><th scope="row"><a href="${ctx.href('/', p.id)}">${p.name}</a>
			<span class="ag-tz muted">${p.timezone}</span></th>${columns.slice(1).map((c) => cell(c, p))}</tr>`;
	}

	function markSort() {
		for (const th of Array.from(el.head.querySelectorAll('th'))) {
			if (th.dataset.sort === state.sort.key)
				th.setAttribute('aria-sort', state.sort.desc ? 'descending' : 'ascending');
			else
				th.removeAttribute('aria-sort');
		}
	}

	function query() {
		const sort = (state.sort.desc ? '-' : '') + state.sort.key;
		return { q: state.q.trim(), sort: sort === 'name' ? null : sort };
	}

	const list = paged(ctx, body, 'The sub-accounts', '/api/agency/projects',
		() => Object.assign({ limit: PAGE_ROWS, count: 1 }, query()),
		(answer) => {
			dropAbsent(answer.absent_modules);
			el.rows.append(html`${(answer.data || []).map(row)}`);
			const shown = el.rows.childElementCount;
			const total = answer.total || 0;
			el.count.textContent = !total
				? (state.q.trim() ? 'No sub-account matches “' + state.q.trim() + '”.' : 'No sub-accounts yet.')
				: shown < total ? ctx.format.number(shown) + ' of ' + ctx.format.plural(total, 'sub-account', 'sub-accounts') + ' shown'
					: ctx.format.plural(total, 'sub-account', 'sub-accounts');
		});

	function reload() {
		ctx.setQuery(query());
		el.rows.textContent = '';
		markSort();
		return list.restart();
	}

	el.head.addEventListener('click', (e) => {
		const th = e.target.closest('th[data-sort]');
		if (!th || !e.target.closest('button'))
			return;
		const key = th.dataset.sort;
		/* a figure's column opens largest first; a second click turns it */
		state.sort = key === state.sort.key ? { key, desc: !state.sort.desc }
			: { key, desc: key !== 'name' };
		reload();
	});
	el.q.addEventListener('input', lib.debounce(() => {
		state.q = el.q.value;
		reload();
	}));
	body.querySelector('.ag-search').addEventListener('submit', (e) => e.preventDefault());
	return reload().then(() => list.stop);
}

// SPDX-License-Identifier: MIT
/*
 * dashboard.js: the sub-account's dashboard (/app/dashboard): its figures
 * as cards, its series by day as charts (each with a table of the same
 * figures), and its open deals by pipeline stage, over the last 7, 30 or
 * 90 days. Everything comes from one GET /api/dashboard?period=...
 *
 * The period is a radio group kept in the URL (?period=7d), so a reload or
 * a shared link shows the same. The page shows once its first figures
 * are in (the shell's skeleton stands until then); on a switch the old
 * figures stay, dimmed, until the new ones are in, and an answer that
 * arrives after a newer switch is dropped. Changes made in the
 * sub-account bring the figures up to date (not dimmed: nothing was asked).
 */

const PERIODS = [['7d', '7 days'], ['30d', '30 days'], ['90d', '90 days']];
const DEFAULT = '30d';
const REFRESH_MS = 1000;


export default async function page(view, ctx) {
	const html = ctx.html;
	ctx.title('Dashboard');
	const chosen = ctx.query.get('period');
	let period = PERIODS.some((p) => p[0] === chosen) ? chosen : DEFAULT;
	let seq = 0;
	let left = false;
	let charts = null;

	view.classList.add('dash');
	view.append(html`
<div class="page-head">
	<h1>Dashboard</h1>
	<fieldset class="segmented">
		<legend>Period</legend>
		${PERIODS.map((p) => html`<label><input type="radio" name="period" value="${p[0]}"
			checked="${p[0] === period}"><span>${p[1]}</span></label>`)}
	</fieldset>
</div>
<p class="dash-range muted" role="status"></p>
<div class="dash-body" aria-busy="true">
	<h2 class="visually-hidden">Figures</h2>
	<div class="figures dash-cards"></div>
	<h2>By day</h2>
	<div class="dash-charts"></div>
	<h2>Open deals by stage</h2>
	<div class="dash-pipelines"></div>
</div>`);
	const range = view.querySelector('.dash-range');
	const body = view.querySelector('.dash-body');
	const cardsEl = view.querySelector('.dash-cards');
	const chartsEl = view.querySelector('.dash-charts');
	const pipelinesEl = view.querySelector('.dash-pipelines');

	async function load(quietly) {
		const mine = ++seq;
		if (quietly !== true)
			body.setAttribute('aria-busy', 'true');
		let data, chart;
		try {
			/* the default as the URL has it (none), so that the page's
			 * first request is the one the app asked for early (reports.c) */
			[data, chart] = await Promise.all([ctx.api.get('/api/dashboard',
				{ period: period === DEFAULT ? null : period }), ctx.ui.chart()]);
		} catch (e) {
			if (left || mine !== seq || quietly === true)
				return; /* a refresh that failed keeps the figures shown */
			body.removeAttribute('aria-busy');
			failed(e);
			return;
		}
		if (left || mine !== seq)
			return;
		body.removeAttribute('aria-busy');
		range.textContent = rangeText(ctx.format, data);
		cardsEl.textContent = '';
		cardsEl.append(cards(ctx, data));
		drawCharts(chart, data);
		pipelinesEl.textContent = '';
		pipelinesEl.append(pipelines(ctx, data.pipelines || []));
	}

	function failed(e) {
		cardsEl.textContent = '';
		cardsEl.append(html`<div class="form-error" role="alert"><p>The figures could not be loaded: ${e.message}</p>
			<p><button type="button" class="btn">Try again</button></p></div>`);
		cardsEl.querySelector('button').addEventListener('click', load);
	}

	function drawCharts(chart, data) {
		const series = data.series || [];
		const of = (key) => series.map((d) => ({ x: d.date, y: d[key] }));
		const specs = [
			{ key: 'contacts_new', kind: 'bar', title: 'New contacts', total: true },
			{ key: 'messages_received', kind: 'bar', title: 'Messages received', total: true },
			{ key: 'deals_won', kind: 'bar', title: 'Deals won', total: true },
			{ key: 'payments_cents', kind: 'line', title: 'Payments received', total: true, money: true },
		].filter((sp) => !series.length || series[0][sp.key] != null); /* null: its module is off */
		if (!charts) {
			charts = specs.map((sp) => chart[sp.kind]({
				title: sp.title,
				yName: sp.money ? sp.title + ' (amount)' : sp.title,
				total: sp.total,
				data: of(sp.key),
				formatY: sp.money ? ctx.format.money : undefined,
				tickY: sp.money ? ctx.format.moneyCompact : undefined,
				step: sp.money ? Math.pow(10, ctx.format.digits) : 1,
			}));
			chartsEl.append(...charts.map((c) => {
				const box = document.createElement('div');
				box.className = 'card dash-chart';
				box.append(c);
				return box;
			}));
		} else {
			specs.forEach((sp, i) => chart.update(charts[i], of(sp.key)));
		}
	}

	view.querySelector('.segmented').addEventListener('change', (e) => {
		if (!e.target.matches('input[name="period"]'))
			return;
		period = e.target.value;
		ctx.setQuery({ period: period === DEFAULT ? null : period });
		load();
	});

	/* What others do moves the figures: they are asked again, at most
	 * once every REFRESH_MS however busy the sub-account is. */
	let pending = 0;
	ctx.onLive(['contact.*', 'message.sent', 'message.received', 'opportunity.*', 'invoice.*', 'task.*'], () => {
		if (!pending)
			pending = setTimeout(() => { pending = 0; if (!left) load(true); }, REFRESH_MS);
	});

	/* The figures, the chart code and the page's styles come at once: on a
	 * slow link each wait in turn would be another round trip. */
	await Promise.all([load(), ctx.ui.stylesheet(new URL('./dashboard.css', import.meta.url))]);
	return () => {
		left = true;
		clearTimeout(pending);
	};
}

/* "From Nov 3, 2026 to Dec 2, 2026": the sub-account's days; `since` is
 * the first's midnight, `until` the midnight after the last. */
function rangeText(f, data) {
	return 'From ' + f.day(data.since) + ' to ' + f.day(Date.parse(data.until) - 1);
}

function cards(ctx, d) {
	const { html } = ctx;
	const figure = ctx.ui.figure;
	const f = ctx.format;
	const days = (d.series || []).length;
	const within = days ? ' in ' + days + ' days' : '';
	const contacts = d.contacts || {};
	const won = (d.deals && d.deals.won) || {};
	const lost = (d.deals && d.deals.lost) || {};
	const open = (d.pipelines || []).reduce((a, p) => ({ count: a.count + (p.count || 0),
		value: a.value + (p.value_cents || 0) }), { count: 0, value: 0 });
	const tasks = d.tasks || {};
	const unread = (d.conversations && d.conversations.unread) || 0;
	const inv = d.invoices; /* null without the invoices module: no figure */
	const outstanding = (inv && inv.outstanding) || {};
	const overdue = (inv && inv.overdue) || {};
	return html`
		${figure('Contacts', f.number(contacts.total || 0), f.plural(contacts.new || 0, 'new', 'new') + within)}
		${figure('Open deals', f.number(open.count), 'worth ' + f.money(open.value))}
		${figure('Won', f.number(won.count || 0), 'worth ' + f.money(won.value_cents) + ' · ' +
			f.number(lost.count || 0) + ' lost')}
		${figure('Tasks due today', f.number(tasks.due_today || 0),
			f.plural(tasks.overdue || 0, 'overdue', 'overdue'), tasks.overdue ? 'is-bad' : '')}
		${figure('Unread conversations', f.number(unread), unread ? 'waiting for a reply' : 'all read')}
		${inv ? figure('Invoices outstanding', f.number(outstanding.count || 0),
			f.money(outstanding.amount_due_cents) + ' due · ' + f.plural(overdue.count || 0, 'overdue', 'overdue'),
			overdue.count ? 'is-bad' : '') : ''}`;
}

function pipelines(ctx, list) {
	const { html } = ctx;
	const f = ctx.format;
	if (!list.length)
		return html`<p class="muted">No pipelines yet.</p>`;
	return html`${list.map((p) => html`<div class="dash-pipeline">
		<table class="table">
			<caption>${p.name}: ${f.plural(p.count || 0, 'open deal', 'open deals')}, worth ${f.money(p.value_cents)}</caption>
			<thead><tr><th scope="col">Stage</th><th scope="col" class="num">Deals</th><th scope="col" class="num">Value</th></tr></thead>
			<tbody>${(p.stages || []).map((st) => html`<tr><th scope="row">${st.name}</th>
				<td class="num">${f.number(st.count || 0)}</td><td class="num">${f.money(st.value_cents)}</td></tr>`)}</tbody>
		</table></div>`)}`;
}

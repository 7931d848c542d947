// SPDX-License-Identifier: MIT
/*
 * reports-widget.js: one widget of a reports dashboard as it is drawn
 * (reports.js's state `r` passed in): its head (title, what and when it
 * shows, the tools to move or remove it) and its body by its shape: a big
 * figure, a chart by day or week with its table (chart.js), or each
 * pipeline's stages as a table. Figures are the sub-account's
 * (ctx.format).
 */

/* Each kind: its name, its shape, and the module its figures need. */
export const KINDS = [
	['contacts_new', 'New contacts', 'count'],
	['messages', 'Messages', 'count'],
	['deals_won', 'Deals won', 'deals'],
	['revenue', 'Revenue', 'money', 'invoices'],
	['pipeline_value', 'Pipeline value', 'pipeline'],
	['tasks_open', 'Open tasks', 'number'],
	['tasks_overdue', 'Overdue tasks', 'number'],
	['invoices_due', 'Invoices due', 'invoices', 'invoices'],
];
export const PERIODS = [['7d', 'Last 7 days'], ['30d', 'Last 30 days'], ['90d', 'Last 90 days']];
export const kindOf = (k) => KINDS.find((x) => x[0] === k) || [k, k, 'number'];
const nameOf = (list, v) => (list.find((x) => x[0] === v) || [v, v])[1];

/* Widget `w`, the i-th of the dashboard shown. */
export function widget(r, w, i) {
	const { html } = r.ctx;
	const [, kindName, shape] = kindOf(w.kind);
	const conf = w.config || {};
	const when = shape === 'number' || shape === 'invoices' || shape === 'pipeline' ? 'Now'
		: nameOf(PERIODS, conf.period) + (conf.group === 'week' ? ', by week' : '');
	const last = i === r.current.widgets.length - 1;
	const box = html`<article class="${'card r-widget r-' + shape}" data-widget="${w.id}" aria-labelledby="${'r-w-' + w.id}">
	<div class="r-widget-head">
		<h2 id="${'r-w-' + w.id}" tabindex="-1">${w.title}</h2>
		<p class="r-widget-when muted">${kindName === w.title ? when : kindName + ' · ' + when}</p>
		<div class="r-widget-tools">
			<button type="button" class="btn btn-small btn-quiet" data-move="-1" disabled="${i === 0}" aria-label="${'Earlier: ' + w.title}">Earlier</button>
			<button type="button" class="btn btn-small btn-quiet" data-move="1" disabled="${last}" aria-label="${'Later: ' + w.title}">Later</button>
			<button type="button" class="btn btn-small btn-quiet btn-danger" data-remove aria-label="${'Remove: ' + w.title}">Remove</button>
		</div>
	</div>
	<div class="r-widget-body"></div>
</article>`.firstElementChild;
	box.querySelector('.r-widget-body').append(body(r, w, shape));
	return box;
}

function body(r, w, shape) {
	const { ctx } = r;
	const { html } = ctx;
	const f = ctx.format;
	if (w.data === null) /* its module is not enabled on this server */
		return html`<p class="muted">Needs the ${kindOf(w.kind)[3] || ''} module, which is not enabled.</p>`;
	const d = w.data || {};
	if (shape === 'number')
		return html`<p class="r-big">${f.number(d.count || 0)}</p>`;
	if (shape === 'invoices') {
		const over = d.overdue || {};
		return html`<p class="r-big">${f.number(d.count || 0)}</p>
			<p class="muted">${f.money(d.amount_due_cents)} due</p>
			<p class="${over.count ? 'is-bad' : 'muted'}">${f.number(over.count || 0)} overdue, ${f.money(over.amount_due_cents)}</p>`;
	}
	if (shape === 'pipeline')
		return html`${(d.pipelines || []).map((p) => stagesTable(ctx, p))}`;
	return series(r, w, shape, d);
}

/* A figure over time: its total and a chart by day or week. */
function series(r, w, shape, d) {
	const { ctx } = r;
	const f = ctx.format;
	const isMoney = shape === 'money';
	const total = isMoney ? f.money(d.value_cents) : f.number(d.count || 0);
	const paid = d.count || 0;
	const note = shape === 'deals' ? 'worth ' + f.money(d.value_cents)
		: isMoney ? f.number(paid) + (paid === 1 ? ' payment' : ' payments') : '';
	const drawn = r.chart[isMoney ? 'line' : 'bar']({
		title: w.title,
		yName: isMoney ? w.title + ' (amount)' : w.title,
		xName: (w.config || {}).group === 'week' ? 'Week from' : 'Day',
		data: (d.series || []).map((p) => ({ x: p.date, y: isMoney ? p.value_cents : p.count })),
		formatY: isMoney ? f.money : undefined,
		tickY: isMoney ? f.moneyCompact : undefined,
		step: isMoney ? Math.pow(10, f.digits) : 1,
		height: 140,
	});
	return ctx.html`<p class="r-big">${total} <span class="r-note muted">${note}</span></p>${drawn}`;
}

function stagesTable(ctx, p) {
	const { html } = ctx;
	const f = ctx.format;
	const most = Math.max(1, ...(p.stages || []).map((s) => s.value_cents || 0));
	const share = (s) => (s.value_cents || 0) / most;
	const t = html`<table class="table r-stages">
		<caption>${p.name}: ${f.number(p.count || 0)} open, ${f.money(p.value_cents)}</caption>
		<thead><tr><th scope="col">Stage</th><th scope="col" class="num">Deals</th><th scope="col" class="num">Value</th></tr></thead>
		<tbody>${(p.stages || []).map((s) => html`<tr><th scope="row">${s.name}<span class="r-meter" aria-hidden="true"><span data-share="${share(s)}"></span></span></th>
			<td class="num">${f.number(s.count || 0)}</td><td class="num">${f.money(s.value_cents)}</td></tr>`)}</tbody>
	</table>`;
	/* the CSP allows no style attribute: the share is set as a property */
	for (const bar of Array.from(t.querySelectorAll('[data-share]')))
		bar.style.width = (Number(bar.dataset.share) * 100).toFixed(1) + '%';
	return t;
}

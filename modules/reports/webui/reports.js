// SPDX-License-Identifier: MIT
/*
 * reports.js: the reports page (/app/reports): the dashboards a
 * sub-account arranges for itself, one at a time (?dashboard=ID, the
 * first by default), each a grid of widgets: a figure, a bar or line
 * chart by day or week (chart.js, with its table), or a pipeline's stages
 * as a table. Dashboards are made, renamed and deleted here; widgets are
 * added (a kind, a title, a period, a grouping, a pipeline), moved earlier
 * or later, and removed.
 *
 * One GET draws a dashboard (/api/reports/dashboards/:id/data: each
 * widget with its figures, in order); after a change the dashboard is
 * drawn again from the server's answer, so what shows is what is stored.
 * Moving renumbers the widgets' positions 0, 1, 2... where they differ.
 *
 * The page is in parts, each given its state `r`: this file (the page,
 * the dashboard shown, widgets moved and removed), reports-widget.js (a
 * widget drawn) and reports-forms.js (a widget added; a dashboard made,
 * renamed or deleted).
 *
 * Every title and name is put in as text (ctx.html, textContent).
 */
import { adding, naming } from './reports-forms.js';
import { widget } from './reports-widget.js';

export default async function page(view, ctx) {
	const { api, ui } = ctx;
	/* the list as the app may have asked for it: with the page's query */
	const [list, chart] = await Promise.all([api.get('/api/reports/dashboards', ctx.queryOf(['dashboard'])), ui.chart(),
		ui.stylesheet(new URL('./reports.css', import.meta.url))]);
	ctx.title('Reports');
	view.classList.add('reports');
	/* r: the page's state, which each part is given */
	const r = {
		ctx, view, chart,
		el: frame(view, ctx),
		dashboards: list.data || [],
		current: null,   /* {id, name, widgets} as last drawn */
		absent: [],      /* the modules the server says are off: their kinds are not offered */
		pipelines: null,
		seq: 0,
		moving: false,   /* a move's writes under way: the next waits */
	};
	r.open = (id, focus) => open(r, id, focus);
	r.fillPicker = () => fillPicker(r);
	arranging(r);
	adding(r);
	naming(r);
	r.el.pick.addEventListener('change', () => open(r, r.el.pick.value));
	const wanted = ctx.query.get('dashboard');
	const first = r.dashboards.find((d) => String(d.id) === wanted) || r.dashboards[0];
	if (first)
		await open(r, first.id);
	else
		r.noDashboards();
	return () => { r.seq++; };
}

function frame(view, ctx) {
	view.append(ctx.html`
<div class="page-head">
	<h1>Reports</h1>
	<div class="r-pick"><label for="r-dash">Dashboard</label><select id="r-dash"></select></div>
	<div class="r-actions">
		<button type="button" class="btn btn-primary" data-add aria-expanded="false" aria-controls="r-add">Add widget</button>
		<button type="button" class="btn" data-new aria-expanded="false" aria-controls="r-name">New dashboard</button>
		<button type="button" class="btn" data-rename aria-expanded="false" aria-controls="r-name">Rename</button>
		<button type="button" class="btn btn-danger" data-delete>Delete</button>
	</div>
</div>
<div class="r-confirm"></div>
<form class="card r-form" id="r-name" hidden novalidate></form>
<form class="card r-form" id="r-add" hidden novalidate aria-label="Add a widget"></form>
<div class="r-grid" aria-live="off"></div>`);
	return {
		pick: view.querySelector('#r-dash'),
		add: view.querySelector('[data-add]'),
		make: view.querySelector('[data-new]'),
		rename: view.querySelector('[data-rename]'),
		remove: view.querySelector('[data-delete]'),
		confirm: view.querySelector('.r-confirm'),
		nameForm: view.querySelector('#r-name'),
		addForm: view.querySelector('#r-add'),
		grid: view.querySelector('.r-grid'),
	};
}

function fillPicker(r) {
	const { el } = r;
	const { html } = r.ctx;
	el.pick.textContent = '';
	el.pick.append(html`${r.dashboards.map((d) => html`<option value="${d.id}">${d.name}</option>`)}`);
	if (r.current)
		el.pick.value = String(r.current.id);
	const none = !r.dashboards.length;
	el.pick.disabled = none;
	el.add.hidden = el.rename.hidden = el.remove.hidden = none;
}

/* Draws dashboard `id` from the server; `focus`: a widget's id or a
 * selector to put the focus on afterwards. */
async function open(r, id, focus) {
	const { ctx, el } = r;
	const mine = ++r.seq;
	const d = r.dashboards.find((x) => String(x.id) === String(id));
	r.current = { id: Number(id), name: d ? d.name : '',
		widgets: r.current && r.current.id === Number(id) ? r.current.widgets : [] };
	fillPicker(r);
	el.grid.setAttribute('aria-busy', 'true');
	let data;
	try {
		data = await ctx.api.get('/api/reports/dashboards/' + id + '/data');
	} catch (e) {
		if (mine === r.seq) {
			el.grid.removeAttribute('aria-busy');
			el.grid.textContent = '';
			el.grid.append(ctx.html`<div class="form-error" role="alert"><p>The dashboard could not be loaded: ${e.message}</p></div>`);
		}
		return;
	}
	if (mine !== r.seq || ctx.signal.aborted)
		return;
	r.current.widgets = data.widgets || [];
	r.absent = data.absent_modules || [];
	ctx.setQuery({ dashboard: r.dashboards.length && String(r.dashboards[0].id) === String(id) ? null : String(id) });
	fillPicker(r);
	draw(r);
	el.grid.removeAttribute('aria-busy');
	const target = typeof focus === 'number' ? el.grid.querySelector('[data-widget="' + focus + '"] h2')
		: focus ? r.view.querySelector(focus) : null;
	if (target)
		target.focus();
}

function draw(r) {
	const { el, current } = r;
	el.grid.textContent = '';
	if (!current.widgets.length) {
		el.grid.append(r.ctx.html`<div class="r-empty card"><h2>No widgets yet</h2>
			<p class="muted">Add a figure, a chart or a pipeline to ${current.name}.</p></div>`);
		return;
	}
	el.grid.append(...current.widgets.map((w, i) => widget(r, w, i)));
}

/* ---- arranging ---- */

async function move(r, id, by) {
	const { ctx, el } = r;
	if (r.moving)
		return;
	r.moving = true;
	const order = r.current.widgets.slice();
	const at = order.findIndex((w) => w.id === id);
	const to = at + by;
	if (at < 0 || to < 0 || to >= order.length) {
		r.moving = false;
		return;
	}
	order.splice(to, 0, order.splice(at, 1)[0]);
	try {
		await ctx.ui.renumber(order, (w, position) => ctx.api.patch('/api/reports/widgets/' + w.id, { position }));
	} catch (e) {
		ctx.ui.toast('The widget could not be moved: ' + e.message, { kind: 'error' });
	}
	await open(r, r.current.id, id);
	r.moving = false;
	const again = el.grid.querySelector('[data-widget="' + id + '"] [data-move="' + by + '"]');
	(again && !again.disabled ? again : el.grid.querySelector('[data-widget="' + id + '"] h2')).focus();
}

async function removeWidget(r, id) {
	const { ctx } = r;
	const widgets = r.current.widgets;
	const w = widgets.find((x) => x.id === id);
	const at = widgets.indexOf(w);
	try {
		await ctx.api.del('/api/reports/widgets/' + id);
	} catch (e) {
		ctx.ui.toast('The widget could not be removed: ' + e.message, { kind: 'error' });
		return;
	}
	ctx.ui.toast('Removed ' + w.title + '.', { kind: 'success' });
	const next = widgets[at + 1] || widgets[at - 1];
	await open(r, r.current.id, next ? next.id : '[data-add]');
}

function arranging(r) {
	r.el.grid.addEventListener('click', (e) => {
		const b = e.target.closest('button[data-move], button[data-remove]');
		if (!b)
			return;
		const id = Number(b.closest('[data-widget]').dataset.widget);
		if (b.hasAttribute('data-remove'))
			removeWidget(r, id);
		else
			move(r, id, Number(b.dataset.move));
	});
}

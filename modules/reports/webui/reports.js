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
 * Every title and name is put in as text (ctx.html, textContent).
 */

/* kind, its name, and how it is drawn */
/* Each kind: its name, its shape, and the module its figures need. */
const KINDS = [
	['contacts_new', 'New contacts', 'count'],
	['messages', 'Messages', 'count'],
	['deals_won', 'Deals won', 'deals'],
	['revenue', 'Revenue', 'money', 'invoices'],
	['pipeline_value', 'Pipeline value', 'pipeline'],
	['tasks_open', 'Open tasks', 'number'],
	['tasks_overdue', 'Overdue tasks', 'number'],
	['invoices_due', 'Invoices due', 'invoices', 'invoices'],
];
const PERIODS = [['7d', 'Last 7 days'], ['30d', 'Last 30 days'], ['90d', 'Last 90 days']];
const GROUPS = [['day', 'By day'], ['week', 'By week']];

const count = new Intl.NumberFormat(undefined);
const money = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const cents = (v) => money.format((v || 0) / 100);
const kindOf = (k) => KINDS.find((x) => x[0] === k) || [k, k, 'number'];
const nameOf = (list, v) => (list.find((x) => x[0] === v) || [v, v])[1];

export default async function page(view, ctx) {
	const { html, api, ui } = ctx;
	/* the list as the app may have asked for it: with the page's query */
	const [list, chart] = await Promise.all([api.get('/api/reports/dashboards', ctx.queryOf(['dashboard'])), ui.chart(),
		ui.stylesheet(new URL('./reports.css', import.meta.url))]);
	let dashboards = list.data || [];
	let current = null; /* {id, name, widgets} as last drawn */
	let absent = []; /* the modules the server says are off: their kinds are not offered */
	let pipelines = null;
	let seq = 0;
	let moving = false; /* a move's writes under way: the next waits */

	ctx.title('Reports');
	view.classList.add('reports');
	view.append(html`
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
	const el = {
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

	function fillPicker() {
		el.pick.textContent = '';
		el.pick.append(html`${dashboards.map((d) => html`<option value="${d.id}">${d.name}</option>`)}`);
		if (current)
			el.pick.value = String(current.id);
		const none = !dashboards.length;
		el.pick.disabled = none;
		el.add.hidden = el.rename.hidden = el.remove.hidden = none;
	}

	/* Draws dashboard `id` from the server; `focus`: a widget's id or a
	 * selector to put the focus on afterwards. */
	async function open(id, focus) {
		const mine = ++seq;
		const d = dashboards.find((x) => String(x.id) === String(id));
		current = { id: Number(id), name: d ? d.name : '', widgets: current && current.id === Number(id) ? current.widgets : [] };
		fillPicker();
		el.grid.setAttribute('aria-busy', 'true');
		let data;
		try {
			data = await api.get('/api/reports/dashboards/' + id + '/data');
		} catch (e) {
			if (mine === seq) {
				el.grid.removeAttribute('aria-busy');
				el.grid.textContent = '';
				el.grid.append(html`<div class="form-error" role="alert"><p>The dashboard could not be loaded: ${e.message}</p></div>`);
			}
			return;
		}
		if (mine !== seq || ctx.signal.aborted)
			return;
		current.widgets = data.widgets || [];
		absent = data.absent_modules || [];
		ctx.setQuery({ dashboard: dashboards.length && String(dashboards[0].id) === String(id) ? null : String(id) });
		fillPicker();
		draw();
		el.grid.removeAttribute('aria-busy');
		const target = typeof focus === 'number' ? el.grid.querySelector('[data-widget="' + focus + '"] h2')
			: focus ? view.querySelector(focus) : null;
		if (target)
			target.focus();
	}

	function draw() {
		el.grid.textContent = '';
		if (!current.widgets.length) {
			el.grid.append(html`<div class="r-empty card"><h2>No widgets yet</h2>
				<p class="muted">Add a figure, a chart or a pipeline to ${current.name}.</p></div>`);
			return;
		}
		el.grid.append(...current.widgets.map((w, i) => widget(w, i)));
	}

	function widget(w, i) {
		const [, kindName, shape] = kindOf(w.kind);
		const conf = w.config || {};
		const when = shape === 'number' || shape === 'invoices' || shape === 'pipeline' ? 'Now'
			: nameOf(PERIODS, conf.period) + (conf.group === 'week' ? ', by week' : '');
		const last = i === current.widgets.length - 1;
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
		box.querySelector('.r-widget-body').append(body(w, shape));
		return box;
	}

	function body(w, shape) {
		if (w.data === null) /* its module is not enabled on this server */
			return html`<p class="muted">Needs the ${kindOf(w.kind)[3] || ''} module, which is not enabled.</p>`;
		const d = w.data || {};
		if (shape === 'number')
			return html`<p class="r-big">${count.format(d.count || 0)}</p>`;
		if (shape === 'invoices') {
			const over = d.overdue || {};
			return html`<p class="r-big">${count.format(d.count || 0)}</p>
				<p class="muted">${cents(d.amount_due_cents)} due</p>
				<p class="${over.count ? 'is-bad' : 'muted'}">${count.format(over.count || 0)} overdue, ${cents(over.amount_due_cents)}</p>`;
		}
		if (shape === 'pipeline')
			return html`${(d.pipelines || []).map((p) => stagesTable(p))}`;
		const series = d.series || [];
		const isMoney = shape === 'money';
		const total = isMoney ? cents(d.value_cents) : count.format(d.count || 0);
		const paid = d.count || 0;
		const note = shape === 'deals' ? 'worth ' + cents(d.value_cents)
			: isMoney ? count.format(paid) + (paid === 1 ? ' payment' : ' payments') : '';
		const drawn = chart[isMoney ? 'line' : 'bar']({
			title: w.title,
			yName: isMoney ? w.title + ' (amount)' : w.title,
			xName: (w.config || {}).group === 'week' ? 'Week from' : 'Day',
			data: series.map((p) => ({ x: p.date, y: isMoney ? p.value_cents : p.count })),
			formatY: isMoney ? cents : undefined,
			tickY: isMoney ? (v) => chart.compact(v / 100) : undefined,
			step: isMoney ? 100 : 1,
			height: 140,
		});
		return html`<p class="r-big">${total} <span class="r-note muted">${note}</span></p>${drawn}`;
	}

	function stagesTable(p) {
		const most = Math.max(1, ...(p.stages || []).map((s) => s.value_cents || 0));
		const share = (s) => (s.value_cents || 0) / most;
		const t = html`<table class="table r-stages">
			<caption>${p.name}: ${count.format(p.count || 0)} open, ${cents(p.value_cents)}</caption>
			<thead><tr><th scope="col">Stage</th><th scope="col" class="num">Deals</th><th scope="col" class="num">Value</th></tr></thead>
			<tbody>${(p.stages || []).map((s) => html`<tr><th scope="row">${s.name}<span class="r-meter" aria-hidden="true"><span data-share="${share(s)}"></span></span></th>
				<td class="num">${count.format(s.count || 0)}</td><td class="num">${cents(s.value_cents)}</td></tr>`)}</tbody>
		</table>`;
		/* the CSP allows no style attribute: the share is set as a property */
		for (const bar of Array.from(t.querySelectorAll('[data-share]')))
			bar.style.width = (Number(bar.dataset.share) * 100).toFixed(1) + '%';
		return t;
	}

	/* ---- arranging ---- */

	async function move(id, by) {
		if (moving)
			return;
		moving = true;
		const order = current.widgets.slice();
		const at = order.findIndex((w) => w.id === id);
		const to = at + by;
		if (at < 0 || to < 0 || to >= order.length) {
			moving = false;
			return;
		}
		order.splice(to, 0, order.splice(at, 1)[0]);
		try {
			await ui.renumber(order, (w, position) => api.patch('/api/reports/widgets/' + w.id, { position }));
		} catch (e) {
			ui.toast('The widget could not be moved: ' + e.message, { kind: 'error' });
		}
		await open(current.id, id);
		moving = false;
		const again = el.grid.querySelector('[data-widget="' + id + '"] [data-move="' + by + '"]');
		(again && !again.disabled ? again : el.grid.querySelector('[data-widget="' + id + '"] h2')).focus();
	}

	async function removeWidget(id) {
		const w = current.widgets.find((x) => x.id === id);
		const at = current.widgets.indexOf(w);
		try {
			await api.del('/api/reports/widgets/' + id);
		} catch (e) {
			ui.toast('The widget could not be removed: ' + e.message, { kind: 'error' });
			return;
		}
		ui.toast('Removed ' + w.title + '.', { kind: 'success' });
		const next = current.widgets[at + 1] || current.widgets[at - 1];
		await open(current.id, next ? next.id : '[data-add]');
	}

	el.grid.addEventListener('click', (e) => {
		const b = e.target.closest('button[data-move], button[data-remove]');
		if (!b)
			return;
		const id = Number(b.closest('[data-widget]').dataset.widget);
		if (b.hasAttribute('data-remove'))
			removeWidget(id);
		else
			move(id, Number(b.dataset.move));
	});

	/* ---- adding a widget ---- */

	async function pipelinesList() {
		if (!pipelines) {
			try {
				pipelines = (await api.get('/api/pipelines')).data || [];
			} catch (e) {
				pipelines = [];
			}
		}
		return pipelines;
	}

	async function showAdd() {
		const form = el.addForm;
		const choices = await pipelinesList();
		form.textContent = '';
		form.append(html`
<h2>Add a widget</h2>
<div class="r-form-grid">
	<div class="field"><label for="r-kind">Shows</label>
		<select id="r-kind" name="kind">${KINDS.filter((k) => !absent.includes(k[3])).map((k) => html`<option value="${k[0]}">${k[1]}</option>`)}</select></div>
	<div class="field"><label for="r-title">Title</label>
		<input id="r-title" name="title" maxlength="200" required autocomplete="off" value="${KINDS[0][1]}"></div>
	<div class="field" data-for="period"><label for="r-period">Period</label>
		<select id="r-period" name="period">${PERIODS.map((p) => html`<option value="${p[0]}" selected="${p[0] === '30d'}">${p[1]}</option>`)}</select></div>
	<div class="field" data-for="group"><label for="r-group">Grouped</label>
		<select id="r-group" name="group">${GROUPS.map((g) => html`<option value="${g[0]}">${g[1]}</option>`)}</select></div>
	<div class="field" data-for="pipeline" hidden><label for="r-pipeline">Pipeline</label>
		<select id="r-pipeline" name="pipeline_id"><option value="">Every pipeline</option>
			${choices.map((p) => html`<option value="${p.id}">${p.name}</option>`)}</select></div>
</div>
<div class="r-form-actions">
	<button type="submit" class="btn btn-primary">Add widget</button>
	<button type="button" class="btn" data-cancel>Cancel</button>
</div>`);
		const kind = form.querySelector('#r-kind');
		const title = form.querySelector('#r-title');
		let named = KINDS[0][1]; /* the title as the kind gave it, not typed */
		const fit = () => {
			const shape = kindOf(kind.value)[2];
			const timed = shape === 'count' || shape === 'deals' || shape === 'money';
			form.querySelector('[data-for="period"]').hidden = !timed;
			form.querySelector('[data-for="group"]').hidden = !timed;
			form.querySelector('[data-for="pipeline"]').hidden = shape !== 'pipeline';
			if (title.value === named)
				title.value = named = kindOf(kind.value)[1];
		};
		kind.addEventListener('change', fit);
		form.querySelector('[data-cancel]').addEventListener('click', () => toggle(el.addForm, el.add, false));
		fit();
		kind.focus();
	}

	el.addForm.addEventListener('submit', async (e) => {
		e.preventDefault();
		const form = el.addForm;
		const f = new FormData(form);
		const config = {};
		if (!form.querySelector('[data-for="period"]').hidden) {
			config.period = f.get('period');
			config.group = f.get('group');
		}
		if (!form.querySelector('[data-for="pipeline"]').hidden && f.get('pipeline_id'))
			config.pipeline_id = Number(f.get('pipeline_id'));
		ui.clearErrors(form);
		const submit = form.querySelector('[type="submit"]');
		submit.disabled = true;
		let made;
		try {
			made = await api.post('/api/reports/dashboards/' + current.id + '/widgets',
				{ kind: f.get('kind'), title: String(f.get('title')).trim(), config });
		} catch (err) {
			submit.disabled = false;
			ui.formErrors(form, err);
			return;
		}
		toggle(el.addForm, el.add, false);
		ui.toast('Added ' + made.title + '.', { kind: 'success' });
		await open(current.id, made.id);
	});

	/* ---- dashboards ---- */

	function showName(renaming) {
		const form = el.nameForm;
		form.dataset.renaming = renaming ? '1' : '';
		form.setAttribute('aria-label', renaming ? 'Rename the dashboard' : 'New dashboard');
		form.textContent = '';
		form.append(html`
<div class="r-name-row">
	<div class="field"><label for="r-name-input">${renaming ? 'New name' : 'Name of the new dashboard'}</label>
		<input id="r-name-input" name="name" maxlength="200" required autocomplete="off" value="${renaming ? current.name : ''}"></div>
	<button type="submit" class="btn btn-primary">${renaming ? 'Save name' : 'Create dashboard'}</button>
	<button type="button" class="btn" data-cancel>Cancel</button>
</div>`);
		form.querySelector('[data-cancel]').addEventListener('click', () =>
			toggle(el.nameForm, renaming ? el.rename : el.make, false));
		form.querySelector('input').select();
	}

	el.nameForm.addEventListener('submit', async (e) => {
		e.preventDefault();
		const form = el.nameForm;
		const renaming = !!form.dataset.renaming;
		const name = form.querySelector('input').value.trim();
		ui.clearErrors(form);
		let saved;
		try {
			saved = renaming ? await api.patch('/api/reports/dashboards/' + current.id, { name })
				: await api.post('/api/reports/dashboards', { name });
		} catch (err) {
			ui.formErrors(form, err);
			return;
		}
		if (renaming)
			dashboards = dashboards.map((d) => (d.id === saved.id ? Object.assign({}, d, { name: saved.name }) : d));
		else
			dashboards = dashboards.concat([saved]);
		toggle(el.nameForm, renaming ? el.rename : el.make, false);
		ui.toast(renaming ? 'Renamed.' : 'Dashboard created.', { kind: 'success' });
		await open(saved.id, renaming ? '#r-dash' : '[data-add]');
	});

	async function deleteDashboard() {
		const yes = await ui.confirm(el.confirm, 'Delete the dashboard ' + current.name + ' and its widgets?', 'Delete dashboard');
		if (!yes)
			return;
		try {
			await api.del('/api/reports/dashboards/' + current.id);
		} catch (e) {
			ui.toast('The dashboard could not be deleted: ' + e.message, { kind: 'error' });
			return;
		}
		ui.toast('Deleted ' + current.name + '.', { kind: 'success' });
		dashboards = dashboards.filter((d) => d.id !== current.id);
		if (dashboards.length) {
			await open(dashboards[0].id, '#r-dash');
		} else {
			current = null;
			ctx.setQuery({ dashboard: null });
			noDashboards();
			el.make.focus();
		}
	}

	function noDashboards() {
		fillPicker();
		el.grid.textContent = '';
		el.grid.append(html`<div class="r-empty card"><h2>No dashboards yet</h2>
			<p class="muted">A dashboard gathers the figures and charts you want to see together.
			Make one with “New dashboard”.</p></div>`);
	}

	/* Shows or hides a form under the head, its button saying which. */
	function toggle(form, button, show) {
		for (const [f, b] of [[el.addForm, el.add], [el.nameForm, el.make], [el.nameForm, el.rename]]) {
			if (f !== form || (b !== button && show))
				b.setAttribute('aria-expanded', 'false');
		}
		if (show && form !== el.nameForm)
			el.nameForm.hidden = true;
		if (show && form !== el.addForm)
			el.addForm.hidden = true;
		form.hidden = !show;
		button.setAttribute('aria-expanded', String(show));
		if (!show)
			button.focus();
	}

	el.add.addEventListener('click', () => {
		const show = el.addForm.hidden;
		toggle(el.addForm, el.add, show);
		if (show)
			showAdd();
	});
	for (const [button, renaming] of [[el.make, false], [el.rename, true]]) {
		button.addEventListener('click', () => {
			const show = el.nameForm.hidden || button.getAttribute('aria-expanded') !== 'true';
			toggle(el.nameForm, button, show);
			if (show)
				showName(renaming);
		});
	}
	el.remove.addEventListener('click', deleteDashboard);
	el.pick.addEventListener('change', () => open(el.pick.value));

	const wanted = ctx.query.get('dashboard');
	const first = dashboards.find((d) => String(d.id) === wanted) || dashboards[0];
	if (first)
		await open(first.id);
	else
		noDashboards();
	return () => { seq++; };
}

// SPDX-License-Identifier: MIT
/*
 * reports-forms.js: the reports page's forms under its head (reports.js's
 * state `r` passed in): a widget added (its kind, title, and the period,
 * grouping or pipeline its kind takes), a dashboard made or renamed, and
 * one deleted after asking. Each shows and hides with its button
 * (aria-expanded); after each change the dashboard is drawn again from
 * the server (r.open).
 */
import { KINDS, PERIODS, kindOf } from './reports-widget.js';

const GROUPS = [['day', 'By day'], ['week', 'By week']];

/* Shows or hides a form under the head, its button saying which. */
function toggle(r, form, button, show) {
	const { el } = r;
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

/* ---- adding a widget ---- */

async function pipelinesList(r) {
	if (!r.pipelines) {
		try {
			r.pipelines = (await r.ctx.api.get('/api/pipelines')).data || [];
		} catch (e) {
			r.pipelines = [];
		}
	}
	return r.pipelines;
}

async function showAdd(r) {
	const { html } = r.ctx;
	const form = r.el.addForm;
	const choices = await pipelinesList(r);
	form.textContent = '';
	form.append(html`
<h2>Add a widget</h2>
<div class="r-form-grid">
	<div class="field"><label for="r-kind">Shows</label>
		<select id="r-kind" name="kind">${KINDS.filter((k) => !r.absent.includes(k[3])).map((k) => html`<option value="${k[0]}">${k[1]}</option>`)}</select></div>
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
	form.querySelector('[data-cancel]').addEventListener('click', () => toggle(r, r.el.addForm, r.el.add, false));
	fit();
	kind.focus();
}

async function addWidget(r) {
	const { ctx } = r;
	const { ui } = ctx;
	const form = r.el.addForm;
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
		made = await ctx.api.post('/api/reports/dashboards/' + r.current.id + '/widgets',
			{ kind: f.get('kind'), title: String(f.get('title')).trim(), config });
	} catch (err) {
		submit.disabled = false;
		ui.formErrors(form, err);
		return;
	}
	toggle(r, r.el.addForm, r.el.add, false);
	ui.toast('Added ' + made.title + '.', { kind: 'success' });
	await r.open(r.current.id, made.id);
}

export function adding(r) {
	const { el } = r;
	el.addForm.addEventListener('submit', (e) => {
		e.preventDefault();
		addWidget(r);
	});
	el.add.addEventListener('click', () => {
		const show = el.addForm.hidden;
		toggle(r, el.addForm, el.add, show);
		if (show)
			showAdd(r);
	});
}

/* ---- dashboards ---- */

function showName(r, renaming) {
	const form = r.el.nameForm;
	form.dataset.renaming = renaming ? '1' : '';
	form.setAttribute('aria-label', renaming ? 'Rename the dashboard' : 'New dashboard');
	form.textContent = '';
	form.append(r.ctx.html`
<div class="r-name-row">
	<div class="field"><label for="r-name-input">${renaming ? 'New name' : 'Name of the new dashboard'}</label>
		<input id="r-name-input" name="name" maxlength="200" required autocomplete="off" value="${renaming ? r.current.name : ''}"></div>
	<button type="submit" class="btn btn-primary">${renaming ? 'Save name' : 'Create dashboard'}</button>
	<button type="button" class="btn" data-cancel>Cancel</button>
</div>`);
	form.querySelector('[data-cancel]').addEventListener('click', () =>
		toggle(r, r.el.nameForm, renaming ? r.el.rename : r.el.make, false));
	form.querySelector('input').select();
}

async function saveName(r) {
	const { ctx, el } = r;
	const { api, ui } = ctx;
	const form = el.nameForm;
	const renaming = !!form.dataset.renaming;
	const name = form.querySelector('input').value.trim();
	ui.clearErrors(form);
	let saved;
	try {
		saved = renaming ? await api.patch('/api/reports/dashboards/' + r.current.id, { name })
			: await api.post('/api/reports/dashboards', { name });
	} catch (err) {
		ui.formErrors(form, err);
		return;
	}
	if (renaming)
		r.dashboards = r.dashboards.map((d) => (d.id === saved.id ? Object.assign({}, d, { name: saved.name }) : d));
	else
		r.dashboards = r.dashboards.concat([saved]);
	toggle(r, el.nameForm, renaming ? el.rename : el.make, false);
	ui.toast(renaming ? 'Renamed.' : 'Dashboard created.', { kind: 'success' });
	await r.open(saved.id, renaming ? '#r-dash' : '[data-add]');
}

async function deleteDashboard(r) {
	const { ctx, el } = r;
	const { ui } = ctx;
	const yes = await ui.confirm(el.confirm, 'Delete the dashboard ' + r.current.name + ' and its widgets?', 'Delete dashboard');
	if (!yes)
		return;
	try {
		await ctx.api.del('/api/reports/dashboards/' + r.current.id);
	} catch (e) {
		ui.toast('The dashboard could not be deleted: ' + e.message, { kind: 'error' });
		return;
	}
	ui.toast('Deleted ' + r.current.name + '.', { kind: 'success' });
	r.dashboards = r.dashboards.filter((d) => d.id !== r.current.id);
	if (r.dashboards.length) {
		await r.open(r.dashboards[0].id, '#r-dash');
	} else {
		r.current = null;
		ctx.setQuery({ dashboard: null });
		r.noDashboards();
		el.make.focus();
	}
}

function noDashboards(r) {
	const { el } = r;
	r.fillPicker();
	el.grid.textContent = '';
	el.grid.append(r.ctx.html`<div class="r-empty card"><h2>No dashboards yet</h2>
		<p class="muted">A dashboard gathers the figures and charts you want to see together.
		Make one with “New dashboard”.</p></div>`);
}

/* A dashboard made, renamed or deleted; sets r.noDashboards. */
export function naming(r) {
	const { el } = r;
	r.noDashboards = () => noDashboards(r);
	el.nameForm.addEventListener('submit', (e) => {
		e.preventDefault();
		saveName(r);
	});
	for (const [button, renaming] of [[el.make, false], [el.rename, true]]) {
		button.addEventListener('click', () => {
			const show = el.nameForm.hidden || button.getAttribute('aria-expanded') !== 'true';
			toggle(r, el.nameForm, button, show);
			if (show)
				showName(r, renaming);
		});
	}
	el.remove.addEventListener('click', () => deleteDashboard(r));
}

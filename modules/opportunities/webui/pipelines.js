// SPDX-License-Identifier: MIT
/*
 * pipelines.js: /app/opportunities/pipelines, the sub-account's pipelines
 * and their stages, opened by board.js: add,
 * rename and delete a pipeline; add, rename, reorder, give a win
 * probability to and delete a stage. Each change is saved as it is made
 * (a field when it is left or Enter is pressed) and the page is drawn
 * again from the server's answer; a refusal (a stage or a pipeline that
 * still holds deals) is said in words and changes nothing. The page's
 * state `s` ({ctx, view, list: the pipelines as last read}) is passed to
 * each of its functions.
 */

export default async function pipelines(view, ctx) {
	const s = { ctx, view, list: await ctx.api.get('/api/pipelines') };
	ctx.title('Pipelines');
	view.classList.add('pipelines-page');
	/* One handler for the page's forms and buttons, so that drawing it
	 * again needs no wiring. */
	view.addEventListener('submit', (e) => submitted(s, e));
	view.addEventListener('change', (e) => changed(s, e));
	view.addEventListener('keydown', (e) => {
		if (e.key === 'Enter' && e.target.closest && e.target.closest('tr[data-stage]') && e.target.tagName === 'INPUT') {
			e.preventDefault();
			e.target.blur(); /* saved by its change */
		}
	});
	view.addEventListener('click', (e) => clicked(s, e));
	draw(s);
}

/* A selector for `el` that finds its like once the page is drawn
 * again, or null. */
function keyOf(view, el) {
	if (!el || !view.contains(el))
		return null;
	if (el.id)
		return '#' + el.id;
	const row = el.closest('tr[data-stage]');
	const what = el.name ? '[name="' + el.name + '"]'
		: ['data-up', 'data-down', 'data-delete-stage'].map((a) => (el.hasAttribute(a) ? '[' + a + ']' : '')).join('');
	return row && what ? 'tr[data-stage="' + row.dataset.stage + '"] ' + what : null;
}

/* Runs `work` (a request); on success draws the page again from the
 * server and says `done`. The focus, and what is being typed where it
 * is, stay where they were (or go to `refocus`, when that is gone), but
 * for the `sent` text, which was saved and is not typed again (a stage's
 * name left in its box was added twice by a second Enter). */
async function save(s, work, done, refocus, sent) {
	const { ctx, view } = s;
	const { api, ui } = ctx;
	try {
		await work();
		s.list = await api.get('/api/pipelines');
	} catch (e) {
		if (!ctx.signal.aborted)
			ui.toast(e.message.charAt(0).toUpperCase() + e.message.slice(1) + '.', { kind: 'error' });
		return false;
	}
	if (ctx.signal.aborted)
		return false;
	const active = document.activeElement;
	const key = keyOf(view, active);
	const typing = key && active.value !== undefined && active.tagName !== 'BUTTON' &&
		active.value !== sent && active.value !== active.defaultValue ? active.value : null;
	draw(s);
	ui.toast(done, { kind: 'success' });
	const found = key && view.querySelector(key);
	const again = (found && !found.disabled ? found : null) || (refocus && view.querySelector(refocus));
	if (again) {
		if (typing !== null && again === view.querySelector(key))
			again.value = typing;
		again.focus();
	}
	return true;
}

function stageRows(ctx, p) {
	const { html } = ctx;
	const stages = p.stages || [];
	return stages.map((s, i) => html`<tr data-stage="${s.id}">
		<td data-label="Stage"><input class="p-stage-name" name="name" value="${s.name}" maxlength="100" required
			aria-labelledby="${'p-h-name-' + p.id}" autocomplete="off"></td>
		<td data-label="Win %"><input class="p-stage-prob" name="probability" inputmode="numeric" maxlength="3" autocomplete="off"
			value="${s.probability}" aria-labelledby="${'p-h-prob-' + p.id}"></td>
		<td class="p-order">
			<button type="button" class="btn btn-small" data-up disabled="${i === 0}">↑<span class="visually-hidden">${' Move ' + s.name + ' up'}</span></button>
			<button type="button" class="btn btn-small" data-down disabled="${i === stages.length - 1}">↓<span class="visually-hidden">${' Move ' + s.name + ' down'}</span></button>
		</td>
		<td><button type="button" class="btn btn-small btn-danger" data-delete-stage>Delete<span class="visually-hidden">${' stage ' + s.name}</span></button></td>
	</tr>`);
}

function pipelineCard(ctx, p) {
	const { html } = ctx;
	return html`<section class="card p-card" data-pipeline="${p.id}" aria-labelledby="${'p-title-' + p.id}">
<div class="p-head">
	<h2 id="${'p-title-' + p.id}">${p.name}</h2>
	<a class="btn btn-small" href="${ctx.href('/opportunities?pipeline=' + p.id)}">Open board</a>
	<button type="button" class="btn btn-small btn-danger" data-delete-pipeline>Delete<span class="visually-hidden">${' pipeline ' + p.name}</span></button>
</div>
<div class="p-confirm"></div>
<form class="p-rename" novalidate>
	<div class="field"><label for="${'p-name-' + p.id}">Pipeline name</label>
		<input id="${'p-name-' + p.id}" name="name" value="${p.name}" maxlength="100" required autocomplete="off"></div>
	<button type="submit" class="btn">Rename</button>
</form>
<table class="table p-stages">
	<thead><tr><th id="${'p-h-name-' + p.id}" scope="col">Stage</th>
		<th id="${'p-h-prob-' + p.id}" scope="col">Win probability (%)</th>
		<th scope="col">Order</th><th scope="col"><span class="visually-hidden">Delete</span></th></tr></thead>
	<tbody>${stageRows(ctx, p)}</tbody>
</table>
<form class="p-add-stage" novalidate>
	<div class="field"><label for="${'p-new-stage-' + p.id}">New stage</label>
		<input id="${'p-new-stage-' + p.id}" name="name" maxlength="100" required autocomplete="off"></div>
	<button type="submit" class="btn">Add stage</button>
</form>
</section>`;
}

function draw(s) {
	const { ctx, view, list } = s;
	const { html } = ctx;
	view.textContent = '';
	view.append(html`
<p class="crumbs"><a href="${ctx.href('/opportunities')}">Opportunities</a></p>
<div class="page-head"><h1>Pipelines</h1></div>
<form class="card p-new" novalidate>
<div class="field"><label for="p-new-name">New pipeline</label>
	<input id="p-new-name" name="name" maxlength="100" required autocomplete="off" placeholder="Renewals"></div>
<button type="submit" class="btn btn-primary">Add pipeline</button>
</form>
${(list.data || []).map((p) => pipelineCard(ctx, p))}
${(list.data || []).length ? '' : html`<p class="muted">No pipeline yet: add the first one above.</p>`}`);
}

/* A form sent: a pipeline added or renamed, a stage added. */
function submitted(s, e) {
	const { ctx } = s;
	const { api, ui } = ctx;
	e.preventDefault();
	const form = e.target;
	const name = form.elements.name.value.trim();
	ui.clearErrors(form);
	if (!name) {
		ui.formErrors(form, { fields: { name: 'a name is needed' } });
		return;
	}
	const card = form.closest('[data-pipeline]');
	const id = card && card.dataset.pipeline;
	const [work, done, refocus] = form.classList.contains('p-new')
		? [() => api.post('/api/pipelines', { name }), 'Pipeline “' + name + '” added.', '#p-new-name']
		: form.classList.contains('p-rename')
			? [() => api.patch('/api/pipelines/' + id, { name }), 'Pipeline renamed.', null]
			: [() => api.post('/api/pipelines/' + id + '/stages', { name }), 'Stage “' + name + '” added.',
				'#p-new-stage-' + id];
	/* One at a time: Enter again while it is sent would add it twice. */
	if (form.getAttribute('aria-busy') === 'true')
		return;
	form.setAttribute('aria-busy', 'true');
	save(s, work, done, refocus, name).finally(() => form.removeAttribute('aria-busy'));
}

/* A stage's field left: its name or its win probability saved. */
function changed(s, e) {
	const { ctx } = s;
	const { api, ui } = ctx;
	const row = e.target.closest('tr[data-stage]');
	if (!row)
		return;
	const input = e.target;
	const id = row.dataset.stage;
	if (input.name === 'name') {
		const name = input.value.trim();
		if (name)
			save(s, () => api.patch('/api/stages/' + id, { name }), 'Stage renamed.');
	} else if (input.name === 'probability') {
		const p = Number(input.value);
		if (input.value !== '' && p >= 0 && p <= 100 && Math.round(p) === p)
			save(s, () => api.patch('/api/stages/' + id, { probability: p }), 'Probability saved.');
		else
			ui.toast('A win probability is a whole number from 0 to 100.', { kind: 'error' });
	}
}

/* A stage moved up or down, or deleted; a pipeline deleted (asked first). */
async function clicked(s, e) {
	const { ctx } = s;
	const { api, ui } = ctx;
	const b = e.target.closest('button');
	if (!b || b.type === 'submit' || b.closest('.confirm'))
		return;
	const row = b.closest('tr[data-stage]');
	const card = b.closest('[data-pipeline]');
	if (b.hasAttribute('data-up') || b.hasAttribute('data-down')) {
		/* a stage goes before the one above it; going down, the one
		 * below goes before it */
		const other = b.hasAttribute('data-up') ? row.previousElementSibling : row.nextElementSibling;
		const [mover, before] = b.hasAttribute('data-up') ? [row, other] : [other, row];
		const stages = s.list.data.find((p) => String(p.id) === card.dataset.pipeline).stages;
		const position = stages.find((st) => String(st.id) === before.dataset.stage).position;
		save(s, () => api.patch('/api/stages/' + mover.dataset.stage, { position }), 'Order saved.',
			'tr[data-stage="' + row.dataset.stage + '"] .p-stage-name');
	} else if (b.hasAttribute('data-delete-stage')) {
		const name = row.querySelector('.p-stage-name').value;
		if (await ui.confirm(card.querySelector('.p-confirm'), 'Delete the stage ' + name + '?', 'Delete stage'))
			save(s, () => api.del('/api/stages/' + row.dataset.stage), 'Stage deleted.', '#p-new-stage-' + card.dataset.pipeline);
	} else if (b.hasAttribute('data-delete-pipeline')) {
		const name = card.querySelector('h2').textContent;
		if (await ui.confirm(card.querySelector('.p-confirm'), 'Delete the pipeline ' + name + '?', 'Delete pipeline'))
			save(s, () => api.del('/api/pipelines/' + card.dataset.pipeline), 'Pipeline deleted.', '#p-new-name');
	}
}

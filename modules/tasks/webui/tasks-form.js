// SPDX-License-Identifier: MIT
/*
 * tasks-form.js: a task's form on the tasks page (tasks.js's state `t`
 * passed in): a new task, in the form at the top (yours unless said
 * otherwise, about the contact the list is filtered by), and a task
 * opened for editing in place by its title, saved or deleted there. The
 * contact is picked by typing part of a name; a new task's starts as the
 * one the list is filtered by (a contact's "New task" opens the form so,
 * with ?new=1). The deal, when the server keeps deals, is picked the same
 * way among the open deals of every pipeline; a task made from a deal's
 * page (?opportunity=ID&new=1) has it shown and kept, with the deal's
 * contact to begin with, and the deal's page comes back once it is added.
 * The due time is typed in the sub-account's time zone. The server's
 * refusal shows by the field it names.
 */

/* Each open form's contact picker (ui.pickContact's chosen()), and its
 * deal's (the same, for the deal; absent without deals). */
const pickers = new WeakMap();
const dealPickers = new WeakMap();

/* The fields of a task's form, new (t.id undefined) or edited. */
function fields(t, task) {
	const { html, format } = t.ctx;
	const id = (name) => 't-' + name + '-' + (task.id || 'new');
	return html`
<div class="field"><label for="${id('title')}">Title</label>
	<input id="${id('title')}" name="title" maxlength="200" required autocomplete="off" value="${task.title || ''}"></div>
<div class="t-form-grid">
	<div class="field"><label for="${id('due')}">Due</label>
		<input id="${id('due')}" name="due_at" type="datetime-local" value="${format.field(task.due_at)}"></div>
	<div class="field"><label for="${id('who')}">Assignee</label>
		<select id="${id('who')}" name="assignee_id"><option value="">No one</option>
			${Array.from(t.users.values()).map((u) => html`<option value="${u.id}" selected="${u.id === task.assignee_id}">${u.name}</option>`)}</select></div>
</div>
<div class="field"><label for="${id('contact')}">Contact</label>
	<input id="${id('contact')}" name="contact_id" type="search" autocomplete="off" placeholder="Type a name"></div>
${t.ctx.offers('/opportunities') ? html`<div class="field"><label for="${id('deal')}">Deal</label>
	<input id="${id('deal')}" name="opportunity_id" type="search" autocomplete="off" placeholder="Type a deal’s name"></div>` : ''}
<div class="field"><label for="${id('body')}">Notes</label>
	<textarea id="${id('body')}" name="body" rows="3" maxlength="5000"></textarea></div>`;
}

/* The contact field of `form` picks one, starting with `contact` (as the
 * API has it, or null); its deal field likewise, starting with `deal`
 * ({id, name}, or null), shown and kept as it is when `fixed`. */
function pickIn(t, form, contact, deal, fixed) {
	pickers.set(form, t.ctx.ui.pickContact(form.elements.contact_id, t.ctx.api, contact));
	const field = form.elements.opportunity_id;
	if (!field)
		return;
	if (fixed) {
		field.value = deal.name;
		field.readOnly = true;
		field.type = 'text';
		dealPickers.set(form, () => deal.id);
		return;
	}
	dealPickers.set(form, t.ctx.ui.suggest(field, (q) => findDeals(t.ctx, q),
		deal ? { label: deal.name, value: deal.id } : undefined));
}

/* The open deals whose name (or contact's) holds `q`, a few of each
 * pipeline, as a picker offers them. */
async function findDeals(ctx, q) {
	const pipelines = (await ctx.api.get('/api/pipelines')).data || [];
	const boards = await Promise.all(pipelines.map((p) => ctx.api.get('/api/opportunities',
		{ pipeline: p.id, q, per_stage: 5 })));
	return boards.flatMap((b) => (b.data || []).map((d) => ({
		label: d.contact_name ? d.name + ' (' + d.contact_name + ')' : d.name, value: d.id })));
}

/* The form's task as the API takes it; undefined after saying the typed
 * contact is none of those offered. */
function bodyOf(t, form) {
	const due = form.elements.due_at.value;
	const contact = pickers.get(form)();
	const deal = dealPickers.has(form) ? dealPickers.get(form)() : null;
	if (contact === undefined || deal === undefined) {
		t.ctx.ui.formErrors(form, { fields: contact === undefined
			? { contact_id: 'choose a contact from the list as you type' }
			: { opportunity_id: 'choose a deal from the list as you type' } });
		return undefined;
	}
	const body = {
		title: form.elements.title.value.trim(),
		due_at: due ? t.ctx.format.fromField(due) : null,
		assignee_id: form.elements.assignee_id.value ? Number(form.elements.assignee_id.value) : null,
		contact_id: contact,
		body: form.elements.body.value.trim() || null,
	};
	if (dealPickers.has(form))
		body.opportunity_id = deal;
	return body;
}

function closeNew(t) {
	t.el.newForm.hidden = true;
	t.el.newButton.setAttribute('aria-expanded', 'false');
}

/* The new task's form, opened and closed by the button at the top. */
export function newTask(t) {
	const { ctx, el } = t;
	const toggle = () => {
		const open = el.newForm.hidden;
		el.newForm.hidden = !open;
		el.newButton.setAttribute('aria-expanded', String(open));
		if (!open)
			return;
		el.newForm.textContent = '';
		el.newForm.append(fields(t, { assignee_id: t.me }), ctx.html`<div class="t-form-actions">
			<button type="submit" class="btn btn-primary">Add task</button>
			<button type="button" class="btn" data-cancel>Cancel</button></div>`);
		if (t.deal)
			pickIn(t, el.newForm, t.deal.contact_id ? { id: t.deal.contact_id, first_name: t.deal.contact_name } : null,
				t.deal, true);
		else
			pickIn(t, el.newForm, t.about && String(t.about.id) === t.filters.contact ? t.about : null);
		el.newForm.elements.title.focus();
	};
	el.newButton.addEventListener('click', toggle);
	if (ctx.query.get('new') === '1')
		toggle();
	el.newForm.addEventListener('click', (e) => {
		if (e.target.closest('[data-cancel]')) {
			closeNew(t);
			el.newButton.focus();
		}
	});
	el.newForm.addEventListener('submit', (e) => {
		e.preventDefault();
		add(t);
	});
}

async function add(t) {
	const { ctx, el } = t;
	ctx.ui.clearErrors(el.newForm);
	const body = bodyOf(t, el.newForm);
	if (!body)
		return;
	if (!body.title) {
		ctx.ui.formErrors(el.newForm, { fields: { title: 'a task needs a title' } });
		return;
	}
	for (const k of Object.keys(body)) {
		if (body[k] === null)
			delete body[k];
	}
	try {
		await ctx.api.post('/api/tasks', body);
	} catch (err) {
		if (!ctx.signal.aborted)
			ctx.ui.formErrors(el.newForm, err);
		return;
	}
	closeNew(t);
	ctx.ui.toast('Task “' + body.title + '” added.', { kind: 'success' });
	if (t.deal && ctx.query.get('new') === '1')
		return ctx.navigate(ctx.href('/opportunities/' + t.deal.id)); /* back where it was asked for */
	await t.reload();
	el.newButton.focus();
}

/* A task's title opens its form in place, or closes it. */
export function editing(t) {
	t.el.list.addEventListener('click', (e) => {
		const title = e.target.closest('.t-title');
		if (!title)
			return;
		const li = title.closest('.t-row');
		const open = li.querySelector('.t-edit');
		if (open) {
			open.remove();
			title.setAttribute('aria-expanded', 'false');
		} else {
			edit(t, li);
		}
	});
}

/* Opens task row `li` for editing; also the page's task at /tasks/:id. */
export function edit(t, li) {
	const { ctx } = t;
	const task = t.tasks.get(Number(li.dataset.id));
	const form = ctx.html`<form class="t-edit" novalidate aria-label="${'Edit task ' + task.title}">
		${fields(t, task)}
		<div class="t-form-actions"><button type="submit" class="btn btn-primary">Save changes</button>
			<button type="button" class="btn" data-cancel>Cancel</button>
			<button type="button" class="btn btn-danger" data-delete>Delete task</button></div></form>`.firstElementChild;
	form.elements.body.value = task.body || '';
	li.querySelector('.t-title').setAttribute('aria-expanded', 'true');
	li.append(form);
	pickIn(t, form, task.contact_id ? { id: task.contact_id, first_name: task.contact_name } : null,
		task.opportunity_id ? { id: task.opportunity_id, name: t.dealName(task.opportunity_id) } : null);
	form.elements.title.focus();
	form.addEventListener('click', (e) => {
		if (e.target.closest('[data-cancel]')) {
			form.remove();
			const title = li.querySelector('.t-title');
			title.setAttribute('aria-expanded', 'false');
			title.focus();
		} else if (e.target.closest('[data-delete]')) {
			remove(t, li, task);
		}
	});
	form.addEventListener('submit', async (e) => {
		e.preventDefault();
		ctx.ui.clearErrors(form);
		const body = bodyOf(t, form);
		if (!body)
			return;
		if (body.opportunity_id === task.opportunity_id) /* kept: a deal of someone else's stays */
			delete body.opportunity_id;
		let now;
		try {
			now = await ctx.api.patch('/api/tasks/' + task.id, body);
		} catch (err) {
			if (!ctx.signal.aborted)
				ctx.ui.formErrors(form, err);
			return;
		}
		Object.assign(task, now);
		const fresh = t.row(task);
		li.replaceWith(fresh);
		fresh.querySelector('.t-title').focus();
		ctx.ui.toast('Changes saved.', { kind: 'success' });
	});
}

async function remove(t, li, task) {
	const { ctx } = t;
	try {
		await ctx.api.del('/api/tasks/' + task.id);
	} catch (err) {
		if (!ctx.signal.aborted)
			ctx.ui.toast('The task could not be deleted: ' + err.message, { kind: 'error' });
		return;
	}
	t.tasks.delete(task.id);
	li.remove();
	ctx.ui.toast('Task “' + task.title + '” deleted.', { kind: 'success' });
	t.el.newButton.focus();
}

// SPDX-License-Identifier: MIT
/*
 * tasks.js: the tasks page (/app/tasks). Open tasks first, soonest due
 * first, then the done ones; what is due today, overdue or this week, or
 * all of it; by assignee, by contact (typed and picked, or ?contact= as a
 * contact's page links here) and open or done, all kept in the URL. A
 * task is done or open again with one click on its box (shown at once,
 * put back with a message when the server refuses); its title opens it for editing in place; a new one
 * is made in the form at the top. Pages of the list come as the end of it
 * comes into view.
 *
 * Every title, note and name is put in as text (ctx.html, textContent).
 */

const DUES = [['', 'All'], ['today', 'Today'], ['overdue', 'Overdue'], ['week', 'This week']];
const STATUSES = [['', 'Open, then done'], ['open', 'Open'], ['completed', 'Done']];
const FILTERS = ['due', 'assignee', 'contact', 'status'];

const whenFormat = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });

function when(iso) {
	const d = iso ? new Date(iso) : null;
	return d && !isNaN(d) ? whenFormat.format(d) : '';
}

/* An ISO time as a datetime-local field's value, in the browser's zone. */
function localValue(iso) {
	const d = iso ? new Date(iso) : null;
	if (!d || isNaN(d))
		return '';
	const pad = (n) => String(n).padStart(2, '0');
	return d.getFullYear() + '-' + pad(d.getMonth() + 1) + '-' + pad(d.getDate()) + 'T' +
		pad(d.getHours()) + ':' + pad(d.getMinutes());
}

export default async function page(view, ctx) {
	const { html, api, ui } = ctx;
	const me = ctx.user.id;
	let users = new Map();
	const peopleComing = api.get('/api/users').catch(() => null);
	let filters = ctx.queryOf(FILTERS);
	/* the first page as the app may have asked for it: the filters only */
	const [first] = await Promise.all([api.get('/api/tasks', filters),
		ui.stylesheet(new URL('./tasks.css', import.meta.url))]);
	let cursor = null; /* the next page's; null once every page is in */
	let seq = 0;

	ctx.title('Tasks');
	view.classList.add('tasks-page');
	view.append(html`
<div class="page-head">
	<h1>Tasks</h1>
	<p class="t-count muted" role="status"></p>
	<button type="button" class="btn btn-primary" data-new aria-expanded="false" aria-controls="t-new">New task</button>
</div>
<form class="card t-form" id="t-new" hidden novalidate aria-label="New task"></form>
<form class="t-filters" role="search" aria-label="Filter tasks">
	<fieldset class="segmented"><legend>Due</legend>
		${DUES.map((d) => html`<label><input type="radio" name="due" value="${d[0]}"
			checked="${d[0] === (filters.due || '')}"><span>${d[1]}</span></label>`)}
	</fieldset>
	<div><label for="t-assignee">Assignee</label><select id="t-assignee" name="assignee">
		<option value="">Anyone</option><option value="me">Me</option></select></div>
	<div><label for="t-status">Show</label><select id="t-status" name="status">
		${STATUSES.map((s) => html`<option value="${s[0]}" selected="${s[0] === (filters.status || '')}">${s[1]}</option>`)}</select></div>
	<div class="t-contact"><label for="t-contact">Contact</label><input id="t-contact" name="contact" type="search"
		autocomplete="off" spellcheck="false" placeholder="Any contact"></div>
</form>
<ul class="t-list"></ul>
<div class="t-more"><button type="button" class="btn" data-more hidden>Load more</button></div>`);

	const el = {
		count: view.querySelector('.t-count'),
		newButton: view.querySelector('[data-new]'),
		newForm: view.querySelector('#t-new'),
		filters: view.querySelector('.t-filters'),
		assignee: view.querySelector('#t-assignee'),
		status: view.querySelector('#t-status'),
		contact: view.querySelector('#t-contact'),
		list: view.querySelector('.t-list'),
		more: view.querySelector('[data-more]'),
	};
	if (filters.assignee && filters.assignee !== 'me')
		el.assignee.append(html`<option value="${filters.assignee}">${'User ' + filters.assignee}</option>`);
	el.assignee.value = filters.assignee || '';
	const tasks = new Map(); /* id -> task */

	function nameOf(id) {
		const u = users.get(id);
		return u ? u.name + (id === me ? ' (you)' : '') : id ? 'User ' + id : '';
	}

	function row(t) {
		const done = t.status === 'completed';
		const overdue = !done && t.due_at && Date.parse(t.due_at) < Date.now();
		const li = html`<li class="${'t-row' + (done ? ' is-done' : '')}" data-id="${t.id}">
			<label class="t-box"><input type="checkbox" checked="${done}"><span class="visually-hidden">${'Done: ' + t.title}</span></label>
			<div class="t-main">
				<button type="button" class="t-title" aria-expanded="false">${t.title}</button>
				<p class="t-meta">
					${t.due_at ? html`<span class="${overdue ? 't-due is-overdue' : 't-due'}">${(overdue ? 'Overdue: ' : 'Due ') + when(t.due_at)}</span>` : ''}
					${t.contact_id ? html`<a href="${'/app/contacts/' + t.contact_id + (ctx.location ? '?location=' + ctx.location.id : '')}">${t.contact_name || 'Contact ' + t.contact_id}</a>` : ''}
					${t.assignee_id ? html`<span class="t-assignee">${nameOf(t.assignee_id)}</span>` : ''}
				</p>
			</div></li>`.firstElementChild;
		return li;
	}

	/* Puts a page of the list in (after what is there, or instead). */
	function show(answer, replace) {
		if (replace) {
			el.list.textContent = '';
			tasks.clear();
		}
		for (const t of answer.data || []) {
			tasks.set(t.id, t);
			el.list.append(row(t));
		}
		cursor = answer.next_cursor || null;
		el.more.hidden = !cursor;
		const n = tasks.size;
		el.count.textContent = n === 0 ? 'No tasks' : n + (cursor ? '+' : '') + (n === 1 ? ' task' : ' tasks');
		if (!n)
			el.list.append(html`<li class="t-empty muted">${filters.due || filters.assignee || filters.contact || filters.status
				? 'No task matches these filters.' : 'No tasks yet: add the first with “New task”.'}</li>`);
	}

	/* ---- filters ---- */

	async function reload() {
		const mine = ++seq;
		const form = el.filters;
		ctx.setQuery({
			due: form.elements.due.value, assignee: el.assignee.value,
			contact: filters.contact, status: el.status.value,
		});
		filters = ctx.queryOf(FILTERS);
		el.list.setAttribute('aria-busy', 'true');
		try {
			const answer = await api.get('/api/tasks', filters);
			if (mine === seq && !ctx.signal.aborted)
				show(answer, true);
		} catch (e) {
			if (mine === seq && !ctx.signal.aborted)
				ui.toast('The tasks could not be loaded: ' + e.message, { kind: 'error' });
		} finally {
			if (mine === seq)
				el.list.removeAttribute('aria-busy');
		}
	}

	let asking = false;

	async function more() {
		const mine = seq;
		if (!cursor || asking)
			return;
		asking = true;
		try {
			const answer = await api.get('/api/tasks', Object.assign({}, filters, { cursor }));
			if (mine === seq && !ctx.signal.aborted)
				show(answer, false);
		} catch (e) {
			if (!ctx.signal.aborted)
				ui.toast('More tasks could not be loaded: ' + e.message, { kind: 'error' });
		} finally {
			asking = false;
		}
	}

	el.filters.addEventListener('submit', (e) => e.preventDefault());
	el.filters.addEventListener('change', (e) => {
		if (e.target !== el.contact) /* picked as it is typed, below */
			reload();
	});
	el.more.addEventListener('click', more);
	const seen = 'IntersectionObserver' in window ? new IntersectionObserver((entries) => {
		if (entries.some((e) => e.isIntersecting) && !el.more.hidden)
			more();
	}, { rootMargin: '300px' }) : null;
	if (seen)
		seen.observe(el.more);

	/* ---- done and open again ---- */

	el.list.addEventListener('change', async (e) => {
		const box = e.target;
		const li = box.closest('.t-row');
		if (!li || box.type !== 'checkbox')
			return;
		const t = tasks.get(Number(li.dataset.id));
		const done = box.checked;
		li.classList.toggle('is-done', done);
		try {
			const now = await api.post('/api/tasks/' + t.id + (done ? '/complete' : '/reopen'));
			Object.assign(t, now || { status: done ? 'completed' : 'open' });
			ui.toast((done ? 'Done: ' : 'Open again: ') + t.title, { kind: 'success' });
		} catch (err) {
			if (ctx.signal.aborted)
				return;
			box.checked = !done;
			li.classList.toggle('is-done', !done);
			ui.toast('The task “' + t.title + '” could not be changed: ' + err.message, { kind: 'error' });
		}
	});

	/* ---- a task's form: new, or one opened for editing ---- */

	function fields(t) {
		return html`
<div class="field"><label for="${'t-title-' + (t.id || 'new')}">Title</label>
	<input id="${'t-title-' + (t.id || 'new')}" name="title" maxlength="200" required autocomplete="off" value="${t.title || ''}"></div>
<div class="t-form-grid">
	<div class="field"><label for="${'t-due-' + (t.id || 'new')}">Due</label>
		<input id="${'t-due-' + (t.id || 'new')}" name="due_at" type="datetime-local" value="${localValue(t.due_at)}"></div>
	<div class="field"><label for="${'t-who-' + (t.id || 'new')}">Assignee</label>
		<select id="${'t-who-' + (t.id || 'new')}" name="assignee_id"><option value="">No one</option>
			${Array.from(users.values()).map((u) => html`<option value="${u.id}" selected="${u.id === t.assignee_id}">${u.name}</option>`)}</select></div>
</div>
<div class="field"><label for="${'t-body-' + (t.id || 'new')}">Notes</label>
	<textarea id="${'t-body-' + (t.id || 'new')}" name="body" rows="3" maxlength="5000"></textarea></div>`;
	}

	/* The form's task as the API takes it. */
	function bodyOf(form) {
		const due = form.elements.due_at.value;
		return {
			title: form.elements.title.value.trim(),
			due_at: due ? new Date(due).toISOString() : null,
			assignee_id: form.elements.assignee_id.value ? Number(form.elements.assignee_id.value) : null,
			body: form.elements.body.value.trim() || null,
		};
	}

	el.newButton.addEventListener('click', () => {
		const open = el.newForm.hidden;
		el.newForm.hidden = !open;
		el.newButton.setAttribute('aria-expanded', String(open));
		if (!open)
			return;
		el.newForm.textContent = '';
		el.newForm.append(fields({ assignee_id: me }), html`<div class="t-form-actions">
			<button type="submit" class="btn btn-primary">Add task</button>
			<button type="button" class="btn" data-cancel>Cancel</button></div>`);
		el.newForm.elements.title.focus();
	});
	el.newForm.addEventListener('click', (e) => {
		if (e.target.closest('[data-cancel]')) {
			el.newForm.hidden = true;
			el.newButton.setAttribute('aria-expanded', 'false');
			el.newButton.focus();
		}
	});
	el.newForm.addEventListener('submit', async (e) => {
		e.preventDefault();
		const body = bodyOf(el.newForm);
		ui.clearErrors(el.newForm);
		if (!body.title) {
			ui.formErrors(el.newForm, { fields: { title: 'a task needs a title' } });
			return;
		}
		if (filters.contact)
			body.contact_id = Number(filters.contact);
		for (const k of Object.keys(body)) {
			if (body[k] === null)
				delete body[k];
		}
		try {
			await api.post('/api/tasks', body);
		} catch (err) {
			if (!ctx.signal.aborted)
				ui.formErrors(el.newForm, err);
			return;
		}
		el.newForm.hidden = true;
		el.newButton.setAttribute('aria-expanded', 'false');
		ui.toast('Task “' + body.title + '” added.', { kind: 'success' });
		await reload();
		el.newButton.focus();
	});

	function edit(li) {
		const t = tasks.get(Number(li.dataset.id));
		const form = html`<form class="t-edit" novalidate aria-label="${'Edit task ' + t.title}">
			${fields(t)}
			<div class="t-form-actions"><button type="submit" class="btn btn-primary">Save changes</button>
				<button type="button" class="btn" data-cancel>Cancel</button>
				<button type="button" class="btn btn-danger" data-delete>Delete task</button></div></form>`.firstElementChild;
		form.elements.body.value = t.body || '';
		li.querySelector('.t-title').setAttribute('aria-expanded', 'true');
		li.append(form);
		form.elements.title.focus();
		const close = () => {
			form.remove();
			const title = li.querySelector('.t-title');
			title.setAttribute('aria-expanded', 'false');
			title.focus();
		};
		form.addEventListener('click', async (e) => {
			if (e.target.closest('[data-cancel]'))
				close();
			else if (e.target.closest('[data-delete]')) {
				try {
					await api.del('/api/tasks/' + t.id);
				} catch (err) {
					if (!ctx.signal.aborted)
						ui.toast('The task could not be deleted: ' + err.message, { kind: 'error' });
					return;
				}
				tasks.delete(t.id);
				li.remove();
				ui.toast('Task “' + t.title + '” deleted.', { kind: 'success' });
				el.newButton.focus();
			}
		});
		form.addEventListener('submit', async (e) => {
			e.preventDefault();
			ui.clearErrors(form);
			let now;
			try {
				now = await api.patch('/api/tasks/' + t.id, bodyOf(form));
			} catch (err) {
				if (!ctx.signal.aborted)
					ui.formErrors(form, err);
				return;
			}
			Object.assign(t, now);
			const fresh = row(t);
			li.replaceWith(fresh);
			fresh.querySelector('.t-title').focus();
			ui.toast('Changes saved.', { kind: 'success' });
		});
	}

	el.list.addEventListener('click', (e) => {
		const title = e.target.closest('.t-title');
		if (!title)
			return;
		const li = title.closest('.t-row');
		const open = li.querySelector('.t-edit');
		if (open) {
			open.remove();
			title.setAttribute('aria-expanded', 'false');
		} else {
			edit(li);
		}
	});

	/* ---- the people, when they come ---- */

	peopleComing.then((answer) => {
		if (!answer || ctx.signal.aborted)
			return;
		users = new Map((answer.data || []).map((u) => [u.id, u]));
		const keep = el.assignee.value;
		el.assignee.textContent = '';
		el.assignee.append(html`<option value="">Anyone</option><option value="me">Me</option>
			${Array.from(users.values()).filter((u) => u.id !== me).map((u) =>
				html`<option value="${u.id}">${u.name}</option>`)}`);
		el.assignee.value = keep;
		for (const span of el.list.querySelectorAll('.t-row')) {
			const t = tasks.get(Number(span.dataset.id));
			const a = t && span.querySelector('.t-assignee');
			if (a)
				a.textContent = nameOf(t.assignee_id);
		}
	});

	/* the contact: typed and picked, or cleared for everyone's */
	if (filters.contact) {
		const about = (first.data || []).find((t) => String(t.contact_id) === filters.contact);
		el.contact.value = about && about.contact_name ? about.contact_name : 'Contact ' + filters.contact;
	}
	const picked = ui.suggest(el.contact, async (q) => {
		const answer = await api.get('/api/contacts', { q, limit: 8 });
		return (answer.data || []).map((c) => {
			const name = [c.first_name, c.last_name].filter(Boolean).join(' ') || c.email || c.phone || 'Contact ' + c.id;
			return { label: c.email ? name + ' (' + c.email + ')' : name, value: c.id };
		});
	});
	el.contact.addEventListener('input', () => {
		const id = picked();
		const want = id === null ? '' : id === undefined ? null : String(id);
		if (want !== null && want !== (filters.contact || '')) {
			filters.contact = want;
			reload();
		}
	});

	/* Changes by others: the list asked again for as many as it shows,
	 * the focus kept on the same task, once nobody is editing one (nor
	 * opened one while the list was on its way). */
	async function changed(busy) {
		const mine = seq;
		const ask = Object.assign({}, filters, tasks.size > 50 ? { limit: Math.min(tasks.size, 1000) } : {});
		let answer;
		try {
			answer = await api.get('/api/tasks', ask);
		} catch (e) {
			return; /* the next change asks again */
		}
		if (mine !== seq || ctx.signal.aborted)
			return;
		if (busy())
			return false;
		const active = document.activeElement;
		const row = active && el.list.contains(active) && active.closest('.t-row');
		const which = row && (active.type === 'checkbox' ? 'input' : '.t-title');
		show(answer, true);
		const again = row && el.list.querySelector('.t-row[data-id="' + row.dataset.id + '"] ' + which);
		if (again)
			again.focus({ preventScroll: true });
	}
	ctx.onLive(['task.*'], ui.whenFree(view, changed, ctx.signal));

	show(first, true);
	return () => {
		if (seen)
			seen.disconnect();
	};
}

// SPDX-License-Identifier: MIT
/*
 * tasks.js: the tasks page (/app/tasks). Open tasks first, soonest due
 * first, then the done ones; what is due today, overdue or this week, or
 * all of it; by assignee, by contact (typed and picked, or ?contact= as a
 * contact's page links here), by deal (?opportunity=, as a deal's page
 * links here) and open or done, all kept in the URL. A task's row links
 * to its contact and its deal (the deal's name asked for once a page
 * shows it; none when the deal is gone). A
 * task is done or open again with one click on its box (shown at once,
 * put back with a message when the server refuses); its title opens it
 * for editing in place; a new one is made in the form at the top. Pages
 * of the list come as the end of it comes into view (ctx.ui.paged).
 * At /tasks/:id (a notification's or the header search's link) that task
 * is opened for editing at the top of the list.
 *
 * Days are the sub-account's: the server counts "today" and "this week"
 * from its midnight, and a due time is shown and typed in its time zone.
 *
 * The page is in parts, each given the page's state `t`: this file (what
 * it shows, the list and its filters, changes made elsewhere) and
 * tasks-form.js (a task's form: a new one, and one opened for editing).
 *
 * Every title, note and name is put in as text (ctx.html, textContent).
 */
import { edit, editing, newTask } from './tasks-form.js';

const DUES = [['', 'All'], ['today', 'Today'], ['overdue', 'Overdue'], ['week', 'This week']];
const STATUSES = [['', 'Open, then done'], ['open', 'Open'], ['completed', 'Done']];
const FILTERS = ['due', 'assignee', 'contact', 'status', 'opportunity'];

export default async function page(view, ctx) {
	const { api, ui } = ctx;
	const peopleComing = ui.people(api);
	const filters = ctx.queryOf(FILTERS);
	const first = api.list('/api/tasks', filters);
	const one = ctx.params.id ? api.get('/api/tasks/' + encodeURIComponent(ctx.params.id)) : null;
	const [rows, , task, about, deal] = await Promise.all([first.next(),
		ui.stylesheet(new URL('./tasks.css', import.meta.url)), one, ui.contactAsked(api, ctx.query), dealAsked(ctx)]);
	ctx.title('Tasks');
	view.classList.add('tasks-page');
	/* t: the page's state, which each part is given */
	const t = {
		ctx, view, filters, me: ctx.user.id,
		about, /* the contact of ?contact=, for a new task's form */
		deal, /* the deal of ?opportunity=, the list's and a new task's */
		el: frame(view, ctx, filters, deal),
		deals: new Map(deal ? [[deal.id, deal.name]] : []), /* id -> its name, or a promise of it */
		users: new Map(),
		tasks: new Map(), /* id -> task */
	};
	t.list = ui.paged({
		more: t.el.more, what: 'The tasks', signal: ctx.signal,
		open: () => api.list('/api/tasks', t.filters),
		draw: (page, pager, fresh) => show(t, page, pager, fresh),
	});
	t.row = (task) => row(t, task);
	t.dealName = (id) => (typeof t.deals.get(id) === 'string' ? t.deals.get(id) : 'Deal ' + id);
	t.reload = () => reload(t);
	filtering(t, rows);
	toggling(t);
	newTask(t);
	editing(t);
	following(t);
	t.list.begin(first, rows);
	peopleComing.then((people) => {
		gotPeople(t, people);
		if (task && !ctx.signal.aborted)
			opened(t, task);
	});
	return t.list.stop;
}

/* The deal of ?opportunity=ID, as the API has it; null when none is
 * named, the server keeps no deals, or it cannot be read. */
async function dealAsked(ctx) {
	const id = ctx.query.get('opportunity') || '';
	if (!/^[1-9]\d{0,17}$/.test(id) || !ctx.offers('/opportunities'))
		return null;
	return ctx.api.get('/api/opportunities/' + id).catch(() => null);
}

function frame(view, ctx, filters, deal) {
	const { html } = ctx;
	view.append(html`
<div class="page-head">
	<h1>Tasks</h1>
	<p class="t-count muted" role="status"></p>
	<button type="button" class="btn btn-primary" data-new aria-expanded="false" aria-controls="t-new">New task</button>
</div>
${filters.opportunity ? html`<p class="t-of">${'Tasks of the deal '}<a href="${ctx.href('/opportunities/' + filters.opportunity)}">${deal ? deal.name : 'Deal ' + filters.opportunity}</a>
	· <a href="${ctx.href('/tasks')}">All tasks</a></p>` : ''}
<form class="card t-form" id="t-new" hidden novalidate aria-label="New task"></form>
<form class="t-filters" role="search" aria-label="Filter tasks">
	<fieldset class="segmented"><legend>Due</legend>
		${DUES.map((d) => html`<label><input type="radio" name="due" value="${d[0]}"
			checked="${d[0] === (filters.due || '')}"><span>${d[1]}</span></label>`)}
	</fieldset>
	<div><label for="t-assignee">Assignee</label><select id="t-assignee" name="assignee"></select></div>
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
	ctx.ui.pickPerson(el.assignee, null, ctx.user.id, filters.assignee);
	return el;
}

/* ---- the list ---- */

function nameOf(t, id) {
	const u = t.users.get(id);
	return u ? u.name + (id === t.me ? ' (you)' : '') : id ? 'User ' + id : '';
}

function row(t, task) {
	const { ctx } = t;
	const { html } = ctx;
	const done = task.status === 'completed';
	const overdue = !done && task.due_at && Date.parse(task.due_at) < Date.now();
	return html`<li class="${'t-row' + (done ? ' is-done' : '')}" data-id="${task.id}">
		<label class="t-box"><input type="checkbox" checked="${done}"><span class="visually-hidden">${'Done: ' + task.title}</span></label>
		<div class="t-main">
			<button type="button" class="t-title" aria-expanded="false">${task.title}</button>
			<p class="t-meta">
				${task.due_at ? html`<span class="${overdue ? 't-due is-overdue' : 't-due'}">${(overdue ? 'Overdue: ' : 'Due ') + due(ctx.format, task.due_at)}</span>` : ''}
				${task.contact_id ? html`<a href="${ctx.href('/contacts/' + task.contact_id)}">${task.contact_name || 'Contact ' + task.contact_id}</a>` : ''}
				${task.opportunity_id ? html`<a class="t-deal" data-deal="${task.opportunity_id}" href="${ctx.href('/opportunities/' + task.opportunity_id)}">${t.dealName(task.opportunity_id)}</a>` : ''}
				${task.assignee_id ? html`<span class="t-assignee">${nameOf(t, task.assignee_id)}</span>` : ''}
			</p>
		</div></li>`.firstElementChild;
}

/* The page's task (/tasks/:id) open for editing, first in the list. */
function opened(t, task) {
	let li = t.el.list.querySelector('.t-row[data-id="' + task.id + '"]');
	if (!li) {
		t.tasks.set(task.id, task);
		li = t.row(task);
	}
	t.el.list.prepend(li);
	t.ctx.title(task.title);
	if (!li.querySelector('.t-edit'))
		edit(t, li);
}

/* When a task is due, the day said in words when it is today or
 * tomorrow in the sub-account. */
function due(f, iso) {
	const day = f.dayKey(iso);
	const words = day === f.dayKey(f.days(0, 1)[0]) ? 'today' : day === f.dayKey(f.days(1, 1)[0]) ? 'tomorrow' : null;
	return words ? words + ' ' + f.time(iso) : f.dayShort(iso) + ', ' + f.time(iso);
}

/* A page of the list put in (after what is there, or instead). */
function show(t, rows, pager, fresh) {
	const { el, filters } = t;
	if (fresh) {
		el.list.textContent = '';
		t.tasks.clear();
	}
	for (const task of rows) {
		t.tasks.set(task.id, task);
		el.list.append(row(t, task));
	}
	nameDeals(t, rows);
	const n = t.tasks.size;
	el.count.textContent = n === 0 ? 'No tasks' : n + (pager.done ? '' : '+') + (n === 1 ? ' task' : ' tasks');
	if (!n)
		el.list.append(t.ctx.html`<li class="t-empty muted">${filters.due || filters.assignee || filters.contact || filters.status || filters.opportunity
			? 'No task matches these filters.' : 'No tasks yet: add the first with “New task”.'}</li>`);
}

/* The names of the deals `rows` link to, asked for once each (a page
 * holds a few) and put in their links as they come. */
function nameDeals(t, rows) {
	const { ctx } = t;
	for (const id of new Set(rows.map((r) => r.opportunity_id).filter(Boolean))) {
		if (t.deals.has(id))
			continue;
		const links = () => t.el.list.querySelectorAll('.t-deal[data-deal="' + id + '"]');
		t.deals.set(id, ctx.api.get('/api/opportunities/' + id).then((d) => {
			t.deals.set(id, d.name);
			for (const a of links())
				a.textContent = d.name;
		}, (e) => {
			t.deals.delete(id);
			if (e.status === 404) /* deleted this moment: its tasks are being let go */
				links().forEach((a) => a.remove());
		}));
	}
}

/* ---- filters ---- */

async function reload(t) {
	const { ctx, el } = t;
	ctx.setQuery({
		due: el.filters.elements.due.value, assignee: el.assignee.value,
		contact: t.filters.contact, status: el.status.value, opportunity: t.filters.opportunity,
	});
	t.filters = ctx.queryOf(FILTERS);
	el.list.setAttribute('aria-busy', 'true');
	await t.list.restart();
	el.list.removeAttribute('aria-busy');
}

/* The filters: the list follows each change; the contact is typed and
 * picked, or cleared for everyone's. */
function filtering(t, rows) {
	const { ctx, el } = t;
	el.filters.addEventListener('submit', (e) => e.preventDefault());
	el.filters.addEventListener('change', (e) => {
		if (e.target !== el.contact) /* picked as it is typed, below */
			reload(t);
	});
	if (t.filters.contact) {
		const about = rows.find((task) => String(task.contact_id) === t.filters.contact);
		el.contact.value = about && about.contact_name ? about.contact_name : 'Contact ' + t.filters.contact;
	}
	const picked = ctx.ui.pickContact(el.contact, ctx.api);
	el.contact.addEventListener('input', () => {
		const id = picked();
		const want = id === null ? '' : id === undefined ? null : String(id);
		if (want !== null && want !== (t.filters.contact || '')) {
			t.filters.contact = want;
			reload(t);
		}
	});
}

/* A task done, or open again, with one click on its box. */
function toggling(t) {
	const { ctx, el } = t;
	el.list.addEventListener('change', async (e) => {
		const box = e.target;
		const li = box.closest('.t-row');
		if (!li || box.type !== 'checkbox')
			return;
		const task = t.tasks.get(Number(li.dataset.id));
		const done = box.checked;
		li.classList.toggle('is-done', done);
		try {
			const now = await ctx.api.post('/api/tasks/' + task.id + (done ? '/complete' : '/reopen'));
			Object.assign(task, now || { status: done ? 'completed' : 'open' });
			ctx.ui.toast((done ? 'Done: ' : 'Open again: ') + task.title, { kind: 'success' });
		} catch (err) {
			if (ctx.signal.aborted)
				return;
			box.checked = !done;
			li.classList.toggle('is-done', !done);
			ctx.ui.toast('The task “' + task.title + '” could not be changed: ' + err.message, { kind: 'error' });
		}
	});
}

/* The people, when they come: the assignee filter and the names. */
function gotPeople(t, people) {
	if (!people || t.ctx.signal.aborted)
		return;
	t.users = people;
	t.ctx.ui.pickPerson(t.el.assignee, people, t.me);
	for (const li of t.el.list.querySelectorAll('.t-row')) {
		const task = t.tasks.get(Number(li.dataset.id));
		const a = task && li.querySelector('.t-assignee');
		if (a)
			a.textContent = nameOf(t, task.assignee_id);
	}
}

/* Changes by others: the list asked again for as many as it shows, the
 * focus kept on the same task, once nobody is editing one (nor opened one
 * while the list was on its way). */
function following(t) {
	const { ctx, el } = t;
	async function changed(busy) {
		const filters = t.filters;
		const pager = ctx.api.list('/api/tasks', filters);
		let rows;
		try {
			rows = await pager.next(t.tasks.size > 50 ? { limit: Math.min(t.tasks.size, 1000) } : null);
		} catch (e) {
			return; /* the next change asks again */
		}
		if (ctx.signal.aborted || filters !== t.filters) /* filtered meanwhile: that answer is shown */
			return;
		if (busy())
			return false;
		const active = document.activeElement;
		const li = active && el.list.contains(active) && active.closest('.t-row');
		const which = li && (active.type === 'checkbox' ? 'input' : '.t-title');
		t.list.begin(pager, rows);
		const again = li && el.list.querySelector('.t-row[data-id="' + li.dataset.id + '"] ' + which);
		if (again)
			again.focus({ preventScroll: true });
	}
	ctx.onLive(['task.*'], ctx.ui.whenFree(t.view, changed, ctx.signal));
}

// SPDX-License-Identifier: MIT
/*
 * deal-notes.js: what a deal's page (deal.js) shows below its facts: its
 * notes (newest first, older ones a page at a time, one added at the top,
 * one deleted), its own tasks, when the server keeps tasks (open ones
 * first, then the done ones; a New task that starts with the deal and its
 * contact; asked again when a task changes) and its history (what happened to it, newest
 * first; a line added while the page is open, deal_history.added on the
 * live channel, shows at once). Built once and kept when the page above
 * it is drawn again after a change.
 */

const PAGE = 20;

/* The cards' frame; `s` is deal.js's state. Returns the element. */
export function dealMore(s) {
	const { ctx } = s;
	const { html } = ctx;
	const el = html`<div class="d-grid d-more">
<div>
	<section class="card" aria-labelledby="d-notes-h">
		<h2 id="d-notes-h">Notes</h2>
		<form class="d-note-form" novalidate>
			<div class="field"><label for="d-note">New note</label>
				<textarea id="d-note" name="body" rows="3" maxlength="10000"></textarea></div>
			<button type="submit" class="btn btn-primary">Add note</button>
		</form>
		<ul class="d-notes" aria-label="Notes on this deal"></ul>
		<p><button type="button" class="btn" data-notes-more hidden>Show older notes</button></p>
	</section>
	<section class="card" aria-labelledby="d-tasks-h" data-tasks hidden>
		<h2 id="d-tasks-h">Tasks</h2>
		<ul class="d-tasks"></ul>
		<p class="d-actions"><a class="btn" data-new-task>New task</a></p>
	</section>
</div>
<section class="card" aria-labelledby="d-history-h">
	<h2 id="d-history-h">History</h2>
	<ol class="d-history" aria-label="What happened to this deal, newest first"></ol>
	<p><button type="button" class="btn" data-history-more hidden>Show older</button></p>
</section>
</div>`.firstElementChild;
	notes(s, el);
	history(s, el);
	tasks(s, el);
	return el;
}

function noteItem(ctx, n) {
	const li = ctx.html`<li class="d-note" data-id="${n.id}">
		<p class="d-note-body"></p>
		<div class="d-note-meta"><time class="muted" datetime="${n.created_at}">${ctx.format.moment(n.created_at)}</time>
			<button type="button" class="btn btn-quiet btn-small" data-delete-note>Delete note</button></div>
	</li>`.firstElementChild;
	li.querySelector('.d-note-body').textContent = n.body;
	return li;
}

function notes(s, el) {
	const { ctx } = s;
	const list = el.querySelector('.d-notes');
	const form = el.querySelector('.d-note-form');
	const open = () => ctx.api.list(s.path + '/notes', { limit: PAGE });
	const pages = ctx.ui.paged({
		more: el.querySelector('[data-notes-more]'), what: 'The older notes', signal: ctx.signal, scroll: false,
		open,
		draw: (rows, pager, fresh) => {
			if (fresh)
				list.textContent = '';
			list.append(ctx.html`${rows.map((n) => noteItem(ctx, n))}`);
		},
	});
	pages.restart();
	form.addEventListener('submit', async (e) => {
		e.preventDefault();
		const area = form.elements.body;
		if (!area.value.trim())
			return area.focus();
		ctx.ui.clearErrors(form);
		try {
			list.prepend(noteItem(ctx, await ctx.api.post(s.path + '/notes', { body: area.value })));
			area.value = '';
		} catch (err) {
			if (!ctx.signal.aborted)
				ctx.ui.formErrors(form, err);
		}
	});
	list.addEventListener('click', async (e) => {
		const b = e.target.closest && e.target.closest('[data-delete-note]');
		if (!b)
			return;
		const li = b.closest('li');
		try {
			await ctx.api.del(s.path + '/notes/' + encodeURIComponent(li.dataset.id));
		} catch (err) {
			ctx.ui.toast('The note could not be deleted: ' + err.message, { kind: 'error' });
			return;
		}
		li.remove();
		form.elements.body.focus();
	});
}

function history(s, el) {
	const { ctx } = s;
	const { html } = ctx;
	const list = el.querySelector('.d-history');
	const pages = ctx.ui.paged({
		more: el.querySelector('[data-history-more]'), what: 'The deal\'s history', signal: ctx.signal, scroll: false,
		open: () => ctx.api.list(s.path + '/history', { limit: PAGE }),
		draw: (rows, pager, fresh) => {
			if (fresh)
				list.textContent = '';
			list.append(html`${rows.map((h) => html`<li><span>${h.line}</span>
				<time class="muted" datetime="${h.at}">${ctx.format.moment(h.at)}</time></li>`)}`);
		},
	});
	pages.restart();
	ctx.onLive(['deal_history.added'], (events) => {
		if (events.some((e) => e.type === 'reload' || String(e.id) === String(s.d.id)))
			pages.restart();
	});
}

/* The deal's own tasks, when the server keeps tasks: open ones first,
 * then the done ones, each linking to the deal's list of tasks. */
function tasks(s, el) {
	const { ctx } = s;
	const card = el.querySelector('[data-tasks]');
	if (!ctx.offers('/tasks'))
		return;
	const of = '/tasks?opportunity=' + encodeURIComponent(s.d.id);
	card.querySelector('[data-new-task]').href = ctx.href(of + '&new=1');
	card.hidden = false;
	const show = async () => {
		let answer;
		try {
			answer = await ctx.api.get('/api/tasks', { opportunity: s.d.id, limit: 20 });
		} catch {
			return;
		}
		card.querySelector('.d-tasks').replaceChildren(taskItems(ctx, answer.data, of));
	};
	show();
	ctx.onLive(['task.*'], show);
}

function taskItems(ctx, rows, of) {
	const { html } = ctx;
	if (!rows.length)
		return html`<li class="muted">No tasks for this deal yet.</li>`;
	return html`${rows.map((t) => html`<li class="${t.status === 'completed' ? 'd-task is-done' : 'd-task'}">
		<a href="${ctx.href(of)}">${t.title}</a>
		${t.status === 'completed' ? html`<span class="muted"> done</span>`
			: t.due_at ? html`<span class="muted">${' due ' + ctx.format.day(t.due_at)}</span>` : ''}</li>`)}`;
}

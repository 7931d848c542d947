// SPDX-License-Identifier: MIT
/*
 * board-columns.js: the board's columns and their cards (board.js's `b`
 * passed in). Each stage is a column with its count and value; it holds
 * the deals the server sent of it (col.list), draws them in batches as it
 * is scrolled, and asks for its next page (a pager over the stage's
 * cursor) once it has drawn what it holds. The figures are the server's,
 * moved by the moves made here (board-moves.js).
 */

export const FILTERS = ['pipeline', 'status', 'owner', 'q'];
const BATCH = 40;          /* cards drawn at a time in a column */
const PAGE = 50;           /* deals asked for at a time as a column is scrolled */

/* The board drawn anew from b.data. */
export function draw(b) {
	const { ctx, el, data } = b;
	b.drawn++;
	el.pipeline.value = String(data.pipeline ? data.pipeline.id : '');
	el.newDeal.href = ctx.href('/opportunities/new' + (data.pipeline ? '?pipeline=' + data.pipeline.id : ''));
	b.columns.clear();
	b.deals.clear();
	el.board.textContent = '';
	const byStage = new Map((data.stages || []).map((s) => [s.id, []]));
	for (const d of data.data || []) {
		b.deals.set(d.id, d);
		const list = byStage.get(d.stage_id);
		if (list)
			list.push(d);
	}
	for (const stage of data.stages || [])
		el.board.append(column(b, stage, byStage.get(stage.id)));
	/* A new sub-account has no pipeline: it is told so, not that its
	 * pipeline has no stages, and where to make one. */
	const pipelines = ctx.href('/opportunities/pipelines');
	if (!data.pipeline)
		el.board.append(ctx.html`<p class="b-none">No pipeline yet. <a href="${pipelines}">Add the first one</a>, with its stages, and deals can go on it.</p>`);
	else if (!(data.stages || []).length)
		el.board.append(ctx.html`<p class="b-none">This pipeline has no stages yet. <a href="${pipelines}">Add its stages</a>.</p>`);
	totals(b);
	const first = el.board.querySelector('.b-card');
	if (first)
		first.tabIndex = 0;
}

/* A stage's column: `list` the deals it holds (of `count` on the server,
 * worth `value`); `next` says the server holds more, which `pager` brings. */
function column(b, stage, list) {
	const { ctx } = b;
	const col = {
		stage, list, drawn: 0, count: stage.count, value: stage.value_cents,
		next: !!stage.next_cursor, loading: null,
		pager: stage.next_cursor ? ctx.api.list('/api/opportunities', Object.assign(ctx.queryOf(FILTERS), {
			pipeline: b.data.pipeline.id, stage: stage.id, cursor: stage.next_cursor, per_stage: PAGE,
		})) : null,
		el: ctx.html`<section class="b-col" data-stage="${stage.id}" aria-labelledby="${'b-st-' + stage.id}">
			<header class="b-col-head"><h2 id="${'b-st-' + stage.id}">${stage.name}</h2>
			<p class="b-col-sum"></p></header>
			<ol class="b-cards" aria-labelledby="${'b-st-' + stage.id}"></ol></section>`.firstElementChild,
	};
	col.cards = col.el.querySelector('.b-cards');
	col.cards.addEventListener('scroll', (e) => scrolled(b, e), { passive: true });
	col.sum = col.el.querySelector('.b-col-sum');
	b.columns.set(stage.id, col);
	drawSome(b, col);
	return col.el;
}

/* Draws the column's next batch of the cards it holds. */
export function drawSome(b, col) {
	const next = col.list.slice(col.drawn, col.drawn + BATCH);
	for (const d of next)
		col.cards.append(card(b, d));
	col.drawn += next.length;
}

/* The column read further: its next batch drawn, or its next page asked
 * for once all it holds are drawn. */
export function more(b, col) {
	drawSome(b, col);
	if (col.drawn === col.list.length && col.next)
		nextPage(b, col);
}

/* The column's next page from the server, added to what it holds (less
 * any deal it holds already: one moved in meanwhile) and drawn. A board
 * drawn again meanwhile has asked for its own. */
export function nextPage(b, col) {
	const { ctx } = b;
	if (col.loading)
		return col.loading;
	const drawing = b.drawn;
	col.el.setAttribute('aria-busy', 'true');
	col.loading = col.pager.next().then((rows) => {
		if (drawing !== b.drawn || ctx.signal.aborted)
			return;
		for (const d of rows)
			if (!b.deals.has(d.id)) {
				b.deals.set(d.id, d);
				col.list.push(d);
			}
		col.next = !col.pager.done;
		if (col.drawn < col.list.length)
			drawSome(b, col);
	}, (e) => {
		if (drawing === b.drawn && !ctx.signal.aborted)
			ctx.ui.toast('More deals of ' + col.stage.name + ' could not be loaded: ' + e.message,
				{ kind: 'error' });
	}).finally(() => {
		col.loading = null;
		col.el.removeAttribute('aria-busy');
	});
	return col.loading;
}

/* A column scrolled near its end draws its next batch. */
function scrolled(b, e) {
	const list = e.target;
	if (list.scrollTop + list.clientHeight < list.scrollHeight - 600)
		return;
	const col = b.columns.get(Number(list.closest('.b-col').dataset.stage));
	if (col && (col.drawn < col.list.length || col.next))
		more(b, col);
}

export function initials(name) {
	const parts = String(name || '?').trim().split(/\s+/);
	return (parts[0].charAt(0) + (parts.length > 1 ? parts[parts.length - 1].charAt(0) : '')).toUpperCase();
}

/* Initials in a circle, named for a screen reader; nothing until the
 * names are in. */
function ownerBadge(b, d) {
	const owner = d.owner_id ? b.users.get(d.owner_id) : null;
	if (!owner)
		return '';
	const name = owner.name + (d.owner_id === b.me ? ' (you)' : '');
	return b.ctx.html`<span class="b-card-owner" title="${'Owner: ' + name}"><span aria-hidden="true">${initials(owner.name)}</span><span class="visually-hidden">${'Owner: ' + name}</span></span>`;
}

/* The owners' badges, once the people's names are in (b.users). */
export function addOwners(b) {
	for (const li of b.el.board.querySelectorAll('.b-card')) {
		const d = b.deals.get(Number(li.dataset.id));
		if (d && d.owner_id && !li.querySelector('.b-card-owner'))
			li.querySelector('.b-card-age').before(ownerBadge(b, d));
	}
}

function card(b, d) {
	const { ctx } = b;
	const f = ctx.format;
	return ctx.html`<li class="b-card" data-id="${d.id}" tabindex="-1">
		<a class="b-card-name" href="${ctx.href('/opportunities/' + d.id)}" tabindex="-1" draggable="false">${d.name}</a>
		<span class="b-card-contact">${d.contact_name || 'No contact'}</span>
		<span class="b-card-foot">
			<span class="b-card-value">${f.money(d.value_cents)}</span>
			${ownerBadge(b, d)}
			<span class="b-card-age" title="${'Created ' + f.day(d.created_at)}">${f.age(d.created_at)}</span>
		</span></li>`.firstElementChild;
}

/* Each column's count and value as the server counts them (moved by the
 * moves made here), and the board's; for open deals also the forecast,
 * each stage's value weighted by its win probability, once the pipeline's
 * stages have probabilities to weigh by. */
export function totals(b) {
	const f = b.ctx.format;
	let n = 0;
	let value = 0;
	let weighted = 0;
	let weighs = false;
	for (const col of b.columns.values()) {
		col.sum.textContent = f.plural(col.count, 'deal', 'deals') + ' · ' + f.money(col.value);
		n += col.count;
		value += col.value;
		weighted += col.value * col.stage.probability / 100;
		weighs = weighs || col.stage.probability > 0;
	}
	const forecast = weighs && (b.el.status.value || 'open') === 'open';
	b.el.sum.textContent = f.plural(n, 'deal', 'deals') + ' · ' + f.money(value) +
		(forecast ? ' · ' + f.money(Math.round(weighted)) + ' weighted' : '');
}

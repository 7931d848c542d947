// SPDX-License-Identifier: MIT
/*
 * board.js: the opportunities pages. The shell opens this one module for
 * /app/opportunities (a pipeline's board), /app/opportunities/new and
 * /app/opportunities/:id (a deal: deal.js) and
 * /app/opportunities/pipelines (pipelines.js, where pipelines and their
 * stages are kept), each imported when first needed and given the
 * helpers it shares with the board as `lib`.
 *
 * The board: the pipeline's stages as columns with their count and value,
 * its deals as cards (name, contact, value, owner, age), filtered by
 * pipeline, status, owner and a search, all kept in the URL. A card moves
 * by drag and drop (a mouse at once, a finger after a short press) or by
 * keyboard (Space picks it up, the arrow keys carry it, Space drops it,
 * Escape puts it back); the move shows at once and is undone, with a
 * message, when the server refuses it. The server sends each column's
 * first page of deals with the column's count and value; a column draws
 * its cards in batches as it is scrolled and asks for its next page when
 * it has drawn what it holds, so the largest board opens as fast as a
 * small one. One tab stop for the whole board: the arrow keys go from
 * card to card, Enter opens one.
 *
 * The board is in parts, each a file with the state `b` passed in:
 *   board.js          this: the page, its filters, and changes made elsewhere
 *   board-columns.js  the columns and their cards, drawn and paged
 *   board-moves.js    a card put elsewhere: the figures, the server, the undo
 *   board-drag.js     moving a card with a mouse or a finger
 *   board-keys.js     the board by keyboard: going, carrying, opening
 *
 * Every name and value is put in as text (ctx.html, textContent).
 */
import { FILTERS, draw, drawSome, addOwners } from './board-columns.js';
import { dragging } from './board-drag.js';
import { keys } from './board-keys.js';

const STATUSES = [['open', 'Open'], ['won', 'Won'], ['lost', 'Lost'], ['abandoned', 'Abandoned']];
const FIRST_PAGE = 25;     /* deals of each column in the board's answer (the server's default) */
const PAGE_MAX = 500;      /* the most the server sends of a column at once */
const DEBOUNCE_MS = 250;

/* ---- what the pages share ---------------------------------------------------- */

function styles(ctx) {
	return ctx.ui.stylesheet(new URL('./board.css', import.meta.url));
}

const lib = { styles, STATUSES };

export default async function page(view, ctx) {
	const id = ctx.params.id;
	if (id === undefined)
		return board(view, ctx);
	if (id === 'pipelines') {
		const [editor] = await Promise.all([import('./pipelines.js'), styles(ctx)]);
		return editor.default(view, ctx, lib);
	}
	if (id !== 'new' && !/^[1-9]\d{0,17}$/.test(id)) {
		const e = new Error('No such deal');
		e.status = 404;
		throw e;
	}
	const [deal] = await Promise.all([import('./deal.js'), styles(ctx)]);
	return id === 'new' ? deal.newDeal(view, ctx, lib) : deal.default(view, ctx, lib);
}

/* ---- the board ----------------------------------------------------------------- */

async function board(view, ctx) {
	const filters = ctx.queryOf(FILTERS);
	/* the board draws as soon as its deals are in (the app's first
	 * answer may carry them); the other pipelines and the people's
	 * names fill in when they come */
	const pipelinesComing = ctx.api.get('/api/pipelines').catch(() => null);
	const peopleComing = ctx.ui.people(ctx.api);
	const [answer] = await Promise.all([ctx.api.get('/api/opportunities', filters), styles(ctx)]);
	ctx.title('Opportunities');
	view.classList.add('board-page');
	const el = frame(view, ctx, answer, filters);
	/* b: the board's state, which each part is given */
	const b = {
		ctx, view, el, me: ctx.user.id, data: answer,
		users: new Map(),
		columns: new Map(), /* stage id -> column */
		deals: new Map(),   /* deal id -> deal */
		drawn: 0,           /* how many times the board was drawn */
		seq: 0,             /* the filters' last reload */
		drag: null,         /* a card being dragged (board-drag.js) */
		carried: null,      /* a card carried by keys (board-keys.js) */
		say: (text) => { el.said.textContent = text; },
		reload: () => reload(b),
	};
	const timer = filtering(b);
	const endDrag = dragging(b);
	keys(b);
	const later = following(b);
	draw(b);
	pipelinesComing.then((p) => fillPipelines(b, p));
	peopleComing.then((people) => {
		if (!people || ctx.signal.aborted)
			return;
		b.users = people;
		ctx.ui.pickPerson(el.owner, people, b.me);
		addOwners(b);
	});
	return () => {
		timer.stop();
		later.stop();
		endDrag();
	};
}

/* The page around the board: its heading, filters and the board's place. */
function frame(view, ctx, answer, filters) {
	const { html } = ctx;
	view.append(html`
<div class="page-head">
	<h1>Opportunities</h1>
	<p class="b-sum muted" role="status"></p>
	<a class="btn" href="${ctx.href('/opportunities/pipelines')}">Pipelines</a>
	<a class="btn btn-primary" data-new href="#">New deal</a>
</div>
<form class="b-filters" role="search" aria-label="Filter deals">
	<div><label for="b-pipeline">Pipeline</label><select id="b-pipeline" name="pipeline"></select></div>
	<div><label for="b-status">Status</label><select id="b-status" name="status">
		${STATUSES.map((s) => html`<option value="${s[0]}">${s[1]}</option>`)}</select></div>
	<div><label for="b-owner">Owner</label><select id="b-owner" name="owner"></select></div>
	<div class="b-search"><label for="b-q">Search</label><input id="b-q" name="q" type="search"
		autocomplete="off" spellcheck="false" placeholder="Deal or contact name"></div>
</form>
<p class="visually-hidden" id="b-help">Arrow keys go from deal to deal. Enter opens a deal; Space picks it up, the arrow keys carry it, Space drops it and Escape puts it back.</p>
<p class="visually-hidden" aria-live="assertive" data-said></p>
<div class="b-board" role="region" aria-label="Board" aria-describedby="b-help"></div>`);
	const el = {
		sum: view.querySelector('.b-sum'),
		newDeal: view.querySelector('[data-new]'),
		form: view.querySelector('.b-filters'),
		pipeline: view.querySelector('#b-pipeline'),
		status: view.querySelector('#b-status'),
		owner: view.querySelector('#b-owner'),
		q: view.querySelector('#b-q'),
		said: view.querySelector('[data-said]'),
		board: view.querySelector('.b-board'),
	};
	if (answer.pipeline)
		el.pipeline.append(html`<option value="${answer.pipeline.id}">${answer.pipeline.name}</option>`);
	ctx.ui.pickPerson(el.owner, null, ctx.user.id, filters.owner);
	el.status.value = filters.status || 'open';
	el.q.value = filters.q || '';
	return el;
}

function fillPipelines(b, pipelines) {
	if (!pipelines || b.ctx.signal.aborted)
		return;
	const select = b.el.pipeline;
	const keep = select.value;
	select.textContent = '';
	for (const p of pipelines.data || [])
		select.append(b.ctx.html`<option value="${p.id}">${p.name}</option>`);
	select.value = keep;
}

/* ---- filters ---- */

async function reload(b) {
	const { ctx, el } = b;
	const mine = ++b.seq;
	ctx.setQuery({
		pipeline: el.pipeline.value, status: el.status.value === 'open' ? '' : el.status.value,
		owner: el.owner.value, q: el.q.value.trim(),
	});
	el.board.setAttribute('aria-busy', 'true');
	try {
		const next = await ctx.api.get('/api/opportunities', ctx.queryOf(FILTERS));
		if (mine !== b.seq || ctx.signal.aborted)
			return;
		b.data = next;
		draw(b);
	} catch (e) {
		if (mine === b.seq && !ctx.signal.aborted)
			ctx.ui.toast('The board could not be loaded: ' + e.message, { kind: 'error' });
	} finally {
		if (mine === b.seq)
			el.board.removeAttribute('aria-busy');
	}
}

/* The board follows its filters: a search as it is typed, the others at
 * once. Returns {stop}. */
function filtering(b) {
	const el = b.el;
	let timer = 0;
	el.form.addEventListener('submit', (e) => e.preventDefault());
	el.form.addEventListener('change', (e) => {
		if (e.target !== el.q)
			reload(b);
	});
	el.q.addEventListener('input', () => {
		clearTimeout(timer);
		timer = setTimeout(() => reload(b), DEBOUNCE_MS);
	});
	return { stop: () => clearTimeout(timer) };
}

/* ---- changes made elsewhere ---- */

/* The board as the server has it now, as much of each column as is
 * loaded (in whole pages), drawn again when it changed, the focused card
 * and each column's scroll kept; while a card is being moved, once it is
 * put down. Returns {stop}. */
function following(b) {
	const { ctx, el } = b;
	const busy = () => b.drag || b.carried || el.board.querySelector('.is-saving');
	let later = 0;
	async function refresh() {
		clearTimeout(later);
		if (busy()) {
			later = setTimeout(refresh, 400);
			return;
		}
		const mine = b.seq;
		const held = Math.max(0, ...Array.from(b.columns.values(), (c) => c.list.length));
		const pages = Math.min(PAGE_MAX, Math.ceil(held / FIRST_PAGE) * FIRST_PAGE);
		let next;
		try {
			next = await ctx.api.get('/api/opportunities', Object.assign(ctx.queryOf(FILTERS),
				{ per_stage: pages > FIRST_PAGE ? pages : null }));
		} catch (e) {
			return; /* the next change asks again */
		}
		if (mine !== b.seq || ctx.signal.aborted)
			return;
		if (busy()) {
			later = setTimeout(refresh, 400);
			return;
		}
		if (JSON.stringify(next) !== JSON.stringify(b.data))
			redraw(b, next);
	}
	ctx.onLive(['opportunity.*', 'stage.*', 'pipeline.*'], refresh);
	return { stop: () => clearTimeout(later) };
}

/* The board drawn again from `next`, as far down each column as it was,
 * the focus on the same card. */
function redraw(b, next) {
	const active = document.activeElement;
	const focused = active && b.el.board.contains(active) && active.closest('.b-card');
	const kept = new Map(Array.from(b.columns.values(), (c) => [c.stage.id, [c.drawn, c.cards.scrollTop]]));
	b.data = next;
	draw(b);
	for (const [stage, [drawnBefore, top]] of kept) {
		const col = b.columns.get(stage);
		while (col && col.drawn < Math.min(drawnBefore, col.list.length))
			drawSome(b, col);
		if (col)
			col.cards.scrollTop = top;
	}
	const again = focused && b.el.board.querySelector('.b-card[data-id="' + focused.dataset.id + '"]');
	if (again) {
		b.rove(again);
		again.focus({ preventScroll: true });
	}
}

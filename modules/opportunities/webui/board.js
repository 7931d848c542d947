// SPDX-License-Identifier: MIT
/*
 * board.js: the opportunities pages. The shell opens this one module for
 * /app/opportunities (a pipeline's board, here), /app/opportunities/new
 * and /app/opportunities/:id (a deal: deal.js) and
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
 * Every name and value is put in as text (ctx.html, textContent).
 */

const STATUSES = [['open', 'Open'], ['won', 'Won'], ['lost', 'Lost'], ['abandoned', 'Abandoned']];
const FILTERS = ['pipeline', 'status', 'owner', 'q'];
const BATCH = 40;          /* cards drawn at a time in a column */
const FIRST_PAGE = 25;     /* deals of each column in the board's answer (the server's default) */
const PAGE = 50;           /* deals asked for at a time as a column is scrolled */
const PAGE_MAX = 500;      /* the most the server sends of a column at once */
const DEBOUNCE_MS = 250;
const DRAG_PX = 5;         /* a mouse moves this far before a press is a drag */
const TOUCH_HOLD_MS = 300; /* a finger holds this long before it drags */

/* ---- what the pages share ---------------------------------------------------- */

function styles(ctx) {
	return ctx.ui.stylesheet(new URL('./board.css', import.meta.url));
}

function appHref(ctx, path) {
	return '/app' + path + (ctx.location ? (path.indexOf('?') < 0 ? '?' : '&') +
		'location=' + encodeURIComponent(ctx.location.id) : '');
}

const moneyFormats = new Map();
const plainNumber = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });

/* Whole units of `currency` (null: a plain number, for sums of several). */
function money(cents, currency) {
	if (!currency)
		return plainNumber.format(Math.round((cents || 0) / 100));
	let f = moneyFormats.get(currency);
	if (!f) {
		try {
			f = new Intl.NumberFormat(undefined, { style: 'currency', currency, maximumFractionDigits: 0 });
		} catch (e) {
			f = plainNumber;
		}
		moneyFormats.set(currency, f);
	}
	return f.format(Math.round((cents || 0) / 100));
}

const count = new Intl.NumberFormat(undefined);
const plural = (n, one, many) => count.format(n) + ' ' + (n === 1 ? one : many);

/* How long ago `iso` was, short: "today", "3 d", "5 wk", "4 mo", "2 yr". */
function age(iso) {
	const days = Math.floor((Date.now() - Date.parse(iso)) / 86400000);
	if (!(days >= 1))
		return 'today';
	if (days < 14)
		return days + ' d';
	if (days < 60)
		return Math.floor(days / 7) + ' wk';
	if (days < 730)
		return Math.floor(days / 30) + ' mo';
	return Math.floor(days / 365) + ' yr';
}

function initials(name) {
	const parts = String(name || '?').trim().split(/\s+/);
	return (parts[0].charAt(0) + (parts.length > 1 ? parts[parts.length - 1].charAt(0) : '')).toUpperCase();
}

/* The location's people by id (GET /api/users); empty when it fails: a
 * card then shows no owner's name, which is no reason to fail the page. */
async function people(ctx) {
	const byId = new Map();
	try {
		const answer = await ctx.api.get('/api/users');
		for (const u of answer.data || [])
			byId.set(u.id, u);
	} catch (e) {
		if (ctx.signal.aborted)
			throw e;
	}
	return byId;
}

const lib = { styles, appHref, money, age, initials, people, STATUSES };

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
	const { html, api, ui } = ctx;
	const filters = ctx.queryOf(FILTERS);
	/* the board draws as soon as its deals are in (the app's first
	 * answer may carry them); the other pipelines and the people's
	 * names fill in when they come */
	const pipelinesComing = api.get('/api/pipelines').catch(() => null);
	const peopleComing = people(ctx).catch(() => null);
	const [answer] = await Promise.all([api.get('/api/opportunities', filters), styles(ctx)]);
	const me = ctx.user.id;
	let users = new Map();
	let data = answer;
	let seq = 0;
	let timer = 0;

	ctx.title('Opportunities');
	view.classList.add('board-page');
	view.append(html`
<div class="page-head">
	<h1>Opportunities</h1>
	<p class="b-sum muted" role="status"></p>
	<a class="btn" href="${appHref(ctx, '/opportunities/pipelines')}">Pipelines</a>
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
	el.owner.append(html`<option value="">Anyone</option><option value="me">Me</option>`);
	if (filters.owner && filters.owner !== 'me')
		el.owner.append(html`<option value="${filters.owner}">${'User ' + filters.owner}</option>`);
	el.status.value = filters.status || 'open';
	el.owner.value = filters.owner || '';
	el.q.value = filters.q || '';

	function fillPipelines(pipelines) {
		if (!pipelines || ctx.signal.aborted)
			return;
		const keep = el.pipeline.value;
		el.pipeline.textContent = '';
		for (const p of pipelines.data || [])
			el.pipeline.append(html`<option value="${p.id}">${p.name}</option>`);
		el.pipeline.value = keep;
	}

	function fillPeople(byId) {
		if (!byId || ctx.signal.aborted)
			return;
		users = byId;
		const keep = el.owner.value;
		el.owner.textContent = '';
		el.owner.append(html`<option value="">Anyone</option><option value="me">Me</option>
			${Array.from(users.values()).filter((u) => u.id !== me).map((u) =>
				html`<option value="${u.id}">${u.name}</option>`)}`);
		el.owner.value = keep;
		if (el.owner.value !== keep) { /* someone not listed (yourself, or gone): kept, by name if known */
			const u = users.get(Number(keep));
			el.owner.append(html`<option value="${keep}">${u ? u.name : 'User ' + keep}</option>`);
			el.owner.value = keep;
		}
		for (const li of el.board.querySelectorAll('.b-card')) {
			const d = deals.get(Number(li.dataset.id));
			if (d && d.owner_id && !li.querySelector('.b-card-owner'))
				li.querySelector('.b-card-age').before(ownerBadge(d));
		}
	}

	const say = (text) => { el.said.textContent = text; };
	const columns = new Map(); /* stage id -> column */
	const deals = new Map();   /* deal id -> deal */

	let drawn = 0; /* how many times the board was drawn */

	function draw() {
		drawn++;
		el.pipeline.value = String(data.pipeline ? data.pipeline.id : '');
		el.newDeal.href = appHref(ctx, '/opportunities/new' +
			(data.pipeline ? '?pipeline=' + data.pipeline.id : ''));
		columns.clear();
		deals.clear();
		el.board.textContent = '';
		const byStage = new Map((data.stages || []).map((s) => [s.id, []]));
		for (const d of data.data || []) {
			deals.set(d.id, d);
			const list = byStage.get(d.stage_id);
			if (list)
				list.push(d);
		}
		for (const stage of data.stages || [])
			el.board.append(column(stage, byStage.get(stage.id)));
		if (!(data.stages || []).length)
			el.board.append(html`<p class="b-none">This pipeline has no stages yet.</p>`);
		totals();
		const first = el.board.querySelector('.b-card');
		if (first)
			first.tabIndex = 0;
	}

	/* A stage's column: `list` the deals it holds (of `count` on the
	 * server, worth `value`), `next` the cursor to the rest. */
	function column(stage, list) {
		const col = {
			stage, list, drawn: 0, count: stage.count, value: stage.value_cents,
			next: stage.next_cursor, loading: null,
			el: html`<section class="b-col" data-stage="${stage.id}" aria-labelledby="${'b-st-' + stage.id}">
				<header class="b-col-head"><h2 id="${'b-st-' + stage.id}">${stage.name}</h2>
				<p class="b-col-sum"></p></header>
				<ol class="b-cards" aria-labelledby="${'b-st-' + stage.id}"></ol></section>`.firstElementChild,
		};
		col.cards = col.el.querySelector('.b-cards');
		col.cards.addEventListener('scroll', scrolled, { passive: true });
		col.sum = col.el.querySelector('.b-col-sum');
		columns.set(stage.id, col);
		drawSome(col);
		return col.el;
	}

	/* Draw the column's next batch of the cards it holds. */
	function drawSome(col) {
		const next = col.list.slice(col.drawn, col.drawn + BATCH);
		for (const d of next)
			col.cards.append(card(d));
		col.drawn += next.length;
	}

	/* The column read further: its next batch drawn, or its next page
	 * asked for once all it holds are drawn. */
	function more(col) {
		drawSome(col);
		if (col.drawn === col.list.length && col.next)
			nextPage(col);
	}

	/* The column's next page from the server, added to what it holds
	 * (less any deal it holds already: one moved in meanwhile) and drawn.
	 * A board drawn again meanwhile has asked for its own. */
	function nextPage(col) {
		if (col.loading)
			return col.loading;
		const drawing = drawn;
		col.el.setAttribute('aria-busy', 'true');
		col.loading = api.get('/api/opportunities', Object.assign(ctx.queryOf(FILTERS), {
			pipeline: data.pipeline.id, stage: col.stage.id, cursor: col.next, per_stage: PAGE,
		})).then((page) => {
			if (drawing !== drawn || ctx.signal.aborted)
				return;
			for (const d of page.data || [])
				if (!deals.has(d.id)) {
					deals.set(d.id, d);
					col.list.push(d);
				}
			col.next = page.next_cursor;
			if (col.drawn < col.list.length)
				drawSome(col);
		}, (e) => {
			if (drawing === drawn && !ctx.signal.aborted)
				ui.toast('More deals of ' + col.stage.name + ' could not be loaded: ' + e.message,
					 { kind: 'error' });
		}).finally(() => {
			col.loading = null;
			col.el.removeAttribute('aria-busy');
		});
		return col.loading;
	}

	/* A column scrolled near its end draws its next batch. */
	function scrolled(e) {
		const list = e.target;
		if (list.scrollTop + list.clientHeight < list.scrollHeight - 600)
			return;
		const col = columns.get(Number(list.closest('.b-col').dataset.stage));
		if (col && (col.drawn < col.list.length || col.next))
			more(col);
	}

	/* Initials in a circle, named for a screen reader; nothing until
	 * the names are in. */
	function ownerBadge(d) {
		const owner = d.owner_id ? users.get(d.owner_id) : null;
		if (!owner)
			return '';
		const name = owner.name + (d.owner_id === me ? ' (you)' : '');
		return html`<span class="b-card-owner" title="${'Owner: ' + name}"><span aria-hidden="true">${initials(owner.name)}</span><span class="visually-hidden">${'Owner: ' + name}</span></span>`;
	}

	function card(d) {
		const li = html`<li class="b-card" data-id="${d.id}" tabindex="-1">
			<a class="b-card-name" href="${appHref(ctx, '/opportunities/' + d.id)}" tabindex="-1" draggable="false">${d.name}</a>
			<span class="b-card-contact">${d.contact_name || 'No contact'}</span>
			<span class="b-card-foot">
				<span class="b-card-value">${money(d.value_cents, d.currency)}</span>
				${ownerBadge(d)}
				<span class="b-card-age" title="${'Created ' + new Date(d.created_at).toLocaleDateString()}">${age(d.created_at)}</span>
			</span></li>`.firstElementChild;
		return li;
	}

	/* Each column's count and value as the server counts them (moved by
	 * the moves made here), and the board's. */
	function totals() {
		let n = 0;
		let value = 0;
		const currencies = new Set();
		for (const d of deals.values())
			currencies.add(d.currency);
		const currency = currencies.size === 1 ? currencies.values().next().value : null;
		for (const col of columns.values()) {
			col.sum.textContent = plural(col.count, 'deal', 'deals') + ' · ' + money(col.value, currency);
			n += col.count;
			value += col.value;
		}
		el.sum.textContent = plural(n, 'deal', 'deals') + ' · ' + money(value, currency);
	}

	/* ---- filters ---- */

	async function reload() {
		const mine = ++seq;
		ctx.setQuery({
			pipeline: el.pipeline.value, status: el.status.value === 'open' ? '' : el.status.value,
			owner: el.owner.value, q: el.q.value.trim(),
		});
		el.board.setAttribute('aria-busy', 'true');
		try {
			const next = await api.get('/api/opportunities', ctx.queryOf(FILTERS));
			if (mine !== seq || ctx.signal.aborted)
				return;
			data = next;
			draw();
		} catch (e) {
			if (mine === seq && !ctx.signal.aborted)
				ui.toast('The board could not be loaded: ' + e.message, { kind: 'error' });
		} finally {
			if (mine === seq)
				el.board.removeAttribute('aria-busy');
		}
	}

	el.form.addEventListener('submit', (e) => e.preventDefault());
	el.form.addEventListener('change', (e) => {
		if (e.target !== el.q)
			reload();
	});
	el.q.addEventListener('input', () => {
		clearTimeout(timer);
		timer = setTimeout(reload, DEBOUNCE_MS);
	});

	/* ---- moving a card ---- */

	/* Where `li` is now: its column and the deal it sits before; last of
	 * what is drawn, before the first one not drawn yet, or after the
	 * card above it when the server holds more of the column (first, when
	 * there is none: a column emptied by moves); last (none of these) when
	 * the column is all there. */
	function placeOf(li) {
		const col = columns.get(Number(li.closest('.b-col').dataset.stage));
		const next = li.nextElementSibling;
		const prev = li.previousElementSibling;
		const before = next ? deals.get(Number(next.dataset.id))
			: col.list.filter((d) => d.id !== Number(li.dataset.id))[col.cards.children.length - 1] || null;
		const after = !before && col.next && prev ? deals.get(Number(prev.dataset.id)) : null;
		return { col, before, after, first: !before && !after && !!col.next };
	}

	/* The card was put where it is (by drag or keys) from `from`: show
	 * the move in the figures, tell the server, undo it if refused. */
	async function moved(li, from) {
		const id = Number(li.dataset.id);
		const d = deals.get(id);
		const to = placeOf(li);
		if (to.col === from.col && to.before === from.before && to.after === from.after &&
		    to.first === from.first)
			return;
		from.col.list.splice(from.col.list.indexOf(d), 1);
		const at = to.before ? to.col.list.indexOf(to.before)
			: to.after ? to.col.list.indexOf(to.after) + 1 : to.col.list.length;
		to.col.list.splice(at, 0, d);
		from.col.drawn--;
		to.col.drawn++;
		recount(from.col, to.col, d);
		d.stage_id = to.col.stage.id;
		totals();
		say(d.name + ' moved to ' + to.col.stage.name + '.');
		const body = { stage_id: to.col.stage.id };
		if (to.before)
			body.before_id = to.before.id;
		else if (to.after)
			body.after_id = to.after.id;
		else if (to.first)
			body.position = 0;
		if (!from.col.list.length && from.col.next)
			nextPage(from.col); /* emptied: what the server holds of it comes in */
		/* the card stays put until the server answers: an undo must find
		 * it where it was dropped */
		const drawing = drawn;
		li.classList.add('is-saving');
		li.setAttribute('aria-busy', 'true');
		try {
			await api.patch('/api/opportunities/' + id, body);
		} catch (e) {
			if (ctx.signal.aborted)
				return;
			const why = 'The deal “' + d.name + '” could not be moved: ' + e.message;
			say(why);
			ui.toast(why, { kind: 'error' });
			if (drawing !== drawn) /* drawn again meanwhile: ask the server again */
				return reload();
			const focused = document.activeElement === li;
			to.col.list.splice(to.col.list.indexOf(d), 1);
			from.col.list.splice(from.index, 0, d);
			to.col.drawn--;
			from.col.drawn++;
			recount(to.col, from.col, d);
			d.stage_id = from.col.stage.id;
			putBack(li, from);
			totals();
			if (focused)
				li.focus();
		} finally {
			li.classList.remove('is-saving');
			li.removeAttribute('aria-busy');
		}
	}

	/* Deal `d` counted in column `to` instead of `from`. */
	function recount(from, to, d) {
		if (from === to)
			return;
		from.count--;
		from.value -= d.value_cents || 0;
		to.count++;
		to.value += d.value_cents || 0;
	}

	function startOf(li) {
		const place = placeOf(li);
		place.index = Array.prototype.indexOf.call(place.col.cards.children, li);
		return place;
	}

	/* Where a card dropped at (x, y) goes: the column under the point,
	 * before the first card whose middle is below it. */
	function dropAt(x, y, li) {
		const colEl = document.elementFromPoint(x, y);
		const target = colEl && colEl.closest('.b-col');
		if (!target || !el.board.contains(target))
			return;
		const list = target.querySelector('.b-cards');
		let before = null;
		for (const c of list.children) {
			if (c === li)
				continue;
			const r = c.getBoundingClientRect();
			if (y < r.top + r.height / 2) {
				before = c;
				break;
			}
		}
		if (li.parentNode !== list || li.nextElementSibling !== before)
			list.insertBefore(li, before);
	}

	let drag = null;
	let quietUntil = 0;

	function pointerDown(e) {
		const li = e.target.closest('.b-card');
		if (!li || e.button !== 0 || drag || li.classList.contains('is-saving'))
			return;
		drag = { li, x: e.clientX, y: e.clientY, pointer: e.pointerId, started: false,
			touch: e.pointerType === 'touch', ready: e.pointerType !== 'touch' };
		if (drag.touch)
			drag.hold = setTimeout(() => { if (drag) drag.ready = true; }, TOUCH_HOLD_MS);
		document.addEventListener('pointermove', pointerMove);
		document.addEventListener('pointerup', pointerUp);
		document.addEventListener('pointercancel', pointerCancel);
	}

	function beginDrag(e) {
		const li = drag.li;
		const r = li.getBoundingClientRect();
		drag.started = true;
		drag.from = startOf(li);
		drag.dx = e.clientX - r.left;
		drag.dy = e.clientY - r.top;
		drag.ghost = li.cloneNode(true);
		drag.ghost.classList.add('b-ghost');
		drag.ghost.removeAttribute('data-id');
		drag.ghost.setAttribute('aria-hidden', 'true');
		drag.ghost.style.width = r.width + 'px';
		document.body.append(drag.ghost);
		li.classList.add('is-dragged');
		view.classList.add('is-dragging');
	}

	function pointerMove(e) {
		if (!drag || e.pointerId !== drag.pointer)
			return;
		if (!drag.started) {
			const far = Math.abs(e.clientX - drag.x) + Math.abs(e.clientY - drag.y) > DRAG_PX;
			if (far && !drag.ready)
				return endDrag(); /* a finger that moves at once is scrolling */
			if (!far)
				return;
			beginDrag(e);
		}
		e.preventDefault();
		drag.ghost.style.transform = 'translate(' + (e.clientX - drag.dx) + 'px,' + (e.clientY - drag.dy) + 'px)';
		dropAt(e.clientX, e.clientY, drag.li);
		edgeScroll(e.clientX, e.clientY);
	}

	/* Near the board's sides it scrolls sideways, near a column's ends
	 * that column, while a card is carried. */
	function edgeScroll(x, y) {
		const b = el.board.getBoundingClientRect();
		const step = (d) => (d < 48 ? Math.ceil((48 - d) / 3) : 0);
		el.board.scrollLeft += step(b.right - x) - step(x - b.left);
		const list = drag.li.parentNode;
		const r = list.getBoundingClientRect();
		list.scrollTop += step(r.bottom - y) - step(y - r.top);
	}

	function pointerUp(e) {
		if (!drag || e.pointerId !== drag.pointer)
			return;
		const d = drag;
		endDrag();
		if (!d.started)
			return;
		quietUntil = performance.now() + 400; /* the click that ends a drag opens nothing */
		setTimeout(() => d.li.focus({ preventScroll: true }), 0);
		rove(d.li);
		moved(d.li, d.from);
	}

	function pointerCancel() {
		if (!drag)
			return;
		const d = drag;
		endDrag();
		if (d.started)
			putBack(d.li, d.from);
	}

	function endDrag() {
		if (!drag)
			return;
		clearTimeout(drag.hold);
		if (drag.ghost)
			drag.ghost.remove();
		drag.li.classList.remove('is-dragged');
		view.classList.remove('is-dragging');
		drag = null;
		document.removeEventListener('pointermove', pointerMove);
		document.removeEventListener('pointerup', pointerUp);
		document.removeEventListener('pointercancel', pointerCancel);
	}

	/* The card where it was picked up: taken out first, so that the
	 * index counts the others only. */
	function putBack(li, from) {
		li.remove();
		from.col.cards.insertBefore(li, from.col.cards.children[from.index] || null);
	}

	/* A finger that has held long enough drags instead of scrolling. */
	function touchMove(e) {
		if (drag && (drag.started || drag.ready))
			e.preventDefault();
	}

	el.board.addEventListener('pointerdown', pointerDown);
	el.board.addEventListener('touchmove', touchMove, { passive: false });
	el.board.addEventListener('dragstart', (e) => e.preventDefault());

	/* ---- keys ---- */

	let carried = null; /* { li, from } while a card is picked up */

	/* The one card of the board in the tab order. */
	function rove(li) {
		for (const c of el.board.querySelectorAll('.b-card[tabindex="0"]'))
			c.tabIndex = -1;
		li.tabIndex = 0;
	}

	function go(li) {
		if (!li)
			return;
		rove(li);
		li.focus();
	}

	/* The card `dx` columns or `dy` cards away from `li` (drawing more of
	 * a column when the next is not drawn yet). */
	function neighbour(li, dx, dy) {
		const colEl = li.closest('.b-col');
		if (dy) {
			const sib = dy < 0 ? li.previousElementSibling : li.nextElementSibling;
			if (!sib && dy > 0) {
				const col = columns.get(Number(colEl.dataset.stage));
				if (col.drawn < col.list.length) {
					more(col);
					return li.nextElementSibling;
				}
				if (col.next)
					nextPage(col).then(() => {
						if (document.activeElement === li)
							go(li.nextElementSibling);
					});
			}
			return sib;
		}
		let other = dx < 0 ? colEl.previousElementSibling : colEl.nextElementSibling;
		while (other && !other.querySelector('.b-card'))
			other = dx < 0 ? other.previousElementSibling : other.nextElementSibling;
		if (!other)
			return null;
		const index = Array.prototype.indexOf.call(li.parentNode.children, li);
		const cards = other.querySelector('.b-cards').children;
		return cards[Math.min(index, cards.length - 1)];
	}

	function carry(li, dx, dy) {
		const colEl = li.closest('.b-col');
		const list = li.parentNode;
		if (dy < 0 && li.previousElementSibling)
			list.insertBefore(li, li.previousElementSibling);
		else if (dy > 0 && li.nextElementSibling)
			list.insertBefore(li.nextElementSibling, li);
		else if (dx) {
			const other = dx < 0 ? colEl.previousElementSibling : colEl.nextElementSibling;
			if (!other || !other.classList.contains('b-col'))
				return;
			const index = Array.prototype.indexOf.call(list.children, li);
			const cards = other.querySelector('.b-cards');
			cards.insertBefore(li, cards.children[index] || null);
		} else {
			return;
		}
		li.focus();
		li.scrollIntoView({ block: 'nearest', inline: 'nearest' });
		const place = li.closest('.b-col').querySelector('h2').textContent;
		const at = Array.prototype.indexOf.call(li.parentNode.children, li) + 1;
		say(place + ', position ' + at + '.');
	}

	el.board.addEventListener('keydown', (e) => {
		const li = e.target.closest && e.target.closest('.b-card');
		if (!li || e.altKey || e.ctrlKey || e.metaKey)
			return;
		const arrows = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
		const name = li.querySelector('.b-card-name').textContent;
		if (arrows[e.key]) {
			e.preventDefault();
			if (carried)
				carry(li, arrows[e.key][0], arrows[e.key][1]);
			else
				go(neighbour(li, arrows[e.key][0], arrows[e.key][1]));
		} else if (e.key === ' ') {
			e.preventDefault();
			if (!carried) {
				if (li.classList.contains('is-saving')) {
					say(name + ' is still being saved.');
					return;
				}
				carried = { li, from: startOf(li) };
				li.classList.add('is-carried');
				say(name + ' picked up, in ' + carried.from.col.stage.name +
					'. Arrow keys carry it, Space drops it, Escape puts it back.');
			} else {
				const c = carried;
				carried = null;
				li.classList.remove('is-carried');
				rove(li);
				moved(li, c.from);
				li.focus();
			}
		} else if (e.key === 'Escape' && carried) {
			e.preventDefault();
			const c = carried;
			carried = null;
			li.classList.remove('is-carried');
			putBack(li, c.from);
			li.focus();
			say(name + ' put back in ' + c.from.col.stage.name + '.');
		} else if (e.key === 'Enter' && !carried) {
			e.preventDefault();
			ctx.navigate(li.querySelector('.b-card-name').getAttribute('href'));
		}
	});
	/* A card carried out of the board's focus is put back. Moving the
	 * focused card in the document blurs it for a moment, so this looks
	 * once the keys' handler has focused it again. */
	el.board.addEventListener('focusout', () => setTimeout(() => {
		if (carried && !el.board.contains(document.activeElement)) {
			const c = carried;
			carried = null;
			c.li.classList.remove('is-carried');
			putBack(c.li, c.from);
		}
	}, 0));
	el.board.addEventListener('click', (e) => {
		if (performance.now() < quietUntil) {
			e.preventDefault();
			e.stopPropagation();
		}
	}, true);
	el.board.addEventListener('click', (e) => {
		const li = e.target.closest('.b-card');
		if (li && !e.defaultPrevented && !e.target.closest('a')) {
			rove(li);
			ctx.navigate(li.querySelector('.b-card-name').getAttribute('href'));
		}
	});

	/* ---- changes made elsewhere ---- */

	const busy = () => drag || carried || el.board.querySelector('.is-saving');
	let later = 0;

	/* The board as the server has it now, as much of each column as is
	 * loaded (in whole pages), drawn again when it changed, the focused
	 * card and each column's scroll kept; while a card is being moved,
	 * once it is put down. */
	async function refresh() {
		clearTimeout(later);
		if (busy()) {
			later = setTimeout(refresh, 400);
			return;
		}
		const mine = seq;
		const held = Math.max(0, ...Array.from(columns.values(), (c) => c.list.length));
		const pages = Math.min(PAGE_MAX, Math.ceil(held / FIRST_PAGE) * FIRST_PAGE);
		let next;
		try {
			next = await api.get('/api/opportunities', Object.assign(ctx.queryOf(FILTERS),
				{ per_stage: pages > FIRST_PAGE ? pages : null }));
		} catch (e) {
			return; /* the next change asks again */
		}
		if (mine !== seq || ctx.signal.aborted)
			return;
		if (busy()) {
			later = setTimeout(refresh, 400);
			return;
		}
		if (JSON.stringify(next) === JSON.stringify(data))
			return;
		const active = document.activeElement;
		const focused = active && el.board.contains(active) && active.closest('.b-card');
		const kept = new Map(Array.from(columns.values(), (c) => [c.stage.id, [c.drawn, c.cards.scrollTop]]));
		data = next;
		draw();
		for (const [stage, [drawnBefore, top]] of kept) {
			const col = columns.get(stage);
			while (col && col.drawn < Math.min(drawnBefore, col.list.length))
				drawSome(col);
			if (col)
				col.cards.scrollTop = top;
		}
		const again = focused && el.board.querySelector('.b-card[data-id="' + focused.dataset.id + '"]');
		if (again) {
			rove(again);
			again.focus({ preventScroll: true });
		}
	}
	ctx.onLive(['opportunity.*', 'stage.*', 'pipeline.*'], refresh);

	draw();
	pipelinesComing.then(fillPipelines);
	peopleComing.then(fillPeople);
	return () => {
		clearTimeout(timer);
		clearTimeout(later);
		endDrag();
	};
}

// SPDX-License-Identifier: MIT
/*
 * board-moves.js: a card put somewhere else on the board, by drag
 * (board-drag.js) or by keys (board-keys.js): where it was and where it
 * is now in the columns' lists, the move shown at once in the figures,
 * told to the server, and undone with a message when the server refuses.
 */
import { nextPage, totals } from './board-columns.js';

/* Where `li` is now: its column and the deal it sits before; last of
 * what is drawn, before the first one not drawn yet, or after the card
 * above it when the server holds more of the column (first, when there
 * is none: a column emptied by moves); last (none of these) when the
 * column is all there. */
function placeOf(b, li) {
	const col = b.columns.get(Number(li.closest('.b-col').dataset.stage));
	const next = li.nextElementSibling;
	const prev = li.previousElementSibling;
	const before = next ? b.deals.get(Number(next.dataset.id))
		: col.list.filter((d) => d.id !== Number(li.dataset.id))[col.cards.children.length - 1] || null;
	const after = !before && col.next && prev ? b.deals.get(Number(prev.dataset.id)) : null;
	return { col, before, after, first: !before && !after && !!col.next };
}

/* Where `li` is picked up from, its index among the cards with it. */
export function startOf(b, li) {
	const place = placeOf(b, li);
	place.index = Array.prototype.indexOf.call(place.col.cards.children, li);
	return place;
}

/* The card where it was picked up: taken out first, so that the index
 * counts the others only. */
export function putBack(li, from) {
	li.remove();
	from.col.cards.insertBefore(li, from.col.cards.children[from.index] || null);
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

/* Deal `d` taken from column `from` and put in `to`: at index `at` of
 * its list, or (an object) before at.before, after at.after, else last. */
function shift(b, d, from, to, at) {
	from.list.splice(from.list.indexOf(d), 1);
	const index = typeof at === 'number' ? at : at.before ? to.list.indexOf(at.before)
		: at.after ? to.list.indexOf(at.after) + 1 : to.list.length;
	to.list.splice(index, 0, d);
	from.drawn--;
	to.drawn++;
	recount(from, to, d);
	d.stage_id = to.stage.id;
	totals(b);
}

/* What the server is told of a move to `to`. */
function bodyOf(to) {
	const body = { stage_id: to.col.stage.id };
	if (to.before)
		body.before_id = to.before.id;
	else if (to.after)
		body.after_id = to.after.id;
	else if (to.first)
		body.position = 0;
	return body;
}

/* The card was put where it is (by drag or keys) from `from`: show the
 * move in the figures, tell the server, undo it if refused. */
export async function moved(b, li, from) {
	const { ctx } = b;
	const id = Number(li.dataset.id);
	const d = b.deals.get(id);
	const to = placeOf(b, li);
	if (to.col === from.col && to.before === from.before && to.after === from.after &&
	    to.first === from.first)
		return;
	shift(b, d, from.col, to.col, to);
	b.say(d.name + ' moved to ' + to.col.stage.name + '.');
	if (!from.col.list.length && from.col.next)
		nextPage(b, from.col); /* emptied: what the server holds of it comes in */
	/* the card stays put until the server answers: an undo must find it
	 * where it was dropped */
	const drawing = b.drawn;
	li.classList.add('is-saving');
	li.setAttribute('aria-busy', 'true');
	try {
		await ctx.api.patch('/api/opportunities/' + id, bodyOf(to));
	} catch (e) {
		if (ctx.signal.aborted)
			return;
		const why = 'The deal “' + d.name + '” could not be moved: ' + e.message;
		b.say(why);
		ctx.ui.toast(why, { kind: 'error' });
		if (drawing !== b.drawn) /* drawn again meanwhile: ask the server again */
			return b.reload();
		const focused = document.activeElement === li;
		shift(b, d, to.col, from.col, from.index);
		putBack(li, from);
		if (focused)
			li.focus();
	} finally {
		li.classList.remove('is-saving');
		li.removeAttribute('aria-busy');
	}
}

// SPDX-License-Identifier: MIT
/*
 * board-keys.js: the board by keyboard, one tab stop for all of it. The
 * arrow keys go from card to card (drawing more of a column when the next
 * is not drawn yet); Enter or a click opens a card; Space picks a card up,
 * the arrow keys carry it, Space drops it (the move is board-moves.js's)
 * and Escape, or leaving the board, puts it back. keys(b) listens on the
 * board and sets b.rove, which the other parts call.
 */
import { more, nextPage } from './board-columns.js';
import { moved, putBack, startOf } from './board-moves.js';

const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

/* The one card of the board in the tab order. */
function rove(b, li) {
	for (const c of b.el.board.querySelectorAll('.b-card[tabindex="0"]'))
		c.tabIndex = -1;
	li.tabIndex = 0;
}

function go(b, li) {
	if (!li)
		return;
	rove(b, li);
	li.focus();
}

/* The next card down, drawing or asking for more of the column. */
function below(b, li, colEl) {
	const sib = li.nextElementSibling;
	if (sib)
		return sib;
	const col = b.columns.get(Number(colEl.dataset.stage));
	if (col.drawn < col.list.length) {
		more(b, col);
		return li.nextElementSibling;
	}
	if (col.next)
		nextPage(b, col).then(() => {
			if (document.activeElement === li)
				go(b, li.nextElementSibling);
		});
	return null;
}

/* The card `dx` columns or `dy` cards away from `li`. */
function neighbour(b, li, dx, dy) {
	const colEl = li.closest('.b-col');
	if (dy)
		return dy < 0 ? li.previousElementSibling : below(b, li, colEl);
	let other = dx < 0 ? colEl.previousElementSibling : colEl.nextElementSibling;
	while (other && !other.querySelector('.b-card'))
		other = dx < 0 ? other.previousElementSibling : other.nextElementSibling;
	if (!other)
		return null;
	const index = Array.prototype.indexOf.call(li.parentNode.children, li);
	const cards = other.querySelector('.b-cards').children;
	return cards[Math.min(index, cards.length - 1)];
}

/* The picked-up card `li` carried one place: up, down, or to the column
 * beside at the same height. */
function carry(b, li, dx, dy) {
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
	b.say(place + ', position ' + at + '.');
}

/* Space: picks the card up, or drops the one carried. */
function space(b, li, name) {
	if (!b.carried) {
		if (li.classList.contains('is-saving')) {
			b.say(name + ' is still being saved.');
			return;
		}
		b.carried = { li, from: startOf(b, li) };
		li.classList.add('is-carried');
		b.say(name + ' picked up, in ' + b.carried.from.col.stage.name +
			'. Arrow keys carry it, Space drops it, Escape puts it back.');
		return;
	}
	const c = b.carried;
	b.carried = null;
	li.classList.remove('is-carried');
	rove(b, li);
	moved(b, li, c.from);
	li.focus();
}

/* The card carried put back where it was picked up. */
function drop(b) {
	const c = b.carried;
	b.carried = null;
	c.li.classList.remove('is-carried');
	putBack(c.li, c.from);
	return c;
}

function keydown(b, e) {
	const li = e.target.closest && e.target.closest('.b-card');
	if (!li || e.altKey || e.ctrlKey || e.metaKey)
		return;
	const name = li.querySelector('.b-card-name').textContent;
	const arrow = ARROWS[e.key];
	if (arrow) {
		e.preventDefault();
		if (b.carried)
			carry(b, li, arrow[0], arrow[1]);
		else
			go(b, neighbour(b, li, arrow[0], arrow[1]));
	} else if (e.key === ' ') {
		e.preventDefault();
		space(b, li, name);
	} else if (e.key === 'Escape' && b.carried) {
		e.preventDefault();
		const c = drop(b);
		li.focus();
		b.say(name + ' put back in ' + c.from.col.stage.name + '.');
	} else if (e.key === 'Enter' && !b.carried) {
		e.preventDefault();
		b.ctx.navigate(li.querySelector('.b-card-name').getAttribute('href'));
	}
}

export function keys(b) {
	const board = b.el.board;
	b.rove = (li) => rove(b, li);
	board.addEventListener('keydown', (e) => keydown(b, e));
	/* A card carried out of the board's focus is put back. Moving the
	 * focused card in the document blurs it for a moment, so this looks
	 * once the keys' handler has focused it again. */
	board.addEventListener('focusout', () => setTimeout(() => {
		if (b.carried && !board.contains(document.activeElement))
			drop(b);
	}, 0));
	board.addEventListener('click', (e) => {
		const li = e.target.closest('.b-card');
		if (li && !e.defaultPrevented && !e.target.closest('a')) {
			rove(b, li);
			b.ctx.navigate(li.querySelector('.b-card-name').getAttribute('href'));
		}
	});
}

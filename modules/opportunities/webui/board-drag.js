// SPDX-License-Identifier: MIT
/*
 * board-drag.js: a card moved with a mouse (at once) or a finger (after a
 * short press; a finger that moves at once scrolls). The card follows the
 * pointer as a ghost; where it would land is shown by the card itself;
 * near the board's edges the board and the column scroll. Dropped, the
 * move is board-moves.js's. dragging(b) listens on the board; the
 * function it returns ends a drag under way (the page left).
 */
import { moved, putBack, startOf } from './board-moves.js';

const DRAG_PX = 5;         /* a mouse moves this far before a press is a drag */
const TOUCH_HOLD_MS = 300; /* a finger holds this long before it drags */

/* Where a card dropped at (x, y) goes: the column under the point,
 * before the first card whose middle is below it. */
function dropAt(b, x, y, li) {
	const colEl = document.elementFromPoint(x, y);
	const target = colEl && colEl.closest('.b-col');
	if (!target || !b.el.board.contains(target))
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

/* Near the board's sides it scrolls sideways, near a column's ends that
 * column, while a card is carried. */
function edgeScroll(b, x, y) {
	const r0 = b.el.board.getBoundingClientRect();
	const step = (d) => (d < 48 ? Math.ceil((48 - d) / 3) : 0);
	b.el.board.scrollLeft += step(r0.right - x) - step(x - r0.left);
	const list = b.drag.li.parentNode;
	const r = list.getBoundingClientRect();
	list.scrollTop += step(r.bottom - y) - step(y - r.top);
}

/* The pressed card lifts: its ghost follows the pointer from here. */
function beginDrag(b, e) {
	const drag = b.drag;
	const li = drag.li;
	const r = li.getBoundingClientRect();
	drag.started = true;
	drag.from = startOf(b, li);
	drag.dx = e.clientX - r.left;
	drag.dy = e.clientY - r.top;
	drag.ghost = li.cloneNode(true);
	drag.ghost.classList.add('b-ghost');
	drag.ghost.removeAttribute('data-id');
	drag.ghost.setAttribute('aria-hidden', 'true');
	drag.ghost.style.width = r.width + 'px';
	document.body.append(drag.ghost);
	li.classList.add('is-dragged');
	b.view.classList.add('is-dragging');
}

export function dragging(b) {
	const board = b.el.board;
	let quietUntil = 0;

	function pointerDown(e) {
		const li = e.target.closest('.b-card');
		if (!li || e.button !== 0 || b.drag || li.classList.contains('is-saving'))
			return;
		const drag = { li, x: e.clientX, y: e.clientY, pointer: e.pointerId, started: false,
			touch: e.pointerType === 'touch', ready: e.pointerType !== 'touch' };
		b.drag = drag;
		if (drag.touch)
			drag.hold = setTimeout(() => { drag.ready = true; }, TOUCH_HOLD_MS);
		document.addEventListener('pointermove', pointerMove);
		document.addEventListener('pointerup', pointerUp);
		document.addEventListener('pointercancel', pointerCancel);
	}

	function pointerMove(e) {
		const drag = b.drag;
		if (!drag || e.pointerId !== drag.pointer)
			return;
		if (!drag.started) {
			const far = Math.abs(e.clientX - drag.x) + Math.abs(e.clientY - drag.y) > DRAG_PX;
			if (far && !drag.ready)
				return endDrag(); /* a finger that moves at once is scrolling */
			if (!far)
				return;
			beginDrag(b, e);
		}
		e.preventDefault();
		drag.ghost.style.transform = 'translate(' + (e.clientX - drag.dx) + 'px,' + (e.clientY - drag.dy) + 'px)';
		dropAt(b, e.clientX, e.clientY, drag.li);
		edgeScroll(b, e.clientX, e.clientY);
	}

	function pointerUp(e) {
		const d = b.drag;
		if (!d || e.pointerId !== d.pointer)
			return;
		endDrag();
		if (!d.started)
			return;
		quietUntil = performance.now() + 400; /* the click that ends a drag opens nothing */
		setTimeout(() => d.li.focus({ preventScroll: true }), 0);
		b.rove(d.li);
		moved(b, d.li, d.from);
	}

	function pointerCancel() {
		const d = b.drag;
		if (!d)
			return;
		endDrag();
		if (d.started)
			putBack(d.li, d.from);
	}

	function endDrag() {
		const drag = b.drag;
		if (!drag)
			return;
		clearTimeout(drag.hold);
		if (drag.ghost)
			drag.ghost.remove();
		drag.li.classList.remove('is-dragged');
		b.view.classList.remove('is-dragging');
		b.drag = null;
		document.removeEventListener('pointermove', pointerMove);
		document.removeEventListener('pointerup', pointerUp);
		document.removeEventListener('pointercancel', pointerCancel);
	}

	board.addEventListener('pointerdown', pointerDown);
	/* a finger that has held long enough drags instead of scrolling */
	board.addEventListener('touchmove', (e) => {
		if (b.drag && (b.drag.started || b.drag.ready))
			e.preventDefault();
	}, { passive: false });
	board.addEventListener('dragstart', (e) => e.preventDefault());
	board.addEventListener('click', (e) => {
		if (performance.now() < quietUntil) {
			e.preventDefault();
			e.stopPropagation();
		}
	}, true);
	return endDrag;
}

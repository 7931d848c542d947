// SPDX-License-Identifier: MIT
/*
 * mentions.js: "@" in a note offers the people of the sub-account (GET
 * /api/users, through ctx.ui.people) whose name begins with what follows
 * it, any case or accents; ArrowDown and ArrowUp move among them, Enter or
 * Tab puts "@Their Name " in the note, Escape closes the list. The server
 * tells each person a note names so (notes.c). The list is a listbox the
 * textarea points into with aria-activedescendant.
 */

const SHOWN = 6;
/* "@", then up to two words, right before the caret */
const TYPED = /(^|\s)@([^\s@]{0,40}(?: [^\s@]{0,40})?)$/;

const fold = (s) => String(s).normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();

export function mentions(ctx, area) {
	const list = ctx.html`<ul class="r-mentions" id="r-mentions" role="listbox" aria-label="People to mention" hidden></ul>`.firstElementChild;
	area.after(list);
	area.setAttribute('aria-controls', 'r-mentions');
	const m = { ctx, area, list, people: [], at: -1, start: -1 };
	ctx.ui.people(ctx.api).then((people) => {
		m.people = people ? Array.from(people.values()).filter((u) => u.id !== ctx.user.id) : [];
	});
	area.addEventListener('input', () => offer(m));
	area.addEventListener('keydown', (e) => keys(m, e));
	area.addEventListener('blur', () => close(m));
	list.addEventListener('mousedown', (e) => {
		const li = e.target.closest('[role="option"]');
		e.preventDefault(); /* the caret stays in the note */
		if (li)
			choose(m, Number(li.dataset.i));
	});
}

function offer(m) {
	const before = m.area.value.slice(0, m.area.selectionStart);
	const t = TYPED.exec(before);
	const typed = t ? fold(t[2]) : null;
	const found = typed === null ? [] : m.people.filter((u) =>
		fold(u.name).startsWith(typed) || fold(u.name).split(' ').some((w) => w.startsWith(typed))).slice(0, SHOWN);
	if (!found.length)
		return close(m);
	m.start = before.length - t[2].length - 1;
	m.found = found;
	m.list.textContent = '';
	m.list.append(m.ctx.html`${found.map((u, i) => m.ctx.html`<li role="option" id="${'r-mention-' + i}"
		data-i="${i}" aria-selected="false">${u.name}</li>`)}`);
	m.list.hidden = false;
	move(m, 0);
}

function move(m, i) {
	m.at = i;
	Array.from(m.list.children).forEach((li, k) => li.setAttribute('aria-selected', k === i ? 'true' : 'false'));
	m.area.setAttribute('aria-activedescendant', 'r-mention-' + i);
}

function close(m) {
	m.list.hidden = true;
	m.at = -1;
	m.area.removeAttribute('aria-activedescendant');
}

function keys(m, e) {
	if (m.list.hidden)
		return;
	const n = m.list.children.length;
	if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
		e.preventDefault();
		move(m, (m.at + (e.key === 'ArrowDown' ? 1 : n - 1)) % n);
	} else if (e.key === 'Enter' || e.key === 'Tab') {
		e.preventDefault();
		choose(m, m.at);
	} else if (e.key === 'Escape') {
		e.preventDefault();
		e.stopPropagation();
		close(m);
	}
}

function choose(m, i) {
	const u = m.found && m.found[i];
	if (!u)
		return close(m);
	const v = m.area.value, caret = m.area.selectionStart;
	const put = '@' + u.name + ' ';
	m.area.value = v.slice(0, m.start) + put + v.slice(caret);
	m.area.selectionStart = m.area.selectionEnd = m.start + put.length;
	close(m);
}

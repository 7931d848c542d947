// SPDX-License-Identifier: MIT
/*
 * contacts-select.js: rows of the contacts list picked with their check
 * boxes (one by one, or all those shown), counted in the bar that then
 * shows, where a tag is added to or removed from them all at once. The
 * list's state `c` (contacts-list.js) is passed in; c.selected maps each
 * picked id to its name.
 */

function boxes(c) {
	return Array.from(c.el.body.querySelectorAll('input[type="checkbox"]'));
}

/* The "select all" box as the rows' boxes are: on, off or some. */
export function syncAll(c) {
	const all = boxes(c);
	const on = all.filter((b) => b.checked).length;
	const box = c.el.all;
	box.checked = all.length > 0 && on === all.length;
	box.indeterminate = on > 0 && on < all.length;
	box.disabled = !all.length;
}

export function showSelection(c) {
	const { el, selected } = c;
	const n = selected.size;
	el.bulk.hidden = n === 0;
	el.bulkCount.textContent = n === 1 ? '1 contact selected' : c.ctx.format.number(n) + ' contacts selected';
	for (const tr of Array.from(el.body.rows))
		tr.classList.toggle('is-selected', selected.has(tr.dataset.id));
}

function pick(c, box) {
	const tr = box.closest('tr');
	if (box.checked)
		c.selected.set(box.value, tr ? tr.querySelector('.c-name-text').textContent : '');
	else
		c.selected.delete(box.value);
}

/* The tag typed added to (or removed from) every contact picked. */
async function bulk(c, adding) {
	const { el, ctx } = c;
	const name = el.bulkTag.value.trim();
	if (!name) {
		el.bulkTag.focus();
		ctx.ui.toast('Type the tag to ' + (adding ? 'add' : 'remove') + ' first.', { kind: 'error' });
		return;
	}
	const ids = Array.from(c.selected.keys()).map(Number);
	const buttons = Array.from(el.bulkForm.querySelectorAll('button'));
	buttons.forEach((b) => { b.disabled = true; });
	try {
		const answer = await ctx.api.post('/api/tags/bulk', Object.assign({ contact_ids: ids },
			adding ? { add: [name] } : { remove: [name] }));
		if (c.left)
			return;
		const n = ctx.format.plural(adding ? answer.added : answer.removed, 'contact', 'contacts');
		ctx.ui.toast(adding ? 'Tag “' + name + '” added to ' + n + '.' : 'Tag “' + name + '” removed from ' + n + '.',
			{ kind: 'success' });
		el.bulkTag.value = '';
		await c.loadTags();
		await c.reload();
	} catch (e) {
		if (!c.left)
			ctx.ui.toast((adding ? 'The tag could not be added: ' : 'The tag could not be removed: ') + e.message,
				{ kind: 'error' });
	} finally {
		buttons.forEach((b) => { b.disabled = false; });
	}
}

export function selecting(c) {
	const { el } = c;
	el.body.addEventListener('change', (e) => {
		if (e.target.type !== 'checkbox')
			return;
		pick(c, e.target);
		syncAll(c);
		showSelection(c);
	});
	el.all.addEventListener('change', () => {
		for (const b of boxes(c)) {
			b.checked = el.all.checked;
			pick(c, b);
		}
		syncAll(c);
		showSelection(c);
	});
	el.bulkForm.addEventListener('submit', (e) => {
		e.preventDefault();
		bulk(c, true);
	});
	el.bulkForm.querySelector('[data-remove]').addEventListener('click', () => bulk(c, false));
	el.bulkForm.querySelector('[data-clear]').addEventListener('click', () => {
		c.selected.clear();
		boxes(c).forEach((b) => { b.checked = false; });
		syncAll(c);
		showSelection(c);
		el.all.focus();
	});
}

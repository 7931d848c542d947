// SPDX-License-Identifier: MIT
/*
 * contacts.js: the contacts pages. The shell opens this one module for
 * /app/contacts (the list, here) and /app/contacts/:id (a contact's
 * record, record.js, imported when first needed; /app/contacts/new is
 * the form of form.js for a new contact). The parts loaded later get the
 * helpers they share with the list as an argument (`lib`), never by
 * importing this file, so no two files name each other.
 *
 * The list: search as you type (200 ms after the last key; an answer for
 * an older input is dropped), a tag filter, the sort orders the API
 * offers, the count, pages on the cursor as the end of the list comes
 * into view (or by the "Load more" button), rows picked with check boxes
 * for adding or removing a tag on all of them at once, export of what the
 * filters select (a download) and import of a CSV file (importer.js).
 * The search, tag and sort stay in the URL, so reload and back keep them.
 *
 * The list is in parts, each given the list's state `c`: contacts-list.js
 * (what it shows, its rows in pages, its filters, export and import) and
 * contacts-select.js (rows picked, and a tag added to or removed from
 * them all).
 *
 * Every name and value is put in as text (ctx.html, textContent).
 */
import { list } from './contacts-list.js';

const SORTS = [
	['-created', 'Newest first'],
	['created', 'Oldest first'],
	['-updated', 'Recently updated'],
	['updated', 'Least recently updated'],
	['name', 'Name A to Z'],
	['-name', 'Name Z to A'],
];

/* ---- what the parts share ---------------------------------------------- */

/* contacts.css, once (the shell's stylesheet() remembers it); resolves
 * when it applies. */
function styles(ctx) {
	return ctx.ui.stylesheet(new URL('./contacts.css', import.meta.url));
}

/* A contact's name as people read it: first and last name, else its
 * e-mail or phone. */
function fullName(c) {
	const name = [c.first_name, c.last_name].filter(Boolean).join(' ').trim();
	return name || c.email || c.phone_typed || c.phone || 'Contact ' + c.id;
}

function initials(c) {
	const parts = [c.first_name, c.last_name].filter(Boolean);
	const letters = (parts.length ? parts : [fullName(c)]).map((p) => String(p).trim().charAt(0));
	return letters.join('').slice(0, 2).toUpperCase();
}

/* A tag as a chip, its colour from the tag when it is one. */
function chip(ctx, tag, extra) {
	const name = typeof tag === 'string' ? tag : tag.name;
	const el = ctx.html`<span class="tag"><span class="tag-dot" aria-hidden="true"></span><span class="tag-name">${name}</span>${extra}</span>`.firstElementChild;
	if (tag.color && /^#[0-9a-f]{6}$/i.test(tag.color))
		el.style.setProperty('--tag', tag.color);
	return el;
}

/* A row shows its first tag, cut short if it does not fit, and counts
 * the rest: the column is narrow on a laptop, and a contact with many
 * tags keeps the row's height. Its page shows them all. The tag the
 * list is filtered by comes first. */
const ROW_TAGS = 1;

function rowTags(ctx, tags, filter) {
	const name = (t) => (typeof t === 'string' ? t : t.name);
	if (!tags.length)
		return ''; /* the cell stays :empty, which a phone's card hides */
	if (filter)
		tags = tags.filter((t) => name(t) === filter).concat(tags.filter((t) => name(t) !== filter));
	const shown = tags.slice(0, ROW_TAGS).map((t) => {
		const el = chip(ctx, t);
		el.title = el.textContent;
		return el;
	});
	if (tags.length <= ROW_TAGS)
		return ctx.html`<span class="c-tag-line">${shown}</span>`;
	const rest = tags.slice(ROW_TAGS).map(name);
	const more = ctx.html`<span class="tag tag-more" title="${rest.join(', ')}"><span aria-hidden="true">+${rest.length}</span><span class="visually-hidden">${'and ' + rest.join(', ')}</span></span>`;
	return ctx.html`<span class="c-tag-line">${shown}${more}</span>`;
}

const lib = { styles, fullName, initials, chip, rowTags, SORTS };

function notFound() {
	const e = new Error('no such contact');
	e.status = 404;
	return e;
}

export default async function page(view, ctx) {
	const id = ctx.params.id;
	if (id === undefined)
		return list(view, ctx, lib);
	if (id === 'new') {
		const [form] = await Promise.all([import('./form.js'), styles(ctx)]);
		return form.newContact(view, ctx, lib);
	}
	if (!/^[1-9]\d{0,17}$/.test(id))
		throw notFound();
	const [record] = await Promise.all([import('./record.js'), styles(ctx)]);
	return record.default(view, ctx, lib);
}


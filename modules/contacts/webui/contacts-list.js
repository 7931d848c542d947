// SPDX-License-Identifier: MIT
/*
 * contacts-list.js: the contacts list (/app/contacts), opened by
 * contacts.js with the helpers it shares as `lib`. Search as you type
 * (200 ms after the last key), a tag filter, the sort orders the API
 * offers, the count, pages as the end of the list comes into view (or by
 * the "Load more" button: ctx.ui.paged), export of what the filters
 * select (a download) and import of a CSV file (importer.js). The search,
 * tag and sort stay in the URL, so reload and back keep them. Picking
 * rows and tagging them is contacts-select.js's.
 *
 * The list's state `c`: {ctx, lib, el, state (q, tag, sort), selected,
 * tags, left (the page was left), list (the pager)}.
 */
import { selecting, showSelection, syncAll } from './contacts-select.js';

const PAGE_ROWS = 50;
const DEBOUNCE_MS = 200;

export async function list(view, ctx, lib) {
	const q = ctx.query;
	const c = {
		ctx, lib, view,
		state: {
			q: q.get('q') || '',
			tag: q.get('tag') || '',
			sort: lib.SORTS.some((s) => s[0] === q.get('sort')) ? q.get('sort') : '-created',
		},
		selected: new Map(), /* id -> name */
		tags: [],
		left: false,
	};
	ctx.title('Contacts');
	view.classList.add('contacts');
	c.el = frame(c);
	c.list = ctx.ui.paged({
		more: c.el.moreButton, what: 'The contacts', signal: ctx.signal,
		open: () => ctx.api.list('/api/contacts', Object.assign({ limit: PAGE_ROWS, count: 1 }, query(c))),
		draw: (rows, pager, fresh) => draw(c, rows, pager, fresh),
		failed: (e, fresh) => failed(c, e, fresh),
	});
	c.reload = () => reload(c);
	c.loadTags = () => loadTags(c);
	selecting(c);
	filtering(c);
	preloading(c);
	const importer = importing(c);
	exportHref(c);
	await Promise.all([lib.styles(ctx), loadTags(c), reload(c)]);
	return () => {
		c.left = true;
		c.list.stop();
		clearTimeout(c.timer);
		importer.leave();
	};
}

function frame(c) {
	const { ctx, view, state } = c;
	const { html } = ctx;
	view.append(html`
<div class="page-head">
	<h1>Contacts</h1>
	<p class="c-count" role="status" aria-live="polite"></p>
	<div class="c-actions">
		<button type="button" class="btn" data-import aria-expanded="false" aria-controls="c-import">Import CSV</button>
		<a class="btn" data-export download="contacts.csv" href="#">Export CSV</a>
		${/admin$/.test(ctx.user.role) ? html`<a class="btn" href="${ctx.href('/contacts/fields')}">Custom fields</a>
			<a class="btn" href="${ctx.href('/contacts/tags')}">Tags</a>` : null}
		<a class="btn btn-primary" href="${ctx.href('/contacts/new')}">New contact</a>
	</div>
</div>
<div class="c-import card" id="c-import" hidden></div>
<form class="c-filters" role="search" aria-label="Filter contacts">
	<div class="c-search">
		<label for="c-q">Search</label>
		<input id="c-q" name="q" type="search" autocomplete="off" spellcheck="false"
			placeholder="Name, e-mail, phone or company" value="${state.q}">
	</div>
	<div>
		<label for="c-tag">Tag</label>
		<select id="c-tag" name="tag"><option value="">All tags</option></select>
	</div>
	<div>
		<label for="c-sort">Sort by</label>
		<select id="c-sort" name="sort">${c.lib.SORTS.map((s) => html`<option value="${s[0]}">${s[1]}</option>`)}</select>
	</div>
</form>
<div class="c-bulk" role="region" aria-label="Selected contacts" hidden>
	<p class="c-bulk-count" aria-live="polite"></p>
	<form class="c-bulk-form">
		<label for="c-bulk-tag">Tag to add or remove</label>
		<input id="c-bulk-tag" name="tag" list="c-tag-names" autocomplete="off" required maxlength="64">
		<datalist id="c-tag-names"></datalist>
		<button type="submit" class="btn btn-primary" data-add>Add tag</button>
		<button type="button" class="btn" data-remove>Remove tag</button>
		<button type="button" class="btn btn-quiet" data-clear>Clear selection</button>
	</form>
</div>
<div class="c-table-wrap">
	<table class="table c-table">
		<thead><tr>
			<th class="c-check" scope="col"><label class="c-box"><input type="checkbox" data-all><span class="visually-hidden">Select all shown</span></label></th>
			<th scope="col" class="c-name-h">Name</th>
			<th scope="col" class="c-email">E-mail</th>
			<th scope="col" class="c-phone">Phone</th>
			<th scope="col" class="c-company">Company</th>
			<th scope="col" class="c-tags">Tags</th>
			<th scope="col" class="c-created">Created</th>
		</tr></thead>
		<tbody></tbody>
	</table>
</div>
<div class="c-empty" hidden></div>
<div class="c-more">
	<p class="c-shown muted"></p>
	<button type="button" class="btn" data-more hidden>Load more</button>
</div>`);
	const q = (sel) => view.querySelector(sel);
	const el = {
		count: q('.c-count'), importButton: q('[data-import]'), importPanel: q('.c-import'),
		exportLink: q('[data-export]'), filters: q('.c-filters'), q: q('#c-q'), tag: q('#c-tag'),
		sort: q('#c-sort'), bulk: q('.c-bulk'), bulkCount: q('.c-bulk-count'), bulkForm: q('.c-bulk-form'),
		bulkTag: q('#c-bulk-tag'), tagNames: q('#c-tag-names'), all: q('[data-all]'), table: q('.c-table'),
		wrap: q('.c-table-wrap'), body: q('tbody'), empty: q('.c-empty'), more: q('.c-more'),
		moreButton: q('[data-more]'), shown: q('.c-shown'),
	};
	el.sort.value = state.sort;
	return el;
}

function query(c) {
	const s = c.state;
	return { q: s.q.trim(), tag: s.tag, sort: s.sort === '-created' ? null : s.sort };
}

function filtered(c) {
	return !!(c.state.q.trim() || c.state.tag);
}

/* ---- tags ---- */

function fillTags(c) {
	const { el, tags } = c;
	const { html } = c.ctx;
	const keep = c.state.tag;
	el.tag.textContent = '';
	el.tag.append(html`<option value="">All tags</option>${tags.map((t) =>
		html`<option value="${t.name}">${t.name + ' (' + t.contacts + ')'}</option>`)}`);
	if (keep && !tags.some((t) => t.name === keep))
		el.tag.append(html`<option value="${keep}">${keep}</option>`);
	el.tag.value = keep;
	el.tagNames.textContent = '';
	el.tagNames.append(html`${tags.map((t) => html`<option value="${t.name}"></option>`)}`);
}

async function loadTags(c) {
	try {
		const answer = await c.ctx.api.get('/api/tags', { limit: 1000 });
		c.tags = (answer && answer.data) || [];
	} catch (e) {
		c.tags = [];
	}
	if (!c.left)
		fillTags(c);
}

/* ---- the rows, in pages ---- */

function row(c, contact) {
	const { ctx, lib } = c;
	const { html } = ctx;
	const name = lib.fullName(contact);
	return html`<tr data-id="${contact.id}">
		<td class="c-check"><label class="c-box"><input type="checkbox" value="${contact.id}"
			checked="${c.selected.has(String(contact.id))}"><span class="visually-hidden">${'Select ' + name}</span></label></td>
		<td class="c-name"><a href="${ctx.href('/contacts/' + contact.id)}" title="${name}"><span class="avatar" aria-hidden="true">${lib.initials(contact)}</span><span class="c-name-text">${name}</span></a>
			<span class="c-sub">${contact.email || contact.phone_typed || contact.phone || ''}</span></td>
		<td class="c-email" title="${contact.email}">${contact.email ? html`<a href="${'mailto:' + contact.email}">${contact.email}</a>` : ''}</td>
		<td class="c-phone">${contact.phone_typed || contact.phone}</td>
		<td class="c-company" title="${contact.company_name}">${contact.company_name}</td>
		<td class="c-tags">${lib.rowTags(ctx, contact.tags || [], c.state.tag)}</td>
		<td class="c-created">${ctx.format.day(contact.created_at)}</td>
	</tr>`;
}

function skeletonRows(c) {
	const { body } = c.el;
	body.textContent = '';
	for (let i = 0; i < 8; i++) {
		body.append(c.ctx.html`<tr class="c-skeleton" aria-hidden="true"><td class="c-check"></td>
			<td><span class="skeleton-line"></span></td><td class="c-email"><span class="skeleton-line"></span></td>
			<td class="c-phone"><span class="skeleton-line"></span></td><td class="c-company"><span class="skeleton-line"></span></td>
			<td class="c-tags"></td><td class="c-created"><span class="skeleton-line"></span></td></tr>`);
	}
}

/* The first page for the filters as they are now. */
function reload(c) {
	const { el } = c;
	c.selected.clear();
	showSelection(c);
	el.table.setAttribute('aria-busy', 'true');
	el.empty.hidden = true;
	el.wrap.hidden = false;
	skeletonRows(c);
	return c.list.restart();
}

/* A page of rows: the first in place of the skeleton, later ones after. */
function draw(c, rows, pager, fresh) {
	const { el, ctx } = c;
	const f = ctx.format;
	if (fresh) {
		el.table.removeAttribute('aria-busy');
		el.body.textContent = '';
		el.wrap.hidden = !rows.length;
		el.empty.hidden = !!rows.length;
		if (!rows.length)
			emptyState(c);
	}
	el.body.append(ctx.html`${rows.map((r) => row(c, r))}`);
	const total = pager.total;
	el.count.textContent = typeof total !== 'number' ? ''
		: filtered(c) ? f.plural(total, 'match', 'matches') : f.plural(total, 'contact', 'contacts');
	el.shown.textContent = pager.loaded && typeof total === 'number' && !pager.done
		? 'Showing ' + f.number(pager.loaded) + ' of ' + f.number(total) : '';
	syncAll(c);
}

function failed(c, e, fresh) {
	const { el, ctx } = c;
	if (!fresh) {
		ctx.ui.toast('More contacts could not be loaded: ' + e.message, { kind: 'error' });
		return;
	}
	el.table.removeAttribute('aria-busy');
	el.body.textContent = '';
	el.empty.hidden = false;
	el.empty.textContent = '';
	el.empty.append(ctx.html`<h2>The contacts could not be loaded</h2><p class="muted">${e.message}</p>
		<p><button type="button" class="btn">Try again</button></p>`);
	el.empty.querySelector('button').addEventListener('click', () => reload(c));
}

function emptyState(c) {
	const { el, ctx, state } = c;
	const { html } = ctx;
	el.empty.textContent = '';
	if (filtered(c)) {
		el.empty.append(html`<h2>No contacts match</h2>
			<p class="muted">${state.q.trim() ? 'Nothing matches “' + state.q.trim() + '”' + (state.tag ? ' with the tag “' + state.tag + '”' : '') + '.'
				: 'No contact has the tag “' + state.tag + '”.'} Check the spelling, or clear the filters.</p>
			<p><button type="button" class="btn" data-reset>Clear search and filters</button></p>`);
		el.empty.querySelector('[data-reset]').addEventListener('click', () => {
			el.q.value = '';
			el.tag.value = '';
			changed(c, true);
			el.q.focus();
		});
	} else {
		el.empty.append(html`<h2>No contacts yet</h2>
			<p class="muted">Add the people you work with one by one, or bring them all in from a spreadsheet saved as CSV.</p>
			<p class="c-empty-actions"><a class="btn btn-primary" href="${ctx.href('/contacts/new')}">New contact</a>
			<button type="button" class="btn" data-import-empty>Import CSV</button></p>`);
		el.empty.querySelector('[data-import-empty]').addEventListener('click', () => c.openImport());
	}
}

/* ---- filters, export ---- */

/* The filters changed: the URL, the export and the list follow. */
function changed(c, now) {
	const { el, state } = c;
	state.q = el.q.value;
	state.tag = el.tag.value;
	state.sort = el.sort.value;
	clearTimeout(c.timer);
	const go = () => {
		if (c.left)
			return;
		c.ctx.setQuery(query(c));
		exportHref(c);
		reload(c);
	};
	if (now)
		go();
	else
		c.timer = setTimeout(go, DEBOUNCE_MS);
}

function filtering(c) {
	const { el } = c;
	el.filters.addEventListener('submit', (e) => {
		e.preventDefault();
		changed(c, true);
	});
	el.q.addEventListener('input', () => changed(c, false));
	el.tag.addEventListener('change', () => changed(c, true));
	el.sort.addEventListener('change', () => changed(c, true));
}

function exportHref(c) {
	const { ctx } = c;
	const q = Object.assign({}, query(c), { location_id: ctx.location ? ctx.location.id : null });
	c.el.exportLink.href = ctx.api.url('/api/contacts/export.csv', q);
}

/* A contact's page is fetched as soon as a row is pointed at. */
function preloading(c) {
	let done = false;
	const preload = () => {
		if (done)
			return;
		done = true;
		const link = document.createElement('link');
		link.rel = 'modulepreload';
		link.href = new URL('./record.js', import.meta.url).href;
		document.head.append(link);
	};
	c.el.body.addEventListener('pointerover', (e) => {
		if (e.target.closest && e.target.closest('a'))
			preload();
	});
	c.el.body.addEventListener('focusin', (e) => {
		if (e.target.tagName === 'A')
			preload();
	});
}

/* ---- import ---- */

/* The import panel (importer.js, loaded when first opened). Sets
 * c.openImport; returns {leave}. */
function importing(c) {
	const { el, ctx } = c;
	let importer = null;
	c.openImport = async () => {
		el.importButton.setAttribute('aria-expanded', 'true');
		el.importPanel.hidden = false;
		if (!importer) {
			const mod = await import('./importer.js');
			if (c.left)
				return;
			importer = mod.default(el.importPanel, ctx, c.lib, {
				close() {
					el.importPanel.hidden = true;
					el.importButton.setAttribute('aria-expanded', 'false');
					el.importButton.focus();
				},
				imported() {
					loadTags(c);
					reload(c);
				},
			});
		}
		importer.focus();
	};
	el.importButton.addEventListener('click', () => {
		if (el.importPanel.hidden)
			c.openImport();
		else if (importer)
			importer.close();
	});
	return { leave: () => importer && importer.leave() };
}

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
 * Every name and value is put in as text (ctx.html, textContent).
 */

const PAGE_ROWS = 50;
const DEBOUNCE_MS = 200;

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
	return name || c.email || c.phone || 'Contact ' + c.id;
}

function initials(c) {
	const parts = [c.first_name, c.last_name].filter(Boolean);
	const letters = (parts.length ? parts : [fullName(c)]).map((p) => String(p).trim().charAt(0));
	return letters.join('').slice(0, 2).toUpperCase();
}

const dateFormat = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function day(iso) {
	const d = iso ? new Date(iso) : null;
	return d && !isNaN(d) ? dateFormat.format(d) : '';
}

function moment(iso) {
	const d = iso ? new Date(iso) : null;
	return d && !isNaN(d) ? timeFormat.format(d) : '';
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

/* The URL of a contact's page (the sub-account in it, so it can be
 * opened in another tab). */
function contactHref(ctx, id) {
	return '/app/contacts/' + encodeURIComponent(id) +
		(ctx.location ? '?location=' + encodeURIComponent(ctx.location.id) : '');
}

function listHref(ctx) {
	return '/app/contacts' + (ctx.location ? '?location=' + encodeURIComponent(ctx.location.id) : '');
}

const lib = { styles, fullName, initials, day, moment, chip, contactHref, listHref, SORTS };

function notFound() {
	const e = new Error('no such contact');
	e.status = 404;
	return e;
}

export default async function page(view, ctx) {
	const id = ctx.params.id;
	if (id === undefined)
		return list(view, ctx);
	if (id === 'new') {
		const [form] = await Promise.all([import('./form.js'), styles(ctx)]);
		return form.newContact(view, ctx, lib);
	}
	if (!/^[1-9]\d{0,17}$/.test(id))
		throw notFound();
	const [record] = await Promise.all([import('./record.js'), styles(ctx)]);
	return record.default(view, ctx, lib);
}

/* ---- the list -------------------------------------------------------------- */

async function list(view, ctx) {
	const { html, api, ui } = ctx;
	const state = {
		q: ctx.query.get('q') || '',
		tag: ctx.query.get('tag') || '',
		sort: SORTS.some((s) => s[0] === ctx.query.get('sort')) ? ctx.query.get('sort') : '-created',
	};
	const selected = new Map(); /* id -> name */
	let pager = null;
	let gen = 0;
	let loading = false;
	let timer = 0;
	let left = false;
	let tags = [];

	ctx.title('Contacts');
	view.classList.add('contacts');
	view.append(html`
<div class="page-head">
	<h1>Contacts</h1>
	<p class="c-count" role="status" aria-live="polite"></p>
	<div class="c-actions">
		<button type="button" class="btn" data-import aria-expanded="false" aria-controls="c-import">Import CSV</button>
		<a class="btn" data-export download="contacts.csv" href="#">Export CSV</a>
		${/admin$/.test(ctx.user.role) ? html`<a class="btn" href="${contactHref(ctx, 'fields')}">Custom fields</a>` : null}
		<a class="btn btn-primary" href="${contactHref(ctx, 'new')}">New contact</a>
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
		<select id="c-sort" name="sort">${SORTS.map((s) => html`<option value="${s[0]}">${s[1]}</option>`)}</select>
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

	const el = {
		count: view.querySelector('.c-count'),
		importButton: view.querySelector('[data-import]'),
		importPanel: view.querySelector('.c-import'),
		exportLink: view.querySelector('[data-export]'),
		filters: view.querySelector('.c-filters'),
		q: view.querySelector('#c-q'),
		tag: view.querySelector('#c-tag'),
		sort: view.querySelector('#c-sort'),
		bulk: view.querySelector('.c-bulk'),
		bulkCount: view.querySelector('.c-bulk-count'),
		bulkForm: view.querySelector('.c-bulk-form'),
		bulkTag: view.querySelector('#c-bulk-tag'),
		tagNames: view.querySelector('#c-tag-names'),
		all: view.querySelector('[data-all]'),
		table: view.querySelector('.c-table'),
		wrap: view.querySelector('.c-table-wrap'),
		body: view.querySelector('tbody'),
		empty: view.querySelector('.c-empty'),
		more: view.querySelector('.c-more'),
		moreButton: view.querySelector('[data-more]'),
		shown: view.querySelector('.c-shown'),
	};
	el.sort.value = state.sort;

	function query() {
		return { q: state.q.trim(), tag: state.tag, sort: state.sort === '-created' ? null : state.sort };
	}

	function fillTags() {
		const keep = state.tag;
		el.tag.textContent = '';
		el.tag.append(html`<option value="">All tags</option>${tags.map((t) =>
			html`<option value="${t.name}">${t.name + ' (' + t.contacts + ')'}</option>`)}`);
		if (keep && !tags.some((t) => t.name === keep))
			el.tag.append(html`<option value="${keep}">${keep}</option>`);
		el.tag.value = keep;
		el.tagNames.textContent = '';
		el.tagNames.append(html`${tags.map((t) => html`<option value="${t.name}"></option>`)}`);
	}

	async function loadTags() {
		try {
			const answer = await api.get('/api/tags', { limit: 1000 });
			tags = (answer && answer.data) || [];
		} catch (e) {
			tags = [];
		}
		if (!left)
			fillTags();
	}

	function row(c) {
		const name = fullName(c);
		const tr = html`<tr data-id="${c.id}">
			<td class="c-check"><label class="c-box"><input type="checkbox" value="${c.id}"
				checked="${selected.has(String(c.id))}"><span class="visually-hidden">${'Select ' + name}</span></label></td>
			<td class="c-name"><a href="${contactHref(ctx, c.id)}" title="${name}"><span class="avatar" aria-hidden="true">${initials(c)}</span><span class="c-name-text">${name}</span></a>
				<span class="c-sub">${c.email || c.phone || ''}</span></td>
			<td class="c-email" title="${c.email}">${c.email ? html`<a href="${'mailto:' + c.email}">${c.email}</a>` : ''}</td>
			<td class="c-phone">${c.phone}</td>
			<td class="c-company" title="${c.company_name}">${c.company_name}</td>
			<td class="c-tags">${rowTags(ctx, c.tags || [], state.tag)}</td>
			<td class="c-created">${day(c.created_at)}</td>
		</tr>`;
		return tr;
	}

	function skeletonRows() {
		el.body.textContent = '';
		for (let i = 0; i < 8; i++) {
			el.body.append(html`<tr class="c-skeleton" aria-hidden="true"><td class="c-check"></td>
				<td><span class="skeleton-line"></span></td><td class="c-email"><span class="skeleton-line"></span></td>
				<td class="c-phone"><span class="skeleton-line"></span></td><td class="c-company"><span class="skeleton-line"></span></td>
				<td class="c-tags"></td><td class="c-created"><span class="skeleton-line"></span></td></tr>`);
		}
	}

	function plural(n, one, many) {
		return n.toLocaleString() + ' ' + (n === 1 ? one : many);
	}

	function filtered() {
		return !!(state.q.trim() || state.tag);
	}

	function showCount() {
		const total = pager && pager.total;
		if (typeof total !== 'number') {
			el.count.textContent = '';
			return;
		}
		el.count.textContent = filtered() ? plural(total, 'match', 'matches') : plural(total, 'contact', 'contacts');
	}

	function showMore() {
		const done = !pager || pager.done;
		el.moreButton.hidden = done;
		/* aria-disabled, not disabled: a disabled button loses the
		 * keyboard's focus, and the next Enter would go nowhere. A press
		 * while loading is ignored by loadMore. */
		el.moreButton.setAttribute('aria-disabled', loading ? 'true' : 'false');
		el.moreButton.textContent = loading ? 'Loading…' : 'Load more';
		const total = pager && pager.total;
		el.shown.textContent = pager && pager.loaded && typeof total === 'number' && !done
			? 'Showing ' + pager.loaded.toLocaleString() + ' of ' + total.toLocaleString() : '';
	}

	function emptyState() {
		el.empty.textContent = '';
		if (filtered()) {
			el.empty.append(html`<h2>No contacts match</h2>
				<p class="muted">${state.q.trim() ? 'Nothing matches “' + state.q.trim() + '”' + (state.tag ? ' with the tag “' + state.tag + '”' : '') + '.'
					: 'No contact has the tag “' + state.tag + '”.'} Check the spelling, or clear the filters.</p>
				<p><button type="button" class="btn" data-reset>Clear search and filters</button></p>`);
			el.empty.querySelector('[data-reset]').addEventListener('click', () => {
				el.q.value = '';
				el.tag.value = '';
				changed(true);
				el.q.focus();
			});
		} else {
			el.empty.append(html`<h2>No contacts yet</h2>
				<p class="muted">Add the people you work with one by one, or bring them all in from a spreadsheet saved as CSV.</p>
				<p class="c-empty-actions"><a class="btn btn-primary" href="${contactHref(ctx, 'new')}">New contact</a>
				<button type="button" class="btn" data-import-empty>Import CSV</button></p>`);
			el.empty.querySelector('[data-import-empty]').addEventListener('click', () => openImport());
		}
	}

	function failed(e) {
		el.body.textContent = '';
		el.empty.hidden = false;
		el.empty.textContent = '';
		el.empty.append(html`<h2>The contacts could not be loaded</h2><p class="muted">${e.message}</p>
			<p><button type="button" class="btn">Try again</button></p>`);
		el.empty.querySelector('button').addEventListener('click', () => reload());
	}

	/* The pager's next rows for load number `mine`; null when a newer
	 * input's answer is the one to show, or when it failed (`fail` has
	 * said so). */
	async function nextRows(mine, fail) {
		try {
			const rows = await pager.next();
			if (mine !== gen || left)
				return null;
			loading = false;
			return rows;
		} catch (e) {
			if (mine === gen && !left) {
				loading = false;
				fail(e);
				showMore();
			}
			return null;
		}
	}

	/* The first page for the filters as they are now. */
	async function reload() {
		const mine = ++gen;
		selected.clear();
		showSelection();
		pager = api.list('/api/contacts', Object.assign({ limit: PAGE_ROWS, count: 1 }, query()));
		loading = true;
		el.table.setAttribute('aria-busy', 'true');
		el.empty.hidden = true;
		el.wrap.hidden = false;
		skeletonRows();
		showMore();
		const rows = await nextRows(mine, (e) => {
			el.table.removeAttribute('aria-busy');
			failed(e);
		});
		if (!rows)
			return;
		el.table.removeAttribute('aria-busy');
		el.body.textContent = '';
		el.body.append(html`${rows.map(row)}`);
		el.wrap.hidden = !rows.length;
		el.empty.hidden = !!rows.length;
		if (!rows.length)
			emptyState();
		showCount();
		showMore();
		syncAll();
		observe();
	}

	async function loadMore() {
		if (loading || !pager || pager.done)
			return;
		const mine = gen;
		loading = true;
		showMore();
		const rows = await nextRows(mine, (e) =>
			ui.toast('More contacts could not be loaded: ' + e.message, { kind: 'error' }));
		if (!rows)
			return;
		el.body.append(html`${rows.map(row)}`);
		showMore();
		syncAll();
		observe();
	}

	/* The filters changed: the URL, the export and the list follow. */
	function changed(now) {
		state.q = el.q.value;
		state.tag = el.tag.value;
		state.sort = el.sort.value;
		clearTimeout(timer);
		const go = () => {
			if (left)
				return;
			if (ctx.setQuery)
				ctx.setQuery(query());
			exportHref();
			reload();
		};
		if (now)
			go();
		else
			timer = setTimeout(go, DEBOUNCE_MS);
	}

	function exportHref() {
		const q = Object.assign({}, query(), { location_id: ctx.location ? ctx.location.id : null });
		el.exportLink.href = api.url('/api/contacts/export.csv', q);
	}

	/* ---- scrolling on ---- */
	let observer = null;
	function observe() {
		if (!('IntersectionObserver' in window) || left)
			return;
		if (!observer) {
			observer = new IntersectionObserver((entries) => {
				if (entries.some((e) => e.isIntersecting))
					loadMore();
			}, { rootMargin: '0px 0px 400px 0px' });
		}
		observer.disconnect();
		if (pager && !pager.done)
			observer.observe(el.more);
	}

	/* ---- selection ---- */
	function boxes() {
		return Array.from(el.body.querySelectorAll('input[type="checkbox"]'));
	}

	function syncAll() {
		const all = boxes();
		const on = all.filter((b) => b.checked).length;
		el.all.checked = all.length > 0 && on === all.length;
		el.all.indeterminate = on > 0 && on < all.length;
		el.all.disabled = !all.length;
	}

	function showSelection() {
		const n = selected.size;
		el.bulk.hidden = n === 0;
		el.bulkCount.textContent = n === 1 ? '1 contact selected' : n.toLocaleString() + ' contacts selected';
		for (const tr of Array.from(el.body.rows))
			tr.classList.toggle('is-selected', selected.has(tr.dataset.id));
	}

	function pick(box) {
		const tr = box.closest('tr');
		if (box.checked)
			selected.set(box.value, tr ? tr.querySelector('.c-name-text').textContent : '');
		else
			selected.delete(box.value);
	}

	el.body.addEventListener('change', (e) => {
		if (e.target.type !== 'checkbox')
			return;
		pick(e.target);
		syncAll();
		showSelection();
	});
	el.all.addEventListener('change', () => {
		for (const b of boxes()) {
			b.checked = el.all.checked;
			pick(b);
		}
		syncAll();
		showSelection();
	});

	async function bulk(adding) {
		const name = el.bulkTag.value.trim();
		if (!name) {
			el.bulkTag.focus();
			ui.toast('Type the tag to ' + (adding ? 'add' : 'remove') + ' first.', { kind: 'error' });
			return;
		}
		const ids = Array.from(selected.keys()).map(Number);
		const buttons = Array.from(el.bulkForm.querySelectorAll('button'));
		buttons.forEach((b) => { b.disabled = true; });
		try {
			const answer = await api.post('/api/tags/bulk', Object.assign({ contact_ids: ids },
				adding ? { add: [name] } : { remove: [name] }));
			if (left)
				return;
			const n = adding ? answer.added : answer.removed;
			ui.toast(adding ? 'Tag “' + name + '” added to ' + plural(n, 'contact', 'contacts') + '.'
				: 'Tag “' + name + '” removed from ' + plural(n, 'contact', 'contacts') + '.', { kind: 'success' });
			el.bulkTag.value = '';
			await loadTags();
			await reload();
		} catch (e) {
			if (!left)
				ui.toast((adding ? 'The tag could not be added: ' : 'The tag could not be removed: ') + e.message,
					{ kind: 'error' });
		} finally {
			buttons.forEach((b) => { b.disabled = false; });
		}
	}

	el.bulkForm.addEventListener('submit', (e) => {
		e.preventDefault();
		bulk(true);
	});
	el.bulkForm.querySelector('[data-remove]').addEventListener('click', () => bulk(false));
	el.bulkForm.querySelector('[data-clear]').addEventListener('click', () => {
		selected.clear();
		boxes().forEach((b) => { b.checked = false; });
		syncAll();
		showSelection();
		el.all.focus();
	});

	/* ---- filters ---- */
	el.filters.addEventListener('submit', (e) => {
		e.preventDefault();
		changed(true);
	});
	el.q.addEventListener('input', () => changed(false));
	el.tag.addEventListener('change', () => changed(true));
	el.sort.addEventListener('change', () => changed(true));
	el.moreButton.addEventListener('click', () => loadMore());

	/* a contact's page is fetched as soon as a row is pointed at */
	let recordPreloaded = false;
	const preloadRecord = () => {
		if (recordPreloaded)
			return;
		recordPreloaded = true;
		const link = document.createElement('link');
		link.rel = 'modulepreload';
		link.href = new URL('./record.js', import.meta.url).href;
		document.head.append(link);
	};
	el.body.addEventListener('pointerover', (e) => {
		if (e.target.closest && e.target.closest('a'))
			preloadRecord();
	});
	el.body.addEventListener('focusin', (e) => {
		if (e.target.tagName === 'A')
			preloadRecord();
	});

	/* ---- import ---- */
	let importer = null;
	async function openImport() {
		el.importButton.setAttribute('aria-expanded', 'true');
		el.importPanel.hidden = false;
		if (!importer) {
			const mod = await import('./importer.js');
			if (left)
				return;
			importer = mod.default(el.importPanel, ctx, lib, {
				close() {
					el.importPanel.hidden = true;
					el.importButton.setAttribute('aria-expanded', 'false');
					el.importButton.focus();
				},
				imported() {
					loadTags();
					reload();
				},
			});
		}
		importer.focus();
	}
	el.importButton.addEventListener('click', () => {
		if (el.importPanel.hidden)
			openImport();
		else if (importer)
			importer.close();
	});

	exportHref();
	await Promise.all([styles(ctx), loadTags(), reload()]);
	return () => {
		left = true;
		clearTimeout(timer);
		if (observer)
			observer.disconnect();
		if (importer)
			importer.leave();
	};
}

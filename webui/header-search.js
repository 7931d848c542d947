// SPDX-License-Identifier: MIT
/*
 * header-search.js: the search box in the header, which finds records of
 * every kind at once. The shell knows no kind: each menu entry whose
 * module offers a search (hl_page.search in GET /api/pages) brings a small
 * script whose default export asks that module's own routes (so the
 * sub-account and "assigned only" rules hold) and answers
 * [{title, detail, path}]; the results show grouped under the entry's
 * label, at most LIMIT of each, in menu order.
 *
 * "/" (outside a field) or Ctrl+K / Cmd+K puts the focus in it. It asks
 * as the person types, DEBOUNCE_MS after the last key, and a newer text
 * aborts what the older one still waits for. An ARIA combobox: the input
 * owns a listbox of groups of options; ArrowDown/ArrowUp move the active
 * option (aria-activedescendant), Enter opens it (the first when none is
 * active), Escape closes the list, then empties the box. On a phone it
 * opens over the header, full width (shell.css).
 *
 * createSearch({api, navigate, href}) returns {el, setPages, focus}.
 */
import { html } from './html.js';

const LIMIT = 5;
const DEBOUNCE_MS = 180;

const glass = () => html`<svg class="icon" viewBox="0 0 16 16" aria-hidden="true"><circle cx="7" cy="7" r="4.5"/><path d="M10.5 10.5L14 14"/></svg>`;

export function createSearch(options) {
	const el = html`<div class="hsearch" role="search">
	<label for="hsearch-input" class="visually-hidden">Find anything</label>
	<span class="visually-hidden" id="hsearch-hint"></span>
	${glass()}
	<input id="hsearch-input" type="text" role="combobox" aria-autocomplete="list" aria-expanded="false"
		aria-controls="hsearch-list" aria-describedby="hsearch-hint" autocomplete="off" spellcheck="false"
		placeholder="Find anything (/)">
	<div class="hsearch-panel" hidden>
		<div id="hsearch-list" role="listbox" aria-label="Search results"></div>
		<p class="hsearch-note" role="status"></p>
	</div>
</div>`.firstElementChild;
	const input = el.querySelector('input');
	const panel = el.querySelector('.hsearch-panel');
	const list = el.querySelector('[role="listbox"]');
	const note = el.querySelector('.hsearch-note');
	const st = { sources: [], timer: 0, asking: null, active: -1 };

	input.addEventListener('input', () => {
		clearTimeout(st.timer);
		st.timer = setTimeout(() => ask(options, st, input.value.trim(), view), DEBOUNCE_MS);
	});
	input.addEventListener('keydown', (e) => keys(e, options, st, view, input));
	input.addEventListener('focus', () => {
		if (input.value.trim() && list.childElementCount)
			open(true);
	});
	list.addEventListener('mousedown', (e) => e.preventDefault()); /* the focus stays in the box */
	list.addEventListener('click', (e) => {
		const o = e.target.closest('[role="option"]');
		if (o)
			go(options, view, o);
	});
	el.addEventListener('focusout', (e) => {
		if (!e.relatedTarget || !el.contains(e.relatedTarget))
			open(false);
	});

	function open(yes) {
		panel.hidden = !yes;
		input.setAttribute('aria-expanded', yes ? 'true' : 'false');
		el.classList.toggle('is-open', yes);
		if (!yes)
			activate(-1);
	}
	function activate(i) {
		const all = view.options();
		st.active = i;
		all.forEach((o, k) => o.setAttribute('aria-selected', k === i ? 'true' : 'false'));
		if (i >= 0 && all[i]) {
			input.setAttribute('aria-activedescendant', all[i].id);
			all[i].scrollIntoView({ block: 'nearest' });
		} else {
			input.removeAttribute('aria-activedescendant');
		}
	}
	const listed = () => Array.from(list.querySelectorAll('[role="option"]'));
	const view = { el, input, list, note, open, activate, options: listed };

	return {
		el,
		setPages(pages) {
			st.sources = pages.filter((p) => p.search && p.label).map((p) => ({ label: p.label, url: p.search, mod: null }));
			el.hidden = !st.sources.length;
			/* what may be searched is what the sub-account's modules offer */
			el.querySelector('#hsearch-hint').textContent = new Intl.ListFormat('en')
				.format(st.sources.map((x) => x.label)) + ', as you type. Slash or Control K comes here.';
		},
		focus() {
			input.focus();
			input.select();
		},
	};
}

function keys(e, options, st, view, input) {
	const all = view.options();
	if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
		e.preventDefault();
		if (!all.length)
			return;
		view.open(true);
		const at = st.active;
		view.activate(e.key === 'ArrowDown' ? (at + 1) % all.length : at <= 0 ? all.length - 1 : at - 1);
	} else if (e.key === 'Enter') {
		e.preventDefault();
		const o = all[st.active >= 0 ? st.active : 0];
		if (o && !view.el.querySelector('.hsearch-panel').hidden)
			go(options, view, o);
	} else if (e.key === 'Escape') {
		e.preventDefault();
		e.stopPropagation();
		if (view.input.getAttribute('aria-expanded') === 'true') {
			view.open(false);
		} else {
			input.value = '';
			view.list.textContent = '';
			view.note.textContent = '';
		}
	}
}

function go(options, view, option) {
	view.open(false);
	view.input.blur();
	options.navigate(option.dataset.path);
}

/* The scripts of the sources, imported the first time someone searches. */
function loaded(source) {
	if (!source.mod) {
		source.mod = import(source.url).then((m) => m.default);
		source.mod.catch(() => { source.mod = null; });
	}
	return source.mod;
}

/* Asks every source for `q`; each group shows as its answer comes, in
 * menu order; an older search's answers are dropped and its requests
 * aborted. */
function ask(options, st, q, view) {
	if (st.asking)
		st.asking.abort();
	st.asking = null;
	if (!q) {
		view.list.textContent = '';
		view.note.textContent = '';
		view.open(false);
		return;
	}
	const controller = new AbortController();
	st.asking = controller;
	const answers = st.sources.map(() => undefined);
	view.note.textContent = 'Searching…';
	view.open(true);
	st.sources.forEach((source, i) => {
		loaded(source)
			.then((search) => search(q, { api: options.api, signal: controller.signal, limit: LIMIT }))
			.then((rows) => rows.slice(0, LIMIT), () => null)
			.then((rows) => {
				if (controller.signal.aborted)
					return;
				answers[i] = rows;
				draw(st, view, q, answers);
			});
	});
}

function draw(st, view, q, answers) {
	const groups = st.sources.map((s, i) => ({ label: s.label, rows: answers[i], i }))
		.filter((g) => g.rows && g.rows.length);
	const waiting = answers.some((a) => a === undefined);
	const failed = st.sources.filter((s, i) => answers[i] === null).map((s) => s.label);
	const was = st.active >= 0 && view.options()[st.active]; /* kept as later groups come */
	const keep = was ? was.dataset.path : null;
	view.list.textContent = '';
	view.list.append(html`${groups.map((g) => html`<div role="group" aria-labelledby="${'hsearch-g' + g.i}">
		<div class="hsearch-group" id="${'hsearch-g' + g.i}" role="presentation">${g.label}</div>
		${g.rows.map((r, k) => html`<div role="option" class="hsearch-option" id="${'hsearch-o' + g.i + '-' + k}"
			aria-selected="false" data-path="${r.path}"><span class="hsearch-title">${r.title}</span>
			${r.detail ? html`<span class="hsearch-detail">${r.detail}</span>` : ''}</div>`)}</div>`)}`);
	const again = keep ? view.options().findIndex((o) => o.dataset.path === keep) : -1;
	view.activate(again);
	const n = groups.reduce((sum, g) => sum + g.rows.length, 0);
	view.note.textContent = (waiting ? 'Searching… ' : '') +
		(n ? n + (n === 1 ? ' result' : ' results') + ' for “' + q + '”' : waiting ? '' : 'Nothing found for “' + q + '”') +
		(failed.length ? '. ' + failed.join(', ') + ' could not be searched.' : '');
}

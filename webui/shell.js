// SPDX-License-Identifier: MIT
/*
 * shell.js: the signed-in app around the pages: the header (product name,
 * who is signed in, sign-out), the menu, the sub-account switcher and the
 * router. first.js calls start(me, {showLogin}) once the server says who
 * is signed in; the shell gives the screen back through showLogin when
 * they sign out or their session ends. hooks.early lists the GETs
 * first.js sent ahead for the shell (api.js's adopt).
 *
 * Pages are plug-ins: GET /api/pages says which the enabled modules offer
 * this user in the current sub-account, in menu order; those with a label
 * are the menu. The shell knows no page by name: without /api/pages (404)
 * the menu is empty and says so.
 *
 * URLs are real: /app + a page's path (/app/contacts/12), with the current
 * sub-account in ?location=ID; /app itself opens the first menu entry, or
 * on a phone-sized screen the page offered as the phone's home. A path pattern's :name segments become
 * ctx.params. Links inside the app are followed with history.pushState;
 * back and forward re-route. A page's module is import()ed when it is
 * opened, preloaded when its menu link is hovered or focused (and the
 * first menu entries when the browser is idle, unless it saves data), and
 * the view shows a skeleton until the page's function has resolved (at
 * start the whole app waits a moment for that: FIRST_VIEW_MS). A
 * module that fails to load (a deploy removed its hashed file) reloads
 * the whole app once (a sessionStorage flag keeps it to once). Once
 * signed in, the shell registers the service worker (sw.js) when idle.
 *
 * The sub-account: the URL's ?location, else this tab's last choice
 * (sessionStorage), else the first the user may open. An agency user (or
 * anyone with more than one) switches with a searchable list; a location
 * user sees theirs and no switcher. A ?location the user may not open is
 * refused with a page saying so, and nothing is asked of the server for
 * it: /api/auth/me's list of locations is the server's own rule.
 *
 * A page gets `ctx`: the API client, the html template (and rendered,
 * for Markdown the server made HTML of), the shared
 * widgets (ui.js), the formatters of the current sub-account (format.js:
 * ctx.format, its currency and time zone, and ctx.href for links), the
 * route's params and query, the user, ctx.location ({id, name, timezone,
 * currency}; UTC and USD when the server names none), navigate, title,
 * setQuery, queryOf, offers(path) (whether a page of an enabled module
 * opens `path`, so a link to it is worth showing), a signal aborted when
 * the page is left, onLive, and
 * accountChanged (the person's or the agency's name changed: the top bar
 * says the new ones).
 *
 * The header's search (header-search.js) is fed the pages' search
 * sources as the menu loads; "/" or Ctrl+K puts the focus in it. The
 * bell beside it (notices.js) is the person's notifications, live.
 *
 * One session's state lives in `s` (null when signed out); `seq` numbers
 * navigations, and work that finishes after a newer one began is dropped.
 */
import { createApi } from './api.js';
import { appHref as hrefIn, createFormat } from './format.js';
import { createSearch } from './header-search.js';
import { createBell } from './notices.js';
import { html, rendered } from './html.js';
import { createLive } from './live.js';
import * as ui from './ui.js';

const APP = '/app';
const CHOSEN = 'hl.location';
const RELOADED = 'hl.reloaded-page';
const IDLE_PRELOADS = 2;
const PHONE_WIDTH = '(max-width: 600px)'; /* the phone's home page, HL_PAGE_PHONE_HOME */
const SWITCHER_ROWS = 100;
/* How long the app stays hidden at start for its first view: a page that
 * has its data by then shows in one frame with the app around it; one
 * that waits longer shows the shell's skeleton meanwhile. */
const FIRST_VIEW_MS = 300;

const styles = ui.stylesheet(new URL('./shell.css', import.meta.url));

const modules = new Map();
const preloaded = new Set();
let s = null;
let seq = 0;

function stored(key) {
	try {
		return sessionStorage.getItem(key);
	} catch (e) {
		return null;
	}
}

function store(key, value) {
	try {
		if (value) sessionStorage.setItem(key, value);
		else sessionStorage.removeItem(key);
	} catch (e) { /* storage off: the URL still says it */ }
}

const logo = () => html`<svg class="brand-mark" viewBox="0 0 24 24" aria-hidden="true"><rect x="2" y="13" width="5" height="9" rx="1"/><rect x="9.5" y="8" width="5" height="14" rx="1"/><rect x="17" y="2" width="5" height="20" rx="1"/></svg>`;
const chevron = () => html`<svg class="chevron" viewBox="0 0 16 16" aria-hidden="true"><path d="M4 6l4 4 4-4"/></svg>`;
const bars = () => html`<svg class="icon" viewBox="0 0 16 16" aria-hidden="true"><path d="M2 4h12M2 8h12M2 12h12"/></svg>`;

/* ---- starting and stopping ---------------------------------------------- */

export async function start(me, hooks) {
	stop();
	const mine = {
		me,
		hooks,
		api: null,
		loc: null,        /* the sub-account the menu and the API use */
		refused: null,    /* a ?location the user may not open */
		pagesFor: undefined, /* the location the menu is for; undefined: none yet */
		pagesLoading: null,
		routes: [],
		menu: [],
		page: null,       /* the open page: {controller, leave} */
		live: null,       /* the live connection (live.js) */
		search: null,     /* the header's search (header-search.js) */
		ended: new AbortController(), /* aborted when this session's app goes */
		signingOut: false, /* the person asked to sign out: not "session ended" */
		reveal: 0,        /* the timer that shows the app (start) */
		routed: '',       /* the path and query last routed */
		el: {},
	};
	mine.api = createApi({
		location: () => mine.loc ? mine.loc.id : null,
		csrf: () => mine.me.csrf_token,
		onUnauthorized: () => expired(mine),
	});
	mine.live = createLive({
		onSignedOut: () => expired(mine),
		onStatus: (up) => liveStatus(mine, up),
	});
	for (const e of hooks.early || [])
		mine.api.adopt(e.path, e.where, e.response);
	s = mine;
	await styles;
	if (s !== mine)
		return;
	frame();
	window.addEventListener('popstate', onPopState);
	/* Each frame drawn on the way costs a layout and a paint, on a phone
	 * tens of ms: the header, the menu and a skeleton first, then the
	 * page's heading, then its figures. So the app shows with its first
	 * view (present), or after FIRST_VIEW_MS with whatever it has; until
	 * then the screen stays as it was (the form saying "Signing in…", or
	 * nothing on a reload). */
	mine.reveal = setTimeout(() => showApp(mine), FIRST_VIEW_MS);
	registerWorker();
	await route();
	showApp(mine);
}

/* Shows session `mine`'s app in place of the login form, unless another
 * session has taken over; every view does it again, which costs nothing. */
function showApp(mine) {
	if (!mine || s !== mine)
		return;
	clearTimeout(mine.reveal);
	const login = document.getElementById('login');
	if (login) /* out of the document, so its fields are not the page's */
		login.remove();
	document.documentElement.classList.remove('resuming');
	document.getElementById('app').hidden = false;
}

/* The service worker (sw.js: the shell offline, hashed files from its
 * cache), once signed in and when the browser is idle: never on the first
 * page's way to the login form. */
function registerWorker() {
	if (!('serviceWorker' in navigator) || !window.isSecureContext)
		return;
	const idle = window.requestIdleCallback || ((f) => setTimeout(f, 1000));
	idle(() => {
		navigator.serviceWorker.register('/sw.js').catch(() => { /* works without it */ });
	}, { timeout: 5000 });
}

function stop() {
	if (!s)
		return;
	leavePage();
	s.ended.abort();
	s.live.close();
	clearTimeout(s.reveal);
	window.removeEventListener('popstate', onPopState);
	document.removeEventListener('pointerdown', onPointerDown);
	document.removeEventListener('keydown', onShortcut);
	const app = document.getElementById('app');
	app.hidden = true;
	app.textContent = '';
	s = null;
	seq++;
}

/* The header says when changes made by others stop coming in. */
function liveStatus(mine, up) {
	if (s !== mine)
		return;
	const el = document.querySelector('.live-down');
	if (el)
		el.textContent = up ? '' : 'Reconnecting… changes by others show when back';
}

function expired(mine) {
	if (s !== mine || mine.signingOut)
		return;
	stop();
	mine.hooks.showLogin('Your session has ended. Sign in again to go on.');
}

async function signOut() {
	const mine = s;
	/* The server closes this session's live stream as it ends it: our
	 * own doing, not a session that ended elsewhere (expired). */
	mine.signingOut = true;
	try {
		await mine.api.post('/api/auth/logout');
	} catch (e) {
		mine.signingOut = false;
		if (e.status !== 401) /* a 401 is signed out already (and handled) */
			ui.toast('Signing out failed: ' + e.message, { kind: 'error' });
		return;
	}
	if (s !== mine)
		return;
	stop();
	history.replaceState(null, '', '/');
	mine.hooks.showLogin('');
}

/* ---- the frame ------------------------------------------------------------ */

function frame() {
	const me = s.me;
	const app = document.getElementById('app');
	app.textContent = '';
	app.append(html`
<a class="skip-link" href="#main" data-skip="main">Skip to the page</a>
<a class="skip-link" href="#side" data-skip="menu">Skip to the menu</a>
<header class="top">
	<button type="button" class="btn menu-button" aria-expanded="false" aria-controls="side">${bars()}Menu</button>
	<a class="brand" href="${APP}">${logo()}<span>HyperLevel</span></a>
	<span class="top-search"></span>
	<span class="top-space"></span>
	<span class="live-down" role="status"></span>
	<span class="top-bell"></span>
	<span class="who"><span class="who-name">${me.user.name}</span><span class="who-org">${me.agency && me.agency.name}</span></span>
	<button type="button" class="btn signout">Sign out</button>
</header>
<div class="frame">
	<aside class="side" id="side">
		<div class="place"></div>
		<nav class="nav" aria-label="Main">
			<ul class="menu"></ul>
			<div class="menu-note"></div>
		</nav>
	</aside>
	<div class="scrim" hidden></div>
	<main class="main" id="main" tabindex="-1"></main>
</div>`);
	const el = s.el;
	el.app = app;
	el.menuButton = app.querySelector('.menu-button');
	el.place = app.querySelector('.place');
	el.nav = app.querySelector('.nav');
	el.menu = app.querySelector('.menu');
	el.menuNote = app.querySelector('.menu-note');
	el.scrim = app.querySelector('.scrim');
	el.main = app.querySelector('.main');
	s.search = createSearch({ api: s.api, navigate: (path) => navigate(path) });
	s.search.el.hidden = true; /* until the menu says what may be searched */
	app.querySelector('.top-search').replaceWith(s.search.el);
	document.addEventListener('keydown', onShortcut);
	const mine = s;
	const bell = createBell({
		api: s.api, live: s.live, signal: s.ended.signal,
		locations: new Map(me.locations.map((l) => [l.id, l.name])),
		current: () => (mine.loc ? mine.loc.id : null),
		when: (iso) => createFormat(placeOf(mine.loc)).when(iso),
	});
	app.querySelector('.top-bell').replaceWith(bell.el);
	app.querySelector('.signout').addEventListener('click', signOut);
	el.menuButton.addEventListener('click', () => drawer(el.menuButton.getAttribute('aria-expanded') !== 'true'));
	el.scrim.addEventListener('click', () => drawer(false));
	app.addEventListener('click', onClick);
	app.addEventListener('keydown', (e) => {
		if (e.key === 'Escape' && el.menuButton.getAttribute('aria-expanded') === 'true') {
			drawer(false);
			el.menuButton.focus();
		}
	});
	el.nav.addEventListener('pointerover', onPreloadHint);
	el.nav.addEventListener('focusin', onPreloadHint);
	document.addEventListener('pointerdown', onPointerDown);
}

/* "/" (not while typing in a field) or Ctrl+K / Cmd+K: the header's
 * search. */
function onShortcut(e) {
	if (!s || e.defaultPrevented || e.altKey)
		return;
	const t = e.target;
	const typing = t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
	if ((e.key === 'k' || e.key === 'K') && (e.ctrlKey || e.metaKey) && !e.shiftKey) {
		e.preventDefault();
		s.search.focus();
	} else if (e.key === '/' && !typing && !e.ctrlKey && !e.metaKey) {
		e.preventDefault();
		s.search.focus();
	}
}

/* The menu as a drawer, on narrow screens. */
function drawer(open) {
	s.el.menuButton.setAttribute('aria-expanded', open ? 'true' : 'false');
	s.el.app.classList.toggle('drawer-open', open);
	s.el.scrim.hidden = !open;
}

/* ---- the router ------------------------------------------------------------ */

function isApp(path) {
	return path === APP || path.indexOf(APP + '/') === 0;
}

/* The URL of the page at `path` (under /app) in sub-account `loc`. */
function appHref(path, loc) {
	const where = loc === undefined ? s.loc : loc;
	return hrefIn(path, where ? where.id : null);
}

function onClick(e) {
	if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey)
		return;
	const a = e.target.closest && e.target.closest('a[href]');
	if (!a || a.target || a.hasAttribute('download'))
		return;
	if (a.dataset.skip) {
		e.preventDefault();
		skip(a.dataset.skip);
		return;
	}
	const u = new URL(a.href, location.href);
	if (u.origin !== location.origin || !isApp(u.pathname))
		return;
	if (u.hash && u.pathname === location.pathname && u.search === location.search)
		return; /* a place on this page: the browser's own */
	e.preventDefault();
	navigate(u.pathname + u.search + u.hash);
}

/* A skip link followed: the focus on the page (its content), or on the
 * menu's first entry (on a phone, in the drawer opened for it). The URL
 * keeps no #fragment for it. */
function skip(where) {
	if (where !== 'menu') {
		s.el.main.focus();
		return;
	}
	if (getComputedStyle(s.el.menuButton).display !== 'none')
		drawer(true); /* a phone's menu is in the drawer */
	const first = s.el.menu.querySelector('a');
	if (first)
		first.focus();
}

function onPopState() {
	closeOverlays();
	if (location.pathname + location.search !== s.routed) /* not just a #place */
		route();
}

function closeOverlays() {
	drawer(false);
	closeSwitcher(false);
}

/* Goes to `href` (a URL under /app, or a page's path: "/contacts/12"),
 * in the current sub-account unless it names one. */
function navigate(href, options) {
	if (!s)
		return Promise.resolve();
	if (href.charAt(0) === '/' && !isApp(href.split(/[?#]/)[0]))
		href = APP + href;
	const u = new URL(href, location.href);
	if (u.origin !== location.origin || !isApp(u.pathname)) {
		location.assign(u.href);
		return Promise.resolve();
	}
	if (!u.searchParams.has('location') && s.loc)
		u.searchParams.set('location', String(s.loc.id));
	closeOverlays();
	const next = u.pathname + u.search + u.hash;
	if (options && options.replace)
		history.replaceState(null, '', next);
	else
		history.pushState(null, '', next);
	window.scrollTo(0, 0);
	return route();
}

function compile(pages) {
	return pages.map((page, i) => ({ page, i, parts: page.path.split('/').filter(Boolean) }))
		.sort((a, b) => literals(b.parts) - literals(a.parts) || a.i - b.i);
}

function literals(parts) {
	return parts.filter((p) => p.charAt(0) !== ':').length;
}

/* The page whose path pattern `path` matches, with its params. */
function match(path) {
	const parts = path.split('/').filter(Boolean);
	for (const r of s.routes) {
		if (r.parts.length !== parts.length)
			continue;
		const params = {};
		let ok = true;
		for (let i = 0; i < parts.length && ok; i++) {
			if (r.parts[i].charAt(0) === ':') {
				try {
					params[r.parts[i].slice(1)] = decodeURIComponent(parts[i]);
				} catch (e) {
					ok = false;
				}
			} else {
				ok = r.parts[i] === parts[i];
			}
		}
		if (ok)
			return { page: r.page, params };
	}
	return null;
}

async function route() {
	const mine = s;
	const token = ++seq;
	const live = () => s === mine && seq === token;
	const url = new URL(location.href);
	mine.routed = location.pathname + location.search;
	if (!isApp(url.pathname)) /* "/" after signing in: the app's start */
		url.pathname = APP;
	let path = url.pathname.slice(APP.length);
	if (path.length > 1 && path.charAt(path.length - 1) === '/')
		path = path.slice(0, -1);
	path = path || '/';

	await chooseLocation(url, live);
	if (!live())
		return;
	if (!url.searchParams.has('location') && mine.loc)
		url.searchParams.set('location', String(mine.loc.id));
	if (url.href !== location.href)
		history.replaceState(null, '', url.pathname + url.search + url.hash);
	mine.routed = url.pathname + url.search;
	if (mine.refused)
		return refusedView();
	if (path === '/') {
		if (!mine.menu.length)
			return homeView();
		path = startPage(mine).path;
		history.replaceState(null, '', appHref(path));
		mine.routed = location.pathname + location.search;
	}
	const m = match(path);
	markMenu(m, path);
	if (!m)
		return notFoundView(path);
	await openPage(m, live);
}

/* ---- the sub-account ------------------------------------------------------- */

function locationById(id) {
	return s.me.locations.find((l) => String(l.id) === String(id)) || null;
}

function fallbackLocation() {
	return locationById(stored(CHOSEN)) || s.me.locations[0] || null;
}

/* /api/auth/me again: the locations may have changed since sign-in. */
async function refreshMe() {
	const mine = s;
	try {
		const me = await mine.api.get('/api/auth/me');
		if (s === mine && me && Array.isArray(me.locations))
			mine.me = me;
	} catch (e) { /* the list we have stays */ }
}

/* The signed-in person's or the agency's name changed (Settings): asked
 * again, and the top bar shows the new ones. */
async function accountChanged() {
	await refreshMe();
	const who = s && s.el.app && s.el.app.querySelector('.who');
	if (!who)
		return;
	who.querySelector('.who-name').textContent = s.me.user.name;
	who.querySelector('.who-org').textContent = s.me.agency ? s.me.agency.name : '';
}

async function chooseLocation(url, live) {
	const want = url.searchParams.get('location');
	let loc = want ? locationById(want) : s.loc || fallbackLocation();
	if (want && !loc) {
		await refreshMe();
		if (!live())
			return;
		loc = locationById(want);
	}
	s.refused = want && !loc ? want : null;
	if (!loc)
		loc = s.refused ? fallbackLocation() : null;
	else if (!s.refused)
		store(CHOSEN, String(loc.id));
	if (loc !== s.loc || s.pagesFor === undefined) {
		s.loc = loc;
		s.live.follow(loc ? loc.id : null);
		place();
		s.pagesLoading = loadPages();
	}
	await s.pagesLoading; /* a navigation meanwhile waits for the same menu */
}

/* The switcher (or, for one location, its name) at the top of the menu. */
function place() {
	const el = s.el;
	const me = s.me;
	const name = s.loc ? s.loc.name : 'None';
	el.place.textContent = '';
	if (!/^agency_/.test(me.user.role) && me.locations.length <= 1) {
		el.place.append(html`<div class="place-static">
			<span class="place-caption">Sub-account</span><span class="place-name">${name}</span></div>`);
		return;
	}
	el.place.append(html`
<button type="button" class="switch" aria-expanded="false" aria-controls="switch-panel">
	<span class="place-caption">Sub-account</span><span class="place-name">${name}</span>${chevron()}
</button>
<div class="switch-panel" id="switch-panel" hidden>
	<label for="switch-find">Find a sub-account</label>
	<input id="switch-find" type="search" autocomplete="off" spellcheck="false" placeholder="Name or number">
	<ul class="switch-list" aria-label="Sub-accounts"></ul>
	<p class="switch-note" role="status"></p>
</div>`);
	el.switchButton = el.place.querySelector('.switch');
	el.switchPanel = el.place.querySelector('.switch-panel');
	el.switchFind = el.place.querySelector('#switch-find');
	el.switchList = el.place.querySelector('.switch-list');
	el.switchNote = el.place.querySelector('.switch-note');
	el.switchButton.addEventListener('click', () => {
		if (el.switchPanel.hidden)
			openSwitcher();
		else
			closeSwitcher(true);
	});
	el.switchFind.addEventListener('input', () => fillSwitcher());
	el.switchPanel.addEventListener('keydown', switcherKeys);
	el.place.addEventListener('focusout', (e) => {
		if (e.relatedTarget && !el.place.contains(e.relatedTarget))
			closeSwitcher(false); /* tabbed away */
	});
}

function openSwitcher() {
	const el = s.el;
	el.switchButton.setAttribute('aria-expanded', 'true');
	el.switchPanel.hidden = false;
	el.switchFind.value = '';
	fillSwitcher();
	el.switchFind.focus();
	const mine = s;
	const names = () => mine.me.locations.map((l) => l.id + ' ' + l.name).join('\n');
	const before = names();
	refreshMe().then(() => {
		if (s === mine && !el.switchPanel.hidden && names() !== before)
			fillSwitcher();
	});
}

function closeSwitcher(focusButton) {
	const el = s && s.el;
	if (!el || !el.switchPanel || el.switchPanel.hidden)
		return;
	el.switchPanel.hidden = true;
	el.switchButton.setAttribute('aria-expanded', 'false');
	if (focusButton)
		el.switchButton.focus();
}

function onPointerDown(e) {
	if (s && s.el.place && !s.el.place.contains(e.target))
		closeSwitcher(false);
}

/* Where switching to another sub-account leads: the same menu section
 * (a record of one sub-account means nothing in another). */
function switchHref(loc) {
	const current = s.el.menu.querySelector('a[aria-current="page"]');
	return appHref(current ? current.dataset.path : '/', loc);
}

function fillSwitcher() {
	const el = s.el;
	const q = el.switchFind.value.trim();
	const lower = q.toLowerCase();
	const all = s.me.locations;
	const hits = q ? all.filter((l) => String(l.name).toLowerCase().indexOf(lower) >= 0 || String(l.id) === q)
		: all;
	const shown = hits.slice(0, SWITCHER_ROWS);
	const currentId = s.loc ? String(s.loc.id) : '';
	/* the list can be redrawn under the keyboard (the locations came back
	 * changed): the focus stays on the same sub-account */
	const focused = el.switchList.contains(document.activeElement) ? document.activeElement.dataset.id : null;
	el.switchList.textContent = '';
	el.switchList.append(html`${shown.map((l) => html`<li><a href="${switchHref(l)}" data-id="${l.id}"
		aria-current="${String(l.id) === currentId ? 'true' : null}">${l.name}</a></li>`)}`);
	const again = focused && el.switchList.querySelector('a[data-id="' + focused + '"]');
	if (focused)
		(again || el.switchFind).focus();
	el.switchNote.textContent = !hits.length ? 'No sub-account matches “' + q + '”.'
		: shown.length < hits.length ? shown.length + ' of ' + hits.length + ' shown; type to narrow the list.'
			: hits.length === 1 ? '1 sub-account' : hits.length + ' sub-accounts';
}

function switcherKeys(e) {
	const el = s.el;
	const links = Array.from(el.switchList.querySelectorAll('a'));
	const at = links.indexOf(document.activeElement);
	if (e.key === 'Escape') {
		e.preventDefault();
		e.stopPropagation();
		closeSwitcher(true);
	} else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
		e.preventDefault();
		const next = e.key === 'ArrowDown' ? Math.min(at + 1, links.length - 1) : at - 1;
		(next < 0 ? el.switchFind : links[next] || el.switchFind).focus();
	} else if (e.key === 'Enter' && document.activeElement === el.switchFind && links.length) {
		e.preventDefault();
		links[0].click();
	}
}

/* ---- the menu ------------------------------------------------------------ */

async function loadPages() {
	const mine = s;
	const forLoc = mine.loc;
	let pages = [];
	let problem = null;
	mine.el.menu.setAttribute('aria-busy', 'true');
	try {
		const answer = await mine.api.get('/api/pages');
		pages = (answer && Array.isArray(answer.data)) ? answer.data : [];
	} catch (e) {
		if (e.status !== 404)
			problem = e;
	}
	if (s !== mine || mine.loc !== forLoc)
		return;
	mine.el.menu.removeAttribute('aria-busy');
	mine.pagesFor = forLoc ? forLoc.id : null;
	mine.routes = compile(pages);
	mine.menu = pages.filter((p) => p.label && p.path.indexOf(':') < 0);
	mine.search.setPages(mine.menu);
	renderMenu(problem);
}

/* Where /app opens: the first menu entry, or on a phone-sized screen the
 * page a module offers as the phone's home (the first, in menu order). */
function startPage(mine) {
	const phone = window.matchMedia(PHONE_WIDTH).matches && mine.menu.find((p) => p.phone_home);
	return phone || mine.menu[0];
}

function renderMenu(problem) {
	const el = s.el;
	el.menu.textContent = '';
	el.menuNote.textContent = '';
	el.menu.append(html`${s.menu.map((p) => html`<li><a href="${appHref(p.path)}"
		data-path="${p.path}" data-script="${p.script}">${p.label}</a></li>`)}`);
	if (problem) {
		el.menuNote.append(html`<p>The menu could not be loaded (${problem.message}).</p>
			<button type="button" class="btn">Try again</button>`);
		el.menuNote.querySelector('button').addEventListener('click', () => {
			s.pagesFor = undefined;
			route();
		});
	} else if (!s.menu.length) {
		el.menuNote.append(html`<p>No pages are available.</p>`);
	} else {
		preloadWhenIdle();
	}
}

/* Marks the menu entry of the page at `path`: its own, or the one whose
 * path is the longest prefix of it (/contacts for /contacts/12). */
function markMenu(m, path) {
	let best = null;
	for (const a of Array.from(s.el.menu.querySelectorAll('a'))) {
		a.removeAttribute('aria-current');
		const p = a.dataset.path;
		if ((m && m.page.path === p) || path === p) {
			best = { a, len: Infinity };
		} else if (path.indexOf(p + '/') === 0 && (!best || p.length > best.len)) {
			best = { a, len: p.length };
		}
	}
	if (best)
		best.a.setAttribute('aria-current', 'page');
}

/* ---- loading pages ---------------------------------------------------- */

function load(script) {
	let p = modules.get(script);
	if (!p) {
		p = import(script);
		modules.set(script, p);
		p.catch(() => modules.delete(script));
	}
	return p;
}

const modulePreload = (() => {
	const l = document.createElement('link');
	return !!(l.relList && l.relList.supports && l.relList.supports('modulepreload'));
})();

function preload(script) {
	if (!script || preloaded.has(script) || modules.has(script))
		return;
	preloaded.add(script);
	if (modulePreload) {
		const link = document.createElement('link');
		link.rel = 'modulepreload';
		link.href = script;
		document.head.append(link);
	} else {
		load(script).catch(() => {});
	}
}

function onPreloadHint(e) {
	const a = e.target.closest && e.target.closest('a[data-script]');
	if (a)
		preload(a.dataset.script);
}

/* The first menu entries, when the browser has nothing else to do and
 * the connection is not one to spare. */
function preloadWhenIdle() {
	const c = navigator.connection;
	if (c && (c.saveData || /2g/.test(c.effectiveType || '')))
		return;
	const mine = s;
	const idle = window.requestIdleCallback || ((f) => setTimeout(f, 0));
	setTimeout(() => idle(() => {
		if (s === mine)
			mine.menu.slice(0, IDLE_PRELOADS).forEach((p) => preload(p.script));
	}), 2000);
}

function leavePage() {
	const page = s && s.page;
	if (!page)
		return;
	s.page = null;
	page.controller.abort();
	if (page.leave) {
		try {
			page.leave();
		} catch (e) {
			console.error(e);
		}
	}
}

/* A fresh, empty view in place of the last page's. */
function newView() {
	leavePage();
	const view = document.createElement('section');
	view.className = 'view';
	view.tabIndex = -1;
	s.el.main.textContent = '';
	s.el.main.append(view);
	return view;
}

function title(text) {
	document.title = [text, s && s.loc && s.loc.name, 'HyperLevel'].filter(Boolean).join(' · ');
}

/* Every view ends here: the app shown, the focus on the view's heading. */
function present(view) {
	showApp(s);
	const h = view.querySelector('h1');
	const target = h || view;
	if (h && !h.hasAttribute('tabindex'))
		h.tabIndex = -1;
	/* an alert the page raised while it was hidden was never announced:
	 * the heading, focused now, is described by it */
	const alert = Array.from(view.querySelectorAll('[role="alert"]'))
		.find((a) => !a.closest('[hidden]') && a.textContent.trim());
	if (h && alert) {
		alert.id = alert.id || 'view-alert';
		h.setAttribute('aria-describedby', alert.id);
	}
	target.focus({ preventScroll: true });
}

/* The sub-account as a page sees it: its time zone and currency, UTC and
 * USD when the server names none. */
function placeOf(loc) {
	return loc ? { id: loc.id, name: loc.name, timezone: loc.timezone || 'UTC', currency: loc.currency || 'USD' }
		: null;
}

function userOf(me) {
	return Object.assign({}, me.user, { agency: me.agency, locations: me.locations });
}

async function openPage(m, live) {
	const mine = s;
	const view = newView();
	const controller = new AbortController();
	mine.page = { controller, leave: null };
	view.hidden = true;
	const skeleton = ui.skeleton(8);
	mine.el.main.prepend(skeleton);
	title(m.page.label);
	let mod;
	try {
		mod = await load(m.page.script);
	} catch (e) {
		if (live())
			loadFailed(view, skeleton);
		return;
	}
	if (!live())
		return;
	const where = placeOf(mine.loc);
	const ctx = {
		api: mine.api,
		html,
		rendered,
		ui,
		format: createFormat(where),
		href: (path, locationId) => hrefIn(path, locationId !== undefined ? locationId : where ? where.id : null),
		params: m.params,
		query: new URLSearchParams(location.search),
		user: userOf(mine.me),
		location: where,
		navigate: (href, options) => navigate(href, options),
		title,
		setQuery: (query) => setQuery(query, live),
		queryOf,
		offers: (path) => !!match(path),
		signal: controller.signal,
		onLive: (patterns, fn) => mine.live.on(patterns, fn, controller.signal),
		accountChanged,
	};
	let leave;
	try {
		leave = await mod.default(view, ctx);
	} catch (e) {
		if (!live())
			return;
		/* A missing record is an answer and a lost connection (status 0,
		 * also what a reload does to the fetches it cuts) is the
		 * network's: the page says both; only a fault of ours is logged. */
		if (!e || (e.status !== 404 && e.status !== 403 && e.status !== 0))
			console.error(e);
		skeleton.remove();
		view.hidden = false;
		pageFailed(view, e);
		return;
	}
	if (!live() || mine.page === null) {
		if (typeof leave === 'function')
			setTimeout(leave, 0); /* left before it was shown */
		return;
	}
	mine.page.leave = typeof leave === 'function' ? leave : null;
	skeleton.remove();
	view.hidden = false;
	present(view);
	store(RELOADED, null);
}

/* The URL's values of `names` ({name: value}, empty ones left out) in
 * the URL's order: a page's first GET asked with them is the one the app
 * asked for early (hl_page.data), which must keep that order. */
function queryOf(names) {
	const q = {};
	for (const [key, value] of new URLSearchParams(location.search)) {
		if (names.indexOf(key) >= 0 && value)
			q[key] = value;
	}
	return q;
}

/* Replaces the URL's query (the sub-account stays) without reopening the
 * page: for a search or a filter the page keeps in its URL. */
function setQuery(query, live) {
	if (!live())
		return;
	const u = new URL(location.href);
	const q = new URLSearchParams();
	if (s.loc)
		q.set('location', String(s.loc.id));
	for (const key of Object.keys(query || {})) {
		if (key !== 'location' && query[key] != null && query[key] !== '')
			q.set(key, String(query[key]));
	}
	history.replaceState(null, '', u.pathname + '?' + q.toString() + u.hash);
	s.routed = location.pathname + location.search;
}

/* ---- the shell's own views ----------------------------------------------- */

function loadFailed(view, skeleton) {
	if (navigator.onLine !== false && !stored(RELOADED)) {
		store(RELOADED, '1');
		location.reload();
		return;
	}
	skeleton.remove();
	view.hidden = false;
	title('Page not loaded');
	ui.message(view, {
		title: 'This page could not be loaded',
		text: 'Its file did not arrive. Check the connection, then try again.',
		action: 'Try again',
		onAction: () => {
			store(RELOADED, null);
			route();
		},
	});
	present(view);
}

function pageFailed(view, e) {
	const m = e && e.status === 404
		? { title: 'Not found', text: 'This record does not exist in ' + (s.loc ? s.loc.name : 'this sub-account') + ', or it was deleted.' }
		: e && e.status === 403
			? { title: 'Not allowed', text: 'Your account may not open this page.' }
			: { title: 'This page failed', text: (e && e.message) || 'Something went wrong.' };
	title(m.title);
	ui.message(view, Object.assign(m, { action: 'Try again', onAction: () => route() }));
	present(view);
}

function homeView() {
	const view = newView();
	markMenu(null, '/');
	title(s.loc ? '' : 'Start');
	ui.message(view, {
		title: s.loc ? s.loc.name : 'Welcome, ' + s.me.user.name,
		text: 'No pages are available to you yet: they come with the modules this server has enabled.',
	});
	present(view);
}

function notFoundView(path) {
	const view = newView();
	title('Page not found');
	ui.message(view, {
		title: 'Page not found',
		/* /api/pages lists only what this user may open, so a page they
		 * may not open is one the shell does not know either */
		text: 'There is no page at ' + APP + path + ' that your account may open.',
		href: appHref('/'),
		link: 'Go to the start',
	});
	present(view);
}

function refusedView() {
	const view = newView();
	markMenu(null, '');
	const other = s.loc;
	title('Sub-account not available');
	ui.message(view, {
		title: 'Sub-account not available',
		text: 'You cannot open sub-account ' + s.refused +
			': it does not exist, or your account has no access to it.',
		href: other ? appHref('/', other) : null,
		link: other ? 'Open ' + other.name : null,
	});
	present(view);
}

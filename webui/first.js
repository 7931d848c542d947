// SPDX-License-Identifier: MIT
/*
 * first.js: what the first page runs (inlined into index.html by the
 * build): asks the server whether this browser is signed in, and if so
 * hands over to the shell (import of shell.js); if not, runs the login
 * form. It must stay small: it is part of the first answer.
 *
 * A document whose signed-in template the server has opened (it saw a
 * session cookie), or a flag in localStorage (no secret: the session
 * cookie is HttpOnly), says this browser is likely signed in; then the
 * form is hidden while the server answers (when the server opened the
 * template, by the template's own script, before the form is first
 * drawn) and the shell is fetched at the same time, so a reload shows no
 * login form for a moment; so are the menu and, when the URL names a
 * page of the server's map (the document's #hl-pages), that page's
 * script, the files it uses and its first data, for the shell to take
 * over. Those of them the server put in the document (it does for a
 * signed-in address under /app: core/http/early.c) are taken from there, not
 * asked for. Errors are said in words; a 429
 * says when to try again, from Retry-After. A shell that fails to load (a
 * deploy replaced it) reloads the page once.
 */
const HINT = 'hl.signed-in';
const RELOADED = 'hl.reloaded-shell';
const root = document.documentElement;
const login = document.getElementById('login');
const form = document.getElementById('login-form');
const alertBox = document.getElementById('login-error');
const email = form.elements.email;
const password = form.elements.password;
const button = form.querySelector('button');
let shell = null;

function store(area, key, value) {
	try {
		if (value) area.setItem(key, value);
		else area.removeItem(key);
	} catch (e) { /* storage may be off; nothing depends on it */ }
}

function stored(area, key) {
	try {
		return area.getItem(key);
	} catch (e) {
		return null;
	}
}

/* The shell's own imports and styles, asked for beside it: otherwise
 * each waits until the shell has come and been read, one more round
 * trip. */
const SHELL_PARTS = [new URL('/api.js', import.meta.url), new URL('/html.js', import.meta.url),
	new URL('/ui.js', import.meta.url), new URL('/format.js', import.meta.url)];
const SHELL_STYLE = new URL('/shell.css', import.meta.url);

/* A file the document names already (the server names the shell's when
 * it sees a session cookie), or a style sheet it carries, is not asked
 * for twice: the links it would add are work before the first paint. */
function preload(href, as) {
	const url = new URL(href, location.href);
	for (const named of document.head.querySelectorAll('link[href]'))
		if (named.href === url.href)
			return;
	if (document.head.querySelector('style[data-href="' + url.pathname + '"]'))
		return;
	const link = document.createElement('link');
	link.rel = as ? 'preload' : 'modulepreload';
	if (as)
		link.as = as;
	link.href = href;
	document.head.append(link);
}

function loadShell() {
	if (!shell) {
		for (const part of SHELL_PARTS)
			preload(part.href);
		preload(SHELL_STYLE.href, 'style');
		shell = import('/shell.js');
		shell.catch(() => { shell = null; });
	}
	return shell;
}

/* GETs the shell and the page will make first, asked for now, beside
 * /api/auth/me, when the last visit was signed in: /api/pages and the
 * data of the page the URL names, whose script and the files it uses are
 * fetched too (the server's map in the document says which).
 * [{path, where, response}] for the shell's data layer to adopt (api.js).
 * The sub-account is the one the shell will choose when the URL or this
 * tab names one. */
let early = [];

/* The answer to GET `path` with X-Location-Id `where` that the document
 * carries (<script type="application/json" class="hl-answer">), taken
 * out so that it serves once; or null. */
function carried(path, where) {
	for (const el of document.querySelectorAll('script.hl-answer')) {
		if (el.dataset.path === path && (el.dataset.where || null) === (where || null)) {
			el.remove();
			return Promise.resolve(new Response(el.textContent,
				{ status: 200, headers: { 'Content-Type': 'application/json' } }));
		}
	}
	return null;
}

function ask(path, where) {
	const headers = { Accept: 'application/json' };
	if (where)
		headers['X-Location-Id'] = where;
	const response = carried(path, where) || fetch(path, { credentials: 'same-origin', headers });
	response.catch(() => {}); /* the shell asks again, and says why */
	early.push({ path, where, response });
}

/* The page of the app at `pathname` in the server's map of pages (the
 * document's #hl-pages: [{path, script, data, uses}]), with its :params as
 * they are in the URL; the one with the most literal segments, as the
 * shell's router picks. Null for none, or for /app itself (the shell
 * opens the first page of a menu not known yet). */
function pageAt(pathname) {
	const m = /^\/app(\/.*?)\/?$/.exec(pathname);
	const parts = m ? m[1].split('/').filter(Boolean) : [];
	let map = [];
	try {
		map = JSON.parse(document.getElementById('hl-pages').textContent);
	} catch (e) { /* no map: the shell finds the page itself */ }
	let best = null;
	let most = -1;
	for (const page of parts.length ? map : []) {
		const pattern = page.path.split('/').filter(Boolean);
		const params = {};
		let literal = 0;
		const fits = pattern.length === parts.length && pattern.every((seg, i) =>
			seg.charAt(0) === ':' ? (params[seg.slice(1)] = parts[i], true) : seg === parts[i] && ++literal);
		if (fits && literal > most) {
			best = { script: page.script, data: page.data, uses: page.uses || [], params };
			most = literal;
		}
	}
	return best;
}

function askEarly() {
	const url = new URL(location.href);
	const where = url.searchParams.get('location') || stored(sessionStorage, 'hl.location');
	if (where)
		ask('/api/pages', where);
	const page = pageAt(url.pathname);
	if (!page)
		return;
	preload(page.script);
	for (const href of page.uses)
		preload(href, /\.css$/.test(href) ? 'style' : null);
	if (page.data && where) {
		url.searchParams.delete('location');
		const query = url.searchParams.toString();
		const path = page.data.replace(/:([A-Za-z0-9_]+)/g, (all, name) => page.params[name] || all);
		ask(path + (query ? '?' + query : ''), where);
	}
}

/* A page's first number or date formatter loads the browser's locale
 * data: 40-110 ms in headless Chromium, between a page's data coming in
 * and its figures showing. Made here, while the shell and the page are on
 * their way and the page has nothing else to do, it is ready when they
 * come. */
function warmLocale() {
	setTimeout(() => {
		try {
			new Intl.NumberFormat(undefined).format(1);
			new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' }).format(0);
		} catch (e) { /* the page formats as it can */ }
	}, 0);
}

function busy(on) {
	button.disabled = on;
	button.textContent = on ? 'Signing in…' : 'Sign in';
}

/* Shows the form with `text` in its alert; the shell calls it on sign-out
 * and when the session ends. */
function showLogin(text) {
	store(localStorage, HINT, null);
	early = [];
	root.classList.remove('resuming');
	document.getElementById('app').hidden = true;
	if (!login.isConnected) /* the shell takes it out while it runs */
		document.body.prepend(login);
	document.title = 'Sign in · HyperLevel';
	password.value = '';
	busy(false);
	alertBox.textContent = text || '';
	if (!form.contains(document.activeElement))
		(email.value ? password : email).focus();
}

async function enter(me) {
	store(localStorage, HINT, '1');
	try {
		const asked = early;
		early = [];
		await (await loadShell()).start(me, { showLogin, early: asked });
		store(sessionStorage, RELOADED, null);
	} catch (e) {
		if (!stored(sessionStorage, RELOADED)) {
			store(sessionStorage, RELOADED, '1');
			location.reload();
			return;
		}
		showLogin('The app could not be loaded. Check the connection, then reload the page.');
	}
}

function when(seconds) {
	if (!(seconds > 0))
		return 'in a moment';
	if (seconds < 60)
		return 'in ' + seconds + (seconds === 1 ? ' second' : ' seconds');
	const minutes = Math.ceil(seconds / 60);
	const at = new Date(Date.now() + seconds * 1000)
		.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
	return 'in ' + minutes + (minutes === 1 ? ' minute' : ' minutes') + ' (at ' + at + ')';
}

function problem(r, body) {
	if (!r)
		return 'The server cannot be reached. Check the connection and try again.';
	if (r.status === 401)
		return 'Wrong e-mail or password.';
	if (r.status === 429)
		return 'Too many failed sign-ins. Try again ' +
			when(parseInt(r.headers.get('Retry-After'), 10)) + '.';
	if (r.status === 422)
		return 'Enter your e-mail address and your password.';
	if (r.status === 503)
		return 'The server is busy. Try again in a moment.';
	const e = body && body.error;
	return 'Signing in failed: ' + (e && e.message ? e.message : 'the server answered ' + r.status) + '.';
}

form.addEventListener('submit', async (event) => {
	event.preventDefault();
	if (button.disabled)
		return;
	alertBox.textContent = '';
	busy(true);
	let r = null;
	let body = null;
	try {
		r = await fetch('/api/auth/login', {
			method: 'POST',
			credentials: 'same-origin',
			headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
			body: JSON.stringify({ email: email.value.trim(), password: password.value }),
		});
		body = await r.json().catch(() => null);
	} catch (e) {
		r = null;
	}
	if (r && r.ok && body)
		return enter(body);
	busy(false);
	alertBox.textContent = problem(r, body);
	password.select();
	password.focus();
});

/* Forgot password: its form takes the sign-in form's place (kept in a
 * template until then, so that the page has one field called E-mail);
 * the server's answer is the same words whether the address is anyone's
 * (core/admin/links.c), shown as they come. */
document.getElementById('forgot-open').addEventListener('click', () => {
	const opener = document.getElementById('forgot-open');
	const forgot = document.getElementById('forgot-template').content.firstElementChild.cloneNode(true);
	form.hidden = true;
	opener.parentNode.hidden = true;
	form.after(forgot);
	login.querySelector('h1').textContent = 'Forgot your password?';
	forgot.elements.email.value = email.value;
	forgot.elements.email.focus();
	forgot.addEventListener('submit', (event) => {
		event.preventDefault();
		askReset(forgot);
	});
});

async function askReset(forgot) {
	const said = forgot.querySelector('.login-said');
	const send = forgot.querySelector('button');
	said.textContent = '';
	send.disabled = true;
	let r = null;
	let body = null;
	try {
		r = await fetch('/api/auth/forgot', {
			method: 'POST',
			credentials: 'same-origin',
			headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
			body: JSON.stringify({ email: forgot.elements.email.value.trim() }),
		});
		body = await r.json().catch(() => null);
	} catch (e) {
		r = null;
	}
	send.disabled = false;
	said.textContent = r && r.ok && body ? body.message
		: r && r.status === 422 ? 'Enter your e-mail address.'
			: r && r.status === 429 ? 'Too many requests. Try again ' + when(parseInt(r.headers.get('Retry-After'), 10)) + '.'
				: problem(r, body);
}

/* Asked first: the browser opens six connections to a server, and all the
 * rest waits for this answer, so it must not wait for a free one. */
const me = carried('/api/auth/me', null) ||
	fetch('/api/auth/me', { credentials: 'same-origin', headers: { Accept: 'application/json' } });
/* The server takes the links out of their template when it sees a session
 * cookie: that says it first, without waiting on the browser's storage. */
if (!document.getElementById('hl-signed-in') || stored(localStorage, HINT)) {
	root.classList.add('resuming');
	loadShell().catch(() => {});
	askEarly();
	warmLocale();
}
/* Signed out, the answer names no user (not an error: a first visit asks
 * it too); a 401 is a session that ended. */
me.then((r) => r.ok ? r.json() : Promise.reject(r))
	.then((body) => body.user ? enter(body) : showLogin(''), (r) => showLogin(r && r.status === 401 ? ''
		: r && r.status ? 'The server answered ' + r.status + '. Try again in a moment.' : problem(null)));

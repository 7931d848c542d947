// SPDX-License-Identifier: MIT
/*
 * sw.js: the service worker. It keeps the app's shell for use offline and
 * answers the content-hashed files from its cache; it owns two caches and
 * nothing else. It must never answer an API request, never answer a
 * script or a style with HTML, and never hand out a shell that cannot run.
 *
 * Rules, by request (GET, same origin; anything else goes to the network
 * untouched):
 * - /api/...: not touched, never cached: data is always the server's.
 * - a hashed file (name.HASH.ext at the root or under /modules/NAME/): its
 *   name says its content, so the cached copy is answered when there is
 *   one (cache-first); otherwise the network's answer, kept when it is a
 *   200 that is not HTML. A hashed file the server does not have is its
 *   404, not a page.
 * - a navigation to / or /app/...: the network's answer, and a 200 HTML
 *   one is kept as the shell document, unless it is no-store (a signed-in
 *   page's carries that person's first answers: core/http/early.c). Only when the network cannot be
 *   reached at all is the kept document answered, and only if every
 *   hashed file it names is in the cache, followed through the scripts
 *   and styles it names (shell.js imports the rest); else the browser's
 *   own error. A 404 or a 5xx is the server's answer, passed on.
 *
 * Installing fetches the current document and the files it names, which
 * the first visit loaded before this worker existed (from the HTTP cache:
 * they are immutable). A deploy brings a document with new names; each
 * new document prunes the files cache to what it names plus the KEEP most
 * recently added others (page modules a document does not name, and a
 * deploy or two back for tabs still open on them).
 *
 * A classic script (Firefox 90 has no module workers); the asset tool
 * keeps its name and rewrites nothing in it.
 */
const FILES = 'hl-files-1';
const SHELL = 'hl-shell-1';
const DOCUMENT = '/';
const KEEP = 60;
const MAX_NAMED = 200;
const HASHED = /^\/(?:modules\/[A-Za-z0-9_-]+\/)?[^/]+\.[0-9a-f]{8,}\.[A-Za-z0-9]+$/;
const REFERENCE = /["'(]\s*((?:\.{0,2}\/)?[A-Za-z0-9_./-]*\.[0-9a-f]{8,}\.[A-Za-z0-9]+)\s*["')]/g;

self.addEventListener('install', (event) => {
	self.skipWaiting();
	event.waitUntil(precache().catch(() => {}));
});

self.addEventListener('activate', (event) => {
	event.waitUntil((async () => {
		for (const name of await caches.keys()) {
			if (/^hl-/.test(name) && name !== FILES && name !== SHELL)
				await caches.delete(name);
		}
		await self.clients.claim();
	})());
});

self.addEventListener('fetch', (event) => {
	const request = event.request;
	if (request.method !== 'GET')
		return;
	const url = new URL(request.url);
	if (url.origin !== self.location.origin || /^\/api(?:\/|$)/.test(url.pathname))
		return;
	if (request.mode === 'navigate' && isPage(url.pathname))
		event.respondWith(page(event));
	else if (HASHED.test(url.pathname) && !url.search)
		event.respondWith(hashed(event, url));
});

function isPage(path) {
	return path === '/' || path === '/app' || path.indexOf('/app/') === 0;
}

function isHtml(response) {
	return /^text\/html/i.test(response.headers.get('Content-Type') || '');
}

/* ---- the hashed files ------------------------------------------------------ */

async function hashed(event, url) {
	const cache = await caches.open(FILES);
	const hit = await cache.match(url.href, { ignoreVary: true });
	if (hit)
		return hit;
	const response = await fetch(event.request);
	if (response.status === 200 && isHtml(response) && !/\.html$/.test(url.pathname))
		return new Response('Not found', { status: 404, headers: { 'Content-Type': 'text/plain' } });
	if (response.status === 200)
		event.waitUntil(cache.put(url.href, response.clone()).catch(() => {}));
	return response;
}

/* ---- the document -------------------------------------------------------- */

async function page(event) {
	let response;
	try {
		response = await fetch(event.request);
	} catch (e) {
		const shell = await offlineShell();
		if (shell)
			return shell;
		throw e;
	}
	if (response.status === 200 && isHtml(response) && !/no-store/i.test(response.headers.get('Cache-Control') || ''))
		event.waitUntil(keepDocument(response.clone()).catch(() => {}));
	return response;
}

async function offlineShell() {
	const kept = await (await caches.open(SHELL)).match(DOCUMENT);
	if (!kept)
		return null;
	const files = await caches.open(FILES);
	const named = await namedFiles(await kept.clone().text(), self.location.origin + DOCUMENT,
		async (url) => {
			const r = await files.match(url, { ignoreVary: true });
			return r ? r.text() : null;
		});
	return named ? kept : null;
}

/* Keeps `response` as the shell document; a document not seen before (a
 * deploy) prunes the files cache. */
async function keepDocument(response) {
	const shell = await caches.open(SHELL);
	const text = await response.clone().text();
	const before = await shell.match(DOCUMENT);
	if (before && await before.text() === text)
		return;
	await shell.put(DOCUMENT, response);
	await prune(text);
}

/* The hashed files the document `text` at `base` names, followed through
 * the scripts and styles among them: a Set of URLs, or null when `read`
 * (url -> its text, or null when it has none) is missing one. Files other
 * than scripts and styles are read too, to know that they are there. */
async function namedFiles(text, base, read) {
	const named = new Set();
	const queue = references(text, base);
	while (queue.length) {
		const url = queue.shift();
		if (named.has(url))
			continue;
		if (named.size >= MAX_NAMED)
			break;
		named.add(url);
		const body = await read(url);
		if (body === null)
			return null;
		if (/\.(?:js|css)$/.test(url))
			queue.push(...references(body, url));
	}
	return named;
}

function references(text, base) {
	const found = [];
	for (const m of text.matchAll(REFERENCE)) {
		let url;
		try {
			url = new URL(m[1], base);
		} catch (e) {
			continue;
		}
		if (url.origin === self.location.origin && HASHED.test(url.pathname))
			found.push(url.origin + url.pathname);
	}
	return found;
}

/* The files cache down to what the document `text` names and the KEEP
 * most recently added others (the cache lists its keys in the order they
 * were put). */
async function prune(text) {
	const files = await caches.open(FILES);
	const cached = await files.keys();
	if (cached.length <= KEEP)
		return;
	const named = await namedFiles(text, self.location.origin + DOCUMENT, async (url) => {
		const r = await files.match(url, { ignoreVary: true });
		return r ? r.text() : ''; /* '' for one not kept: never null, the walk goes on */
	});
	const others = cached.filter((r) => !named.has(r.url));
	for (const r of others.slice(0, Math.max(0, others.length - KEEP)))
		await files.delete(r);
}

/* The current document and everything it names, fetched into the caches
 * (the first visit loaded them before this worker was there to see). */
async function precache() {
	const response = await fetch(DOCUMENT, { credentials: 'same-origin' });
	if (response.status !== 200 || !isHtml(response))
		return;
	const text = await response.clone().text();
	await (await caches.open(SHELL)).put(DOCUMENT, response);
	const files = await caches.open(FILES);
	await namedFiles(text, self.location.origin + DOCUMENT, async (url) => {
		const hit = await files.match(url, { ignoreVary: true });
		if (hit)
			return hit.text();
		const r = await fetch(url);
		if (r.status !== 200 || isHtml(r))
			return null;
		await files.put(url, r.clone());
		return r.text();
	});
	await prune(text);
}

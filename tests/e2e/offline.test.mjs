// SPDX-License-Identifier: MIT
/*
 * The service worker (webui/sw.js), in a real browser against a real
 * server: once signed in it is active; offline, a reload of an app URL
 * shows the app's own page (the kept shell), hashed files come from its
 * cache, the API is never answered from a cache, and a shell whose files
 * are not all cached is never handed out. Online, a hashed file the
 * server does not have is the server's 404, never the document.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEMO, launch, newPage, shellUrl, signIn, startServer, until } from './lib.mjs';

const OFFLINE = 'The server cannot be reached. Check the connection and try again.';
const FILES = 'hl-files-1';

/* A page signed in, with the service worker active and in control. */
async function signedInWithWorker(browser, server) {
	const { context, page, problems } = await newPage(browser, server);
	await page.goto('/app');
	await signIn(page, DEMO.email, DEMO.password);
	await page.evaluate(() => navigator.serviceWorker.ready);
	await until(() => page.evaluate(() => !!navigator.serviceWorker.controller &&
		navigator.serviceWorker.controller.state === 'activated'), 10000,
	'the service worker to be active and control the page');
	return { context, page, problems };
}

/* What fetch() in the page gets: {status, type, text} or {error}. */
function fetchIn(page, url, init) {
	return page.evaluate(async ([u, i]) => {
		try {
			const r = await fetch(u, i);
			return { status: r.status, type: r.headers.get('Content-Type'), text: await r.text() };
		} catch (e) {
			return { error: String(e) };
		}
	}, [url, init || {}]);
}

describe('offline', () => {
	let server, browser;

	before(async () => {
		server = await startServer();
		browser = await launch();
	});

	after(async () => {
		await browser?.close();
		await server?.stop();
	});

	test('the server sends sw.js unhashed, as a script, revalidated every time', async () => {
		const r = await fetch(server.url + '/sw.js');
		assert.equal(r.status, 200);
		assert.match(r.headers.get('content-type'), /^text\/javascript/);
		assert.equal(r.headers.get('cache-control'), 'no-cache');
		assert.match(await r.text(), /addEventListener\('fetch'/);
	});

	test('the login page alone registers no service worker', async () => {
		const { page, context } = await newPage(browser, server);
		/* Every call to register() is counted, however late it comes. */
		await context.addInitScript(() => {
			window.registered = 0;
			const register = ServiceWorkerContainer.prototype.register;
			ServiceWorkerContainer.prototype.register = function (...args) {
				window.registered++;
				return register.apply(this, args);
			};
		});
		await page.goto('/');
		await page.getByLabel('E-mail').waitFor();
		/* the shell registers it once idle, within 5 s of starting */
		await new Promise((r) => setTimeout(r, 6000));
		assert.equal(await page.evaluate(() => window.registered), 0);
		assert.equal(await page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length), 0);
		await context.close();
	});

	test('offline, a reload shows the kept shell; hashed files come from the cache, the API does not', async () => {
		const { context, page, problems } = await signedInWithWorker(browser, server);
		const shell = shellUrl('shell.js');
		const fromWorker = [];
		page.on('response', (r) => { if (r.fromServiceWorker()) fromWorker.push(new URL(r.url()).pathname); });

		await context.setOffline(true);
		const doc = await page.reload();
		assert.equal(doc.status(), 200);
		assert.equal(doc.fromServiceWorker(), true, 'the document came from the service worker');
		await page.getByRole('heading', { name: 'Sign in' }).waitFor();
		await until(async () => (await page.getByRole('alert').textContent()) === OFFLINE, 10000,
			'the offline message');
		assert.ok(fromWorker.includes(shell), 'shell.js answered by the worker: ' + fromWorker.join(' '));

		const file = await fetchIn(page, shell, { cache: 'no-store' });
		assert.equal(file.status, 200, 'a hashed file from the cache: ' + JSON.stringify(file).slice(0, 200));
		assert.match(file.type, /^text\/javascript/);
		assert.match(file.text, /export async function start/);

		const api = await fetchIn(page, '/api/auth/me', { cache: 'no-store' });
		assert.ok(api.error, 'no API answer offline: ' + JSON.stringify(api).slice(0, 200));

		const missing = await fetchIn(page, '/shell.0123456789.js', { cache: 'no-store' });
		assert.ok(missing.error, 'a hashed file not cached fails offline: ' + JSON.stringify(missing).slice(0, 200));

		await context.setOffline(false);
		assert.deepEqual(problems.filter((p) => !/Failed to fetch|ERR_INTERNET_DISCONNECTED/.test(p)), []);
		await context.close();
	});

	test('offline, a shell missing one of its files is not handed out', async () => {
		const { context, page } = await signedInWithWorker(browser, server);
		const gone = new URL(shellUrl('ui.js'), server.url).href;
		assert.equal(await page.evaluate(async ([name, url]) => (await caches.open(name)).delete(url),
			[FILES, gone]), true, 'ui.js was in the cache');
		await context.setOffline(true);
		await assert.rejects(page.reload(), /ERR_INTERNET_DISCONNECTED|ERR_FAILED/);
		await context.setOffline(false);
		await context.close();
	});

	test('online, a hashed file the server lacks is its 404, never the document', async () => {
		const { context, page } = await signedInWithWorker(browser, server);
		for (const url of ['/shell.0123456789.js', '/modules/contacts/contacts.0123456789.js',
			'/first.0123456789.css']) {
			const r = await fetchIn(page, url);
			assert.equal(r.status, 404, url + ': ' + JSON.stringify(r).slice(0, 200));
			assert.doesNotMatch(r.type || '', /html/, url);
			assert.doesNotMatch(r.text, /<!doctype html/i, url);
		}
		const failed = await page.evaluate(() => import('/shell.0123456789.js').then(() => 'loaded', () => 'failed'));
		assert.equal(failed, 'failed');
		const cached = await page.evaluate(async (name) =>
			(await (await caches.open(name)).keys()).map((r) => new URL(r.url).pathname), FILES);
		assert.ok(cached.includes(shellUrl('shell.js')), 'the shell is cached: ' + cached.join(' '));
		assert.ok(!cached.some((p) => /0123456789/.test(p)), 'a 404 is not cached');
		assert.ok(!cached.some((p) => /^\/api\//.test(p)), 'no API answer is cached');
		await context.close();
	});
});

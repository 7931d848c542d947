// SPDX-License-Identifier: MIT
/*
 * lib.mjs: what the browser tests share. A real server (the built
 * hyperlevel on a free port, its own temporary data folder seeded by
 * perf-seed at a small scale, the tree's modules and plugins.d), Debian's
 * Chromium driven headless by playwright-core, an HTTP client for set-up
 * through the API, and screenshots at desktop and phone width into
 * build/screenshots.
 *
 * Nothing is mocked by default. A test may stand in for GET /api/pages
 * and serve the small page modules of tests/e2e/pages/ (usePages), so the
 * shell's router and menu are tested apart from the modules' own pages.
 *
 * Environment: HL_BUILD (the build folder, default build), HL_WEB_DIR
 * (default: BUILD/web when it was built, else webui/), HL_CHROMIUM
 * (default /usr/bin/chromium).
 */
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BUILD = resolve(ROOT, process.env.HL_BUILD || 'build');
export const SHOTS = join(BUILD, 'screenshots');
export const DEMO = { email: 'perf@example.test', password: 'perf-pass-123' };
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 360, height: 740 };

export function webDir() {
	if (process.env.HL_WEB_DIR)
		return resolve(process.env.HL_WEB_DIR);
	const built = join(BUILD, 'web');
	return existsSync(join(built, 'index.html')) ? built : join(ROOT, 'webui');
}

/* The URL of a shell file by its source name: its hashed name when the
 * web folder was built (manifest.json), else the name. */
export function shellUrl(name) {
	const manifest = join(webDir(), 'manifest.json');
	const names = existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')) : {};
	return '/' + (names[name] || name);
}

function freePort() {
	return new Promise((ok, fail) => {
		const srv = net.createServer();
		srv.on('error', fail);
		srv.listen(0, '127.0.0.1', () => {
			const { port } = srv.address();
			srv.close(() => ok(port));
		});
	});
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/* A seeded server, answering. options: scale (0.002), locations (5),
 * args (more command-line settings). stop() ends it and removes its
 * folder. */
export async function startServer(options = {}) {
	const root = mkdtempSync(join(tmpdir(), 'hl-e2e-'));
	const data = join(root, 'data');
	execFileSync(join(BUILD, 'perf-seed'), ['--data-dir', data,
		'--scale', String(options.scale || 0.002), '--locations', String(options.locations || 5)],
	{ stdio: 'pipe' });
	const port = await freePort();
	const args = ['serve', '--data-dir', data, '--port', String(port),
		'--modules-dir', join(BUILD, 'modules'), '--plugins-dir', join(ROOT, 'plugins.d'),
		'--web-dir', webDir(), '--config', '/dev/null', ...(options.args || [])];
	const proc = spawn(join(BUILD, 'hyperlevel'), args, { stdio: ['ignore', 'pipe', 'pipe'] });
	let log = '';
	proc.stdout.on('data', (d) => { log += d; });
	proc.stderr.on('data', (d) => { log += d; });
	let exited = null;
	const gone = new Promise((r) => proc.on('exit', (code) => { exited = code; r(); }));
	const url = 'http://127.0.0.1:' + port;
	const server = {
		url,
		port,
		log: () => log,
		async stop() {
			if (exited === null) {
				proc.kill('SIGTERM');
				await Promise.race([gone, sleep(10000)]);
				if (exited === null)
					proc.kill('SIGKILL');
			}
			rmSync(root, { recursive: true, force: true });
		},
	};
	for (const deadline = Date.now() + 30000; Date.now() < deadline;) {
		if (exited !== null)
			break;
		try {
			if ((await fetch(url + '/api/health')).ok)
				return server;
		} catch (e) { /* not listening yet */ }
		await sleep(50);
	}
	await server.stop();
	throw new Error('the server did not start:\n' + log);
}

/* An API client signed in as `email`, for setting up what a test needs. */
export async function apiAs(server, email, password) {
	const r = await fetch(server.url + '/api/auth/login', {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify({ email, password }),
	});
	if (!r.ok)
		throw new Error('sign-in as ' + email + ': ' + r.status + ' ' + await r.text());
	const cookie = r.headers.get('set-cookie').split(';')[0];
	const me = await r.json();
	async function call(method, path, body, location) {
		const headers = { Cookie: cookie, Accept: 'application/json' };
		if (body !== undefined)
			headers['Content-Type'] = 'application/json';
		if (location)
			headers['X-Location-Id'] = String(location);
		const res = await fetch(server.url + path, {
			method, headers, body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await res.text();
		if (!res.ok)
			throw new Error(method + ' ' + path + ': ' + res.status + ' ' + text);
		return text ? JSON.parse(text) : null;
	}
	return {
		me,
		get: (path, location) => call('GET', path, undefined, location),
		post: (path, body, location) => call('POST', path, body, location),
		patch: (path, body, location) => call('PATCH', path, body, location),
	};
}

export function launch() {
	return chromium.launch({
		executablePath: process.env.HL_CHROMIUM || '/usr/bin/chromium',
		args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
			'--disable-component-update', '--disable-sync', '--no-first-run',
			'--disable-dev-shm-usage', '--mute-audio', '--disable-extensions'],
	});
}

/* A fresh browser context (its own cookies and storage) and a page in
 * it. `problems` gathers what must never happen: a dialog (alert() from
 * injected markup), an uncaught error, a CSP violation or a console error
 * other than a failed request's. */
export async function newPage(browser, server, options = {}) {
	const context = await browser.newContext({
		baseURL: server.url,
		viewport: options.viewport || DESKTOP,
		colorScheme: options.colorScheme || 'light',
		reducedMotion: 'reduce',
	});
	const problems = [];
	const watch = (page) => {
		page.on('dialog', (d) => {
			problems.push('dialog: ' + d.message());
			d.dismiss().catch(() => {});
		});
		page.on('pageerror', (e) => problems.push('uncaught: ' + e.message));
		page.on('console', (m) => {
			const text = m.text();
			if (/Content.Security.Policy/i.test(text) ||
			    (m.type() === 'error' && !/^Failed to load resource/.test(text)))
				problems.push('console: ' + text);
		});
	};
	context.on('page', watch);
	const page = await context.newPage();
	return { context, page, problems };
}

/* Signs in through the login form, as a person does. */
export async function signIn(page, email, password) {
	if (page.url() === 'about:blank')
		await page.goto('/');
	await page.getByLabel('E-mail').fill(email);
	await page.getByLabel('Password').fill(password);
	await page.getByRole('button', { name: 'Sign in' }).click();
	await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/* build/screenshots/NAME-desktop.png and NAME-phone.png of what the page
 * shows now; the viewport is put back afterwards. */
export async function shoot(page, name) {
	mkdirSync(SHOTS, { recursive: true });
	const size = page.viewportSize();
	for (const [suffix, viewport] of [['desktop', DESKTOP], ['phone', PHONE]]) {
		await page.setViewportSize(viewport);
		await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
		await page.screenshot({ path: join(SHOTS, name + '-' + suffix + '.png') });
	}
	await page.setViewportSize(size);
}

/* Waits until `check()` is true (polled every 50 ms), or fails after `ms`. */
export async function until(check, ms = 10000, what = 'the condition') {
	for (const deadline = Date.now() + ms; !(await check());) {
		if (Date.now() > deadline)
			throw new Error('waited ' + ms + ' ms for ' + what);
		await sleep(50);
	}
}

/* Whether the page scrolls sideways (it must not, at any width). */
export function scrollsSideways(page) {
	return page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
}

/* Test pages: the menu and routes /api/pages would give, served from
 * tests/e2e/pages/ under /e2e-pages/. `pages` null makes /api/pages
 * answer 404, as a server without it does. Returns the list of page
 * module URLs the browser asked for, in order. */
export async function usePages(context, pages) {
	const fetched = [];
	await context.route('**/api/pages', (route) => pages === null
		? route.fulfill({ status: 404, contentType: 'application/json',
			body: '{"error":{"code":"not_found","message":"nothing here"}}' })
		: route.fulfill({ status: 200, contentType: 'application/json',
			body: JSON.stringify({ data: pages }) }));
	await context.route('**/e2e-pages/**', (route) => {
		const name = new URL(route.request().url()).pathname.split('/').pop();
		fetched.push(name);
		const file = join(ROOT, 'tests', 'e2e', 'pages', name);
		if (!/^[a-z]+\.js$/.test(name) || !existsSync(file))
			return route.fulfill({ status: 404, contentType: 'application/json',
				body: '{"error":{"code":"not_found","message":"no such file"}}' });
		return route.fulfill({ path: file, contentType: 'text/javascript; charset=utf-8' });
	});
	return fetched;
}

export const TEST_PAGES = [
	{ module: 'e2e', path: '/people', label: 'People', script: '/e2e-pages/people.js', order: 10 },
	{ module: 'e2e', path: '/people/:id', label: null, script: '/e2e-pages/person.js', order: 10 },
	{ module: 'e2e', path: '/people/new', label: null, script: '/e2e-pages/newperson.js', order: 10 },
	{ module: 'e2e', path: '/notes', label: 'Notes', script: '/e2e-pages/notes.js', order: 20 },
	{ module: 'e2e', path: '/reports', label: 'Reports', script: '/e2e-pages/reports.js', order: 30 },
	{ module: 'e2e', path: '/broken', label: 'Broken', script: '/e2e-pages/broken.js', order: 40 },
];

// SPDX-License-Identifier: MIT
/*
 * lib.mjs: what the browser tests share. A real server (the built
 * hyperlevel on a free port, its own temporary data folder seeded by
 * perf-seed at a small scale, the tree's modules and plugins.d), Debian's
 * Chromium driven headless by playwright-core, an HTTP client for set-up
 * through the API, and screenshots at desktop and phone width into
 * build/screenshots.
 *
 * Nothing is mocked: the menu and the pages are what the server's
 * GET /api/pages and web folder give. A test that needs the server
 * otherwise starts its own: with a copy of the web folder it may change
 * (copyWebDir, option webDir) or with modules disabled (option disabled).
 *
 * Environment: HL_BUILD (the build folder, default build), HL_WEB_DIR
 * (default: BUILD/web when it was built, else webui/), HL_CHROMIUM
 * (default /usr/bin/chromium).
 */
import { spawn, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync }
	from 'node:fs';
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

/* A copy of the web folder in a new temporary folder, for a test that
 * changes what the server serves; the caller removes it. */
export function copyWebDir() {
	const dir = mkdtempSync(join(tmpdir(), 'hl-e2e-web-'));
	cpSync(webDir(), dir, { recursive: true });
	return dir;
}

/* plugins.d with the modules named in `disabled` (true: every module)
 * turned off, the others as the tree has them, in `root`. */
function pluginsDir(root, disabled = [], settings = {}) {
	const dir = join(root, 'plugins.d');
	mkdirSync(dir);
	const tree = join(ROOT, 'plugins.d');
	for (const file of readdirSync(tree).filter((f) => f.endsWith('.conf'))) {
		const name = file.slice(0, -'.conf'.length);
		writeFileSync(join(dir, file), disabled === true || disabled.includes(name)
			? 'enabled = no\n' : readFileSync(join(tree, file)) + (settings[name] || ''));
	}
	return dir;
}

/* A seeded server, answering. options: scale (0.002), locations (5),
 * webDir (the folder it serves, default webDir()), disabled (names of
 * modules it does not load, or true for all), settings (lines added to
 * modules' confs, by module name), args (more command-line settings).
 * stop() ends it and removes its folder. */
export async function startServer(options = {}) {
	const root = mkdtempSync(join(tmpdir(), 'hl-e2e-'));
	const data = join(root, 'data');
	/* Argon2id's least work for the passwords: a suite signs in hundreds
	 * of times, a fifth of a second of CPU each at the real work. */
	const env = { ...process.env, PGHL_PASSWORD_LEAST_WORK: 'yes' };
	execFileSync(join(BUILD, 'perf-seed'), ['--data-dir', data,
		'--scale', String(options.scale || 0.002), '--locations', String(options.locations || 5)],
	{ stdio: 'pipe', env });
	const plugins = options.disabled || options.settings
		? pluginsDir(root, options.disabled, options.settings) : join(ROOT, 'plugins.d');
	const port = await freePort();
	const args = ['serve', '--data-dir', data, '--port', String(port),
		'--modules-dir', join(BUILD, 'modules'), '--plugins-dir', plugins,
		'--web-dir', options.webDir || webDir(), '--config', '/dev/null', ...(options.args || [])];
	const proc = spawn(join(BUILD, 'hyperlevel'), args, { stdio: ['ignore', 'pipe', 'pipe'], env });
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
		if (me.csrf_token)
			headers['X-CSRF-Token'] = me.csrf_token;
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
		put: (path, body, location) => call('PUT', path, body, location),
		delete: (path, location) => call('DELETE', path, undefined, location),
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
 * injected markup), an uncaught error, a CSP violation, a console error,
 * or an answer of 400 or more ("failed: 404 GET /favicon.ico"): a normal
 * session's console stays clean. A test that provokes an error answer
 * names it when it checks (provoked). */
export async function newPage(browser, server, options = {}) {
	const context = await browser.newContext({
		baseURL: server.url,
		viewport: options.viewport || DESKTOP,
		colorScheme: options.colorScheme || 'light',
		reducedMotion: 'reduce',
		timezoneId: options.timezoneId, /* the browser's own zone, not the sub-account's */
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
			/* A failed request's line names no URL: the answer below does. */
			if (/Content.Security.Policy/i.test(text) ||
			    (m.type() === 'error' && !/^Failed to load resource/.test(text)))
				problems.push('console: ' + text);
		});
		page.on('response', (r) => {
			if (r.status() < 400)
				return;
			const u = new URL(r.url());
			problems.push('failed: ' + r.status() + ' ' + r.request().method() + ' ' + u.pathname + u.search);
		});
	};
	context.on('page', watch);
	const page = await context.newPage();
	return { context, page, problems };
}

/* `problems` less the error answers the test provoked on purpose, each
 * matched by one of `answers` (RegExps of "STATUS METHOD PATH"). */
export function provoked(problems, ...answers) {
	return problems.filter((p) => !(p.startsWith('failed: ') &&
		answers.some((re) => re.test(p.slice('failed: '.length)))));
}

/* Signs in through the login form, as a person does. */
export async function signIn(page, email, password) {
	if (page.url() === 'about:blank')
		await page.goto('/');
	await page.getByLabel('E-mail').fill(email);
	await page.getByLabel('Password').fill(password);
	await page.getByRole('button', { name: 'Sign in' }).click();
	await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
}

/* A test file's usual start: a seeded server (options as startServer's),
 * Chromium, `open` to open pages signed in as DEMO (signedInOpener), and
 * DEMO's API client (apiAs). */
export async function setUp(options) {
	const server = await startServer(options);
	const browser = await launch();
	const admin = await apiAs(server, DEMO.email, DEMO.password);
	return { server, browser, admin, open: signedInOpener(browser, server) };
}

/* A test file's end: whatever of setUp's started, stopped. */
export async function tearDown(server, browser) {
	await browser?.close();
	await server?.stop();
}

/* Opens pages as `who`: signed in through the form the first time, with
 * that session's cookies after, for a file of tests that are all one
 * person's. opened(at, options) gives what newPage gives, at `at`. */
export function signedInOpener(browser, server, who = DEMO) {
	let session = null;
	return async function opened(at, options = {}) {
		const o = await newPage(browser, server, options);
		if (session)
			await o.context.addCookies(session);
		await o.page.goto(at);
		if (!session) {
			await signIn(o.page, who.email, who.password);
			session = await o.context.cookies();
		}
		return o;
	};
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

/* Turns the page to `viewport` and fails unless it settles without
 * scrolling sideways (a resized page takes a frame or two to lay itself
 * out again: charts redraw at their new size). */
export async function fitsAt(page, viewport) {
	await page.setViewportSize(viewport);
	await until(async () => !(await scrollsSideways(page)), 5000,
		'the page at ' + viewport.width + ' px not scrolling sideways');
}

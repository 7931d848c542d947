#!/usr/bin/env node
// SPDX-License-Identifier: MIT
/*
 * perf-browser: the reference's page-load measurement, in headless
 * Chromium against the built server. It starts a server on a scratch data
 * set (perf-seed, the reference's full one by default) the way the
 * browser tests do (tests/e2e/lib.mjs), throttles each page through the
 * DevTools protocol as the reference did (1.6 Mbit/s down, 750 kbit/s up,
 * 150 ms latency; --cpu N slows the CPU N times, the reference's phone
 * was 4) and loads:
 *   login      /, signed out: cold (a new browser context, empty cache),
 *              then a second visit in the same context (warm cache);
 *   dashboard  /app/dashboard in the largest sub-account, signed in (the
 *              session cookie and the shell's signed-in hint, nothing
 *              cached): cold, then a second visit;
 *   board      /app/opportunities on that sub-account's largest pipeline
 *              (the most open deals), signed in the same way: its first
 *              render, cold, then a second visit.
 * For each: first paint, first contentful paint, largest contentful paint
 * (ms from the navigation's start), "shown" (login: the form has its
 * focus, i.e. first.js has heard from the server; dashboard and board:
 * the page's view is shown with its heading, its first figures or cards
 * drawn) and the bytes transferred (headers and
 * bodies as they came over the wire) until the page was shown and the
 * network had been quiet for QUIET_MS. The service worker is blocked, as
 * the reference's was, so every byte is counted. Median of --runs runs,
 * after one uncounted load that starts the browser's renderer.
 *
 * A page the server does not offer (not in GET /api/pages, or its module
 * not built) is reported as not measured, with the reason, never guessed; a run whose
 * page never shows fails that run, with the reason.
 *
 *   perf-browser [--runs 3] [--cpu 1] [--scale 1] [--locations 50]
 *                [--build build] [--json FILE] [--readme README.md]
 *
 * --json writes every run's figures, the element of its largest paint
 * and its requests as a waterfall (when each was sent, answered and
 * done, in ms from the document's request), to see where the time went.
 * --readme replaces the README's block between BEGIN and END with the
 * figures beside the reference's (tools/perf-browser/reference.json).
 * Exit code: 0 when measured (targets met or not: they are reported), 1
 * when a run failed, 2 for bad arguments or a server that did not start.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const HERE = dirname(fileURLToPath(import.meta.url));
const BEGIN = '<!-- perf-browser:begin -->';
const END = '<!-- perf-browser:end -->';
const NETWORK = { offline: false, latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 750e3 / 8 };
const QUIET_MS = 500;
const SHOWN_TIMEOUT_MS = 60000;
const SIGNED_IN_HINT = 'hl.signed-in'; /* first.js's flag: see webui/first.js */
const LARGEST_LOCATION = 1;            /* perf-seed's largest sub-account */
/* The headings of the shell's own views (webui/shell.js), not a page's. */
const SHELL_VIEWS = /^(Page not found|This page failed|This page could not be loaded|Not found|Not allowed|Sub-account not available)$/;
const METRICS = ['fp', 'fcp', 'lcp', 'shown', 'bytes'];
const VISITS = [
	{ key: 'login-cold', label: 'Login, cold cache' },
	{ key: 'login-warm', label: 'Login, second visit' },
	{ key: 'dashboard-cold', label: 'Dashboard, cold cache' },
	{ key: 'dashboard-warm', label: 'Dashboard, second visit' },
	{ key: 'board-cold', label: 'Board, cold cache' },
	{ key: 'board-warm', label: 'Board, second visit' },
];

class Usage extends Error {}

function options(argv) {
	const { values } = parseArgs({
		args: argv,
		options: {
			runs: { type: 'string', default: '3' },
			cpu: { type: 'string', default: '1' },
			scale: { type: 'string', default: '1' },
			locations: { type: 'string', default: '50' },
			build: { type: 'string' },
			json: { type: 'string' },
			readme: { type: 'string' },
			help: { type: 'boolean', short: 'h' },
		},
	});
	if (values.help)
		throw new Usage('');
	const num = (name, min, max) => {
		const v = Number(values[name]);
		if (!(v >= min && v <= max))
			throw new Usage('--' + name + ' must be a number from ' + min + ' to ' + max);
		return v;
	};
	return {
		runs: Math.round(num('runs', 1, 50)),
		cpu: num('cpu', 1, 20),
		scale: num('scale', 0.001, 10),
		locations: Math.round(num('locations', 1, 10000)),
		build: values.build,
		json: values.json,
		readme: values.readme,
	};
}

/* ---- one page load ------------------------------------------------------------ */

/* Runs in the page before its own scripts: the largest contentful paint
 * as it grows, and the moment the page counts as shown. */
function observe(what) {
	const m = window.__perf = { lcp: null, lcpElement: null, shown: null };
	try {
		new PerformanceObserver((list) => {
			for (const e of list.getEntries()) {
				m.lcp = e.startTime;
				m.lcpElement = e.element ? e.element.tagName.toLowerCase() +
					(e.element.id ? '#' + e.element.id : '') +
					(e.element.className && typeof e.element.className === 'string'
						? '.' + e.element.className.trim().split(/\s+/).join('.') : '') : null;
			}
		}).observe({ type: 'largest-contentful-paint', buffered: true });
	} catch (e) { /* an old browser: no LCP */ }
	const shown = what === 'login'
		? () => !!document.activeElement && /^login-(email|password)$/.test(document.activeElement.id)
		: () => !!document.querySelector('#main > section.view:not([hidden]) h1');
	const check = () => {
		if (m.shown === null && shown())
			m.shown = performance.now();
	};
	document.addEventListener('focusin', check, true);
	new MutationObserver(check).observe(document, {
		subtree: true, childList: true, attributes: true, attributeFilter: ['hidden'],
	});
}

/* A throttled page in a new context: nothing cached, service worker
 * blocked; `storageState` signs it in. The network log is kept in
 * page.net, reset before each visit. */
async function throttledPage(browser, server, lib, opts, what, storageState) {
	const context = await browser.newContext({
		baseURL: server.url, viewport: lib.DESKTOP, serviceWorkers: 'block',
		reducedMotion: 'no-preference', storageState,
	});
	await context.addInitScript(observe, what);
	const page = await context.newPage();
	const cdp = await context.newCDPSession(page);
	await cdp.send('Network.enable');
	await cdp.send('Network.emulateNetworkConditions', NETWORK);
	await cdp.send('Emulation.setCPUThrottlingRate', { rate: opts.cpu });
	/* A request is in flight until its answer's headers are in (a body
	 * nobody reads may never finish); its bytes are what came over the
	 * wire: loadingFinished's total, or headers and data so far. */
	const net = { inflight: new Set(), last: 0, requests: new Map(), zero: null };
	const touch = () => { net.last = Date.now(); };
	const request = (e) => net.requests.get(e.requestId) || {};
	cdp.on('Network.requestWillBeSent', (e) => {
		net.inflight.add(e.requestId);
		if (net.zero === null)
			net.zero = e.timestamp;
		net.requests.set(e.requestId, { url: e.request.url, status: null, bytes: 0, cache: false,
			sent: e.timestamp, answered: null, done: null });
		touch();
	});
	cdp.on('Network.requestServedFromCache', (e) => {
		request(e).cache = true;
	});
	cdp.on('Network.responseReceived', (e) => {
		const r = request(e);
		r.status = e.response.status;
		r.cache = r.cache || !!e.response.fromDiskCache;
		r.bytes = e.response.encodedDataLength || 0;
		r.answered = e.timestamp;
		net.inflight.delete(e.requestId);
		touch();
	});
	cdp.on('Network.dataReceived', (e) => {
		request(e).bytes += e.encodedDataLength || 0;
		touch();
	});
	cdp.on('Network.loadingFinished', (e) => {
		net.inflight.delete(e.requestId);
		request(e).bytes = e.encodedDataLength;
		request(e).done = e.timestamp;
		touch();
	});
	cdp.on('Network.loadingFailed', (e) => {
		net.inflight.delete(e.requestId);
		request(e).status = 'failed: ' + e.errorText;
		touch();
	});
	page.net = net;
	return { context, page };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/* Loads `path` and measures it; throws with the reason when the page is
 * not shown. `expect(requests, figures, cold)` may say what is wrong with
 * what loaded. */
async function visit(page, path, expect, cold) {
	const net = page.net;
	net.inflight.clear();
	net.requests.clear();
	net.zero = null;
	net.last = Date.now();
	await page.goto(path, { waitUntil: 'load', timeout: SHOWN_TIMEOUT_MS });
	for (const deadline = Date.now() + SHOWN_TIMEOUT_MS; ;) {
		if (await page.evaluate(() => window.__perf.shown !== null))
			break;
		if (Date.now() > deadline)
			throw new Error('not shown after ' + SHOWN_TIMEOUT_MS / 1000 + ' s (' +
				(await page.evaluate(() => (document.querySelector('h1') || {}).textContent || 'no heading')) + ')');
		await sleep(50);
	}
	for (const deadline = Date.now() + SHOWN_TIMEOUT_MS; net.inflight.size || Date.now() - net.last < QUIET_MS;) {
		if (Date.now() > deadline)
			throw new Error('the network was not quiet after ' + SHOWN_TIMEOUT_MS / 1000 + ' s: ' +
				Array.from(net.inflight, (id) => net.requests.get(id).url).join(' '));
		await sleep(50);
	}
	const m = await page.evaluate(() => {
		const paint = (name) => {
			const e = performance.getEntriesByName(name)[0];
			return e ? e.startTime : null;
		};
		return {
			fp: paint('first-paint'), fcp: paint('first-contentful-paint'),
			lcp: window.__perf.lcp, lcpElement: window.__perf.lcpElement, shown: window.__perf.shown,
			heading: (document.querySelector('h1:not([hidden])') || {}).textContent || null,
		};
	});
	/* when each was sent, answered (its headers in) and done, in ms
	 * from the document's request: the waterfall behind the figures */
	const since = (t) => t === null ? null : Math.round((t - net.zero) * 1000);
	const requests = Array.from(net.requests.values()).map((r) => ({
		path: new URL(r.url).pathname, status: r.status, bytes: r.bytes, cache: r.cache,
		sent: since(r.sent), answered: since(r.answered), done: since(r.done),
	}));
	const wrong = expect && expect(requests, m, cold);
	if (wrong)
		throw new Error(wrong);
	const round = (v) => v === null ? null : Math.round(v);
	return { fp: round(m.fp), fcp: round(m.fcp), lcp: round(m.lcp), lcp_element: m.lcpElement,
		shown: round(m.shown), bytes: requests.reduce((sum, r) => sum + r.bytes, 0), heading: m.heading, requests };
}

/* A cold visit of `path` in a fresh context, then a second one. */
async function pair(browser, server, lib, opts, what, path, storageState, expect) {
	const { context, page } = await throttledPage(browser, server, lib, opts, what, storageState);
	try {
		const cold = await visit(page, path, expect, true);
		await page.goto('about:blank');
		const warm = await visit(page, path, expect, false);
		return [cold, warm];
	} finally {
		await context.close();
	}
}

/* ---- the signed-in pages: are they there, and who opens them -------------------- */

/* The session of the demo user, signed in through the form as a person
 * is, once; each run starts from its cookie and the shell's hint, with
 * nothing cached. */
async function signedInState(lib, server, browser) {
	const context = await browser.newContext({ baseURL: server.url, serviceWorkers: 'block' });
	const signing = await context.newPage();
	await lib.signIn(signing, lib.DEMO.email, lib.DEMO.password);
	const state = await context.storageState();
	await context.close();
	const origin = state.origins.find((o) => o.origin === server.url);
	if (!origin || !origin.localStorage.some((e) => e.name === SIGNED_IN_HINT))
		state.origins.push({ origin: server.url, localStorage: [{ name: SIGNED_IN_HINT, value: '1' }] });
	return state;
}

/* What opens the page registered at `registered` (its address `path`):
 * { path, script, expect } or { missing: why not }. */
async function pageOf(server, api, loc, registered, path, name) {
	let pages;
	try {
		pages = (await api.get('/api/pages', loc.id)).data || [];
	} catch (e) {
		return { missing: 'GET /api/pages failed (' + e.message.split('\n')[0].slice(0, 120) + ')' };
	}
	const page = pages.find((p) => p.path === registered);
	if (!page)
		return { missing: 'the server offers no ' + registered + ' page (GET /api/pages lists none)' };
	const script = new URL(page.script, server.url).pathname;
	const file = await fetch(server.url + script);
	if (file.status !== 200)
		return { missing: 'the ' + registered + ' page\'s module ' + script + ' is not there (' + file.status +
			'): the ' + page.module + ' module\'s webui/ is not built' };
	return {
		path,
		location: { id: loc.id, name: loc.name },
		script,
		expect: (requests, m, cold) => {
			if (cold && !requests.some((r) => r.path === script))
				return 'the ' + name + '\'s module ' + script + ' was not loaded (heading: ' + m.heading + ')';
			if (SHELL_VIEWS.test(m.heading || ''))
				return 'the ' + name + ' did not open: the shell says "' + m.heading + '"';
			return null;
		},
	};
}

/* The sub-account's pipeline with the most open deals, and how many. */
async function largestPipeline(api, loc) {
	let best = null;
	for (const p of (await api.get('/api/pipelines', loc.id)).data || []) {
		const deals = ((await api.get('/api/opportunities?pipeline=' + p.id, loc.id)).data || []).length;
		if (!best || deals > best.deals)
			best = { id: p.id, name: p.name, deals };
	}
	return best;
}

/* The dashboard and the board of the largest sub-account, as the demo
 * user opens them. */
async function signedInPages(lib, server, browser) {
	const api = await lib.apiAs(server, lib.DEMO.email, lib.DEMO.password);
	const locations = api.me.locations || [];
	const loc = locations.find((l) => l.id === LARGEST_LOCATION) || locations[0];
	if (!loc) {
		const missing = { missing: lib.DEMO.email + ' may open no sub-account' };
		return { dashboard: missing, board: missing };
	}
	const state = await signedInState(lib, server, browser);
	const dashboard = await pageOf(server, api, loc, '/dashboard',
		'/app/dashboard?location=' + loc.id, 'dashboard');
	let board = { missing: 'the sub-account has no pipeline' };
	const pipeline = await largestPipeline(api, loc).catch(() => null);
	if (pipeline) {
		board = await pageOf(server, api, loc, '/opportunities',
			'/app/opportunities?location=' + loc.id + '&pipeline=' + pipeline.id, 'board');
		board.pipeline = pipeline;
	}
	dashboard.state = board.state = state;
	return { dashboard, board };
}

/* ---- figures --------------------------------------------------------------------- */

function median(values) {
	const v = values.filter((x) => typeof x === 'number').sort((a, b) => a - b);
	if (!v.length)
		return null;
	const mid = v.length >> 1;
	return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

function summarize(runs) {
	const ok = runs.filter((r) => !r.error);
	const med = {};
	for (const k of METRICS)
		med[k] = ok.length ? median(ok.map((r) => r[k])) : null;
	return { median: ok.length ? med : null, runs };
}

/* 1 200 ms, 4.3 KB, as the reference writes them; "–" for none. */
function ms(v) {
	return v === null || v === undefined ? '–' : Math.round(v).toLocaleString('en').replace(/,/g, ' ') + ' ms';
}

function kb(bytes) {
	if (bytes === null || bytes === undefined)
		return '–';
	const k = bytes / 1024;
	return (k < 10 ? k.toFixed(1) : Math.round(k).toString()) + ' KB';
}

function targetLines(result, ref) {
	const lines = [];
	const names = { fp: 'first paint', lcp: 'largest paint' };
	for (const [key, t] of Object.entries(ref.targets)) {
		const label = VISITS.find((v) => v.key === key).label.replace(', cold cache', ', cold');
		for (const [metric, limit] of Object.entries(t)) {
			const r = result.pages[key];
			const got = r && r.median ? r.median[metric] : null;
			const what = label + ' ' + names[metric] + ' (target at most ' + ms(limit) + '): ';
			if (r && r.missing)
				lines.push(what + 'not measured: ' + r.missing + '.');
			else if (got === null)
				lines.push(what + 'no figure (every run failed).');
			else
				lines.push(what + ms(got) + ', ' + (got <= limit ? 'met' : 'missed') +
					' (the reference: ' + ms(ref.pages[key][metric]) + ').');
		}
	}
	return lines;
}

function conditions(result) {
	return '1.6 Mbit/s down, 750 kbit/s up, 150 ms latency, CPU ' +
		(result.cpu_rate === 1 ? 'not slowed' : result.cpu_rate + 'x slower') +
		'; median of ' + result.runs + (result.runs === 1 ? ' run' : ' runs') +
		'; service worker blocked; perf-seed --scale ' + result.scale + ' --locations ' + result.locations;
}

function rowsOf(result, ref) {
	return VISITS.map((v) => {
		const r = result.pages[v.key];
		const f = r && r.median;
		const ours = r && r.missing ? ['not measured', '–', '–', '–', '–']
			: f ? [ms(f.fp), ms(f.fcp), ms(f.lcp), ms(f.shown), kb(f.bytes)]
				: ['failed', '–', '–', '–', '–'];
		const p = ref.pages[v.key];
		return [v.label, ...ours, ...(p ? [ms(p.fp), ms(p.lcp), ms(p.shown), p.kb + ' KB'] : ['–', '–', '–', '–'])];
	});
}

const HEAD = ['page', 'first paint', 'FCP', 'largest paint', 'shown', 'transferred',
	'reference: first paint', 'largest paint', 'shown', 'transferred'];

function table(result, ref) {
	const rows = [HEAD, ...rowsOf(result, ref)];
	const width = HEAD.map((_, i) => Math.max(...rows.map((r) => r[i].length)));
	const line = (r) => r.map((c, i) => i ? c.padStart(width[i]) : c.padEnd(width[i])).join('  ');
	const out = ['perf-browser ' + result.url + ': ' + conditions(result) + '; load average ' +
		result.machine.load + ' as it began', '', ...rows.map(line), ''];
	if (boardLine(result))
		out.push(boardLine(result));
	for (const v of VISITS) {
		const r = result.pages[v.key];
		if (r && r.missing && /cold/.test(v.key))
			out.push(v.label.split(',')[0] + ': not measured: ' + r.missing + '.');
		for (const [i, run] of ((r && r.runs) || []).entries()) {
			if (run.error)
				out.push(v.label + ', run ' + (i + 1) + ' failed: ' + run.error);
		}
	}
	return out.concat(targetLines(result, ref)).join('\n');
}

/* Which board was measured: its size says what the figures mean. */
function boardLine(result) {
	const b = result.board;
	return b && b.pipeline ? 'The board: the pipeline "' + b.pipeline.name + '" of ' + b.location.name +
		', ' + b.pipeline.deals.toLocaleString('en').replace(/,/g, ' ') + ' open deals; the reference gives no figure for it.' : null;
}

function readmeBlock(result, ref) {
	const md = (r) => '| ' + r.join(' | ') + ' |';
	return [BEGIN, '',
		'Measured ' + result.started_at.slice(0, 10) + ' on ' + result.machine.cpu + ', ' +
		result.machine.cores + ' cores (' + result.machine.os + '; load average ' + result.machine.load +
		' as it began), Chromium ' + result.chromium + ', shared with the server: ' + conditions(result) + '. Written by `make perf-browser' +
		(result.command ? ' PERF_BROWSER_FLAGS="' + result.command + '"' : '') + '`. ' +
		'The reference\'s figures are its own (' + ref.name + ', the full data set, CPU not slowed; ' +
		ref.cpu4 + ').' + (boardLine(result) ? ' ' + boardLine(result) : ''),
		'',
		md(HEAD), '|' + '---|'.repeat(HEAD.length), ...rowsOf(result, ref).map(md),
		'',
		...targetLines(result, ref).map((l) => '- ' + l),
		'', END].join('\n');
}

function replaceBlock(path, block) {
	const text = readFileSync(path, 'utf8');
	if (!text.includes(BEGIN) || !text.includes(END))
		throw new Usage(path + ' has no ' + BEGIN + ' ... ' + END + ' block to fill');
	const head = text.split(BEGIN)[0];
	const tail = text.split(BEGIN).slice(1).join(BEGIN).split(END).slice(1).join(END);
	writeFileSync(path, head + block + tail);
}

function machine() {
	let osName = os.type();
	try {
		osName = /PRETTY_NAME="?([^"\n]*)/.exec(readFileSync('/etc/os-release', 'utf8'))[1];
	} catch (e) { /* the kernel's name will do */ }
	const cpu = (os.cpus()[0] || {}).model || 'an unnamed CPU';
	return { cpu: cpu.trim(), cores: os.cpus().length, os: osName,
		load: Math.round(os.loadavg()[0] * 10) / 10 };
}

/* ---- main ------------------------------------------------------------------------- */

async function main(argv) {
	const opts = options(argv);
	if (opts.build)
		process.env.HL_BUILD = opts.build;
	const lib = await import('../../tests/e2e/lib.mjs');
	const ref = JSON.parse(readFileSync(join(HERE, 'reference.json'), 'utf8'));
	const result = {
		started_at: new Date().toISOString(), machine: machine(), chromium: null,
		network: NETWORK, cpu_rate: opts.cpu, runs: opts.runs, scale: opts.scale,
		locations: opts.locations, command: argv.filter((a, i) => !/^--(json|readme|build)$/.test(a) &&
			!/^--(json|readme|build)$/.test(argv[i - 1] || '') && !/^--(json|readme|build)=/.test(a)).join(' '),
		url: null, dashboard: null, board: null, pages: {},
	};
	const say = (text) => process.stderr.write('perf-browser: ' + text + '\n');
	say('seeding (perf-seed --scale ' + opts.scale + ' --locations ' + opts.locations + ') and starting the server');
	let server;
	try {
		server = await lib.startServer({ scale: opts.scale, locations: opts.locations });
	} catch (e) {
		console.error('perf-browser: ' + e.message);
		return 2;
	}
	let browser;
	let failed = false;
	try {
		browser = await lib.launch();
		result.chromium = browser.version();
		result.url = server.url;
		const { dashboard: dash, board } = await signedInPages(lib, server, browser);
		say(dash.missing ? 'the dashboard is not measured: ' + dash.missing : 'the dashboard: ' + dash.path);
		say(board.missing ? 'the board is not measured: ' + board.missing
			: 'the board: ' + board.path + ' (' + board.pipeline.deals + ' open deals)');
		result.dashboard = dash.missing ? { missing: dash.missing }
			: { path: dash.path, location: dash.location, script: dash.script };
		result.board = board.missing ? { missing: board.missing }
			: { path: board.path, location: board.location, script: board.script, pipeline: board.pipeline };
		const runs = Object.fromEntries(VISITS.map((v) => [v.key, []]));
		const record = async (keys, work) => {
			try {
				const [cold, warm] = await work();
				runs[keys[0]].push(cold);
				runs[keys[1]].push(warm);
			} catch (e) {
				failed = true;
				for (const k of keys)
					runs[k].push({ error: e.message.split('\n')[0] });
			}
		};
		/* one uncounted load first: a new browser's first page pays for
		 * starting its renderer; each run's context is new all the same */
		await pair(browser, server, lib, opts, 'login', '/', undefined, null).catch(() => {});
		for (let i = 0; i < opts.runs; i++) {
			say('run ' + (i + 1) + ' of ' + opts.runs);
			await record(['login-cold', 'login-warm'],
				() => pair(browser, server, lib, opts, 'login', '/', undefined, null));
			if (!dash.missing)
				await record(['dashboard-cold', 'dashboard-warm'],
					() => pair(browser, server, lib, opts, 'dashboard', dash.path, dash.state, dash.expect));
			if (!board.missing)
				await record(['board-cold', 'board-warm'],
					() => pair(browser, server, lib, opts, 'board', board.path, board.state, board.expect));
		}
		const missing = { dashboard: dash.missing, board: board.missing };
		for (const v of VISITS) {
			const why = missing[v.key.split('-')[0]];
			result.pages[v.key] = why ? { missing: why, median: null, runs: [] } : summarize(runs[v.key]);
		}
	} finally {
		await browser?.close();
		await server.stop();
	}
	console.log(table(result, ref));
	if (opts.json)
		writeFileSync(opts.json, JSON.stringify(result, null, 1) + '\n');
	if (opts.readme)
		replaceBlock(opts.readme, readmeBlock(result, ref));
	return failed ? 1 : 0;
}

main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (e) => {
	if (e instanceof Usage || e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
		if (e.message)
			console.error('perf-browser: ' + e.message);
		console.error('usage: perf-browser [--runs N] [--cpu N] [--scale F] [--locations N] ' +
			'[--build DIR] [--json FILE] [--readme README.md]');
		process.exitCode = e.message ? 2 : 0;
		return;
	}
	console.error(e);
	process.exitCode = 1;
});

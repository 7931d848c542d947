// SPDX-License-Identifier: MIT
/*
 * The dashboard (modules/reports/webui/dashboard.js) and the System page
 * (webui/system.js), the real pages against a real seeded server: the
 * figures are what /api/dashboard says for the sub-account, each chart
 * has a table of the same numbers, the period switch is kept in the URL;
 * System is for agency admins only, shows the routes' figures and reads
 * them again while it is open, and stops when it is left.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEMO, apiAs, launch, newPage, scrollsSideways, shoot, signIn, startServer, until } from './lib.mjs';

const LOCATION_USER = { email: 'dash.desk@example.test', password: 'desk-pass-123' };
const n = (v) => new Intl.NumberFormat('en-US').format(v);

describe('dashboard and System', () => {
	let server, browser, admin, locations;

	before(async () => {
		server = await startServer({ scale: 0.01 });
		browser = await launch();
		admin = await apiAs(server, DEMO.email, DEMO.password);
		locations = admin.me.locations;
		await admin.post('/api/admin/users', {
			email: LOCATION_USER.email, name: 'Dash Desk', role: 'location_user',
			password: LOCATION_USER.password, location_ids: [locations[1].id],
		});
	});

	after(async () => {
		await browser?.close();
		await server?.stop();
	});

	async function signedIn(who, at = '/') {
		const opened = await newPage(browser, server);
		await opened.page.goto(at);
		await signIn(opened.page, who.email, who.password);
		return opened;
	}

	/* What sticks out on the right, to say why a page scrolls sideways. */
	const wider = (page) => page.evaluate(() => {
		const w = document.documentElement.clientWidth;
		return Array.from(document.querySelectorAll('main *')).filter((e) => e.getBoundingClientRect().right > w)
			.map((e) => e.tagName.toLowerCase() + '.' + (e.getAttribute('class') || '')).slice(0, 8).join(', ');
	});
	const h1 = (page, name) => page.getByRole('heading', { level: 1, name, exact: true });
	const cardValue = (page, name) => page.getByRole('article', { name, exact: true }).locator('.figure-value');

	/* The cells of the chart table captioned `name`: [[day, value], ...]. */
	async function tableOf(page, name) {
		const rows = page.getByRole('table', { name, exact: true }).locator('tbody tr');
		return rows.evaluateAll((trs) => trs.map((tr) => Array.from(tr.children, (c) => c.textContent)));
	}

	async function matches(page, loc, period) {
		const d = await admin.get('/api/dashboard?period=' + period, loc);
		await until(async () => (await tableOf(page, 'Messages received')).length === d.series.length,
			10000, 'the ' + period + ' series');
		assert.equal(await cardValue(page, 'Contacts').textContent(), n(d.contacts.total));
		assert.equal(await cardValue(page, 'Unread conversations').textContent(), n(d.conversations.unread));
		assert.equal(await cardValue(page, 'Tasks due today').textContent(), n(d.tasks.due_today));
		assert.equal(await cardValue(page, 'Open deals').textContent(),
			n(d.pipelines.reduce((a, p) => a + p.count, 0)));
		assert.equal(await cardValue(page, 'Invoices outstanding').textContent(), n(d.invoices.outstanding.count));
		const messages = await tableOf(page, 'Messages received');
		assert.deepEqual(messages.map((r) => r[1]), d.series.map((s) => n(s.messages_received)));
		const contacts = await tableOf(page, 'New contacts');
		assert.deepEqual(contacts.map((r) => r[1]), d.series.map((s) => n(s.contacts_new)));
		return d;
	}

	test('the dashboard shows the sub-account\'s figures, charts with tables, and keeps its period', async () => {
		const { page, context, problems } = await signedIn(DEMO);
		await h1(page, 'Dashboard').waitFor();
		assert.equal(new URL(page.url()).pathname, '/app/dashboard', 'the first menu entry');
		const loc = locations[0].id;
		const d30 = await matches(page, loc, '30d');
		assert.equal(d30.series.length, 30);
		assert.ok(await page.getByRole('radio', { name: '30 days' }).isChecked(), 'the default period');

		/* the table shows in place of the plot, by its button */
		const toggle = page.getByRole('button', { name: 'Table of Messages received' });
		await toggle.click();
		assert.equal(await toggle.getAttribute('aria-pressed'), 'true');
		assert.ok(await page.getByRole('table', { name: 'Messages received' }).isVisible());
		await toggle.click();
		assert.ok(await page.locator('.chart-svg').first().isVisible(), 'the plot is back');

		/* hovering a bar tells its value */
		const plot = page.getByRole('img', { name: 'New contacts' });
		const box = await plot.boundingBox();
		await page.mouse.move(box.x + box.width - 12, box.y + box.height / 2);
		const tip = page.locator('.chart-tip').first();
		await tip.waitFor();
		const last = d30.series[d30.series.length - 1];
		assert.equal(await tip.locator('strong').textContent(), n(last.contacts_new));
		await shoot(page, 'dashboard');

		await page.getByRole('radio', { name: '7 days' }).check();
		await until(() => new URL(page.url()).searchParams.get('period') === '7d', 5000, 'the period in the URL');
		await matches(page, loc, '7d');
		await page.reload();
		await h1(page, 'Dashboard').waitFor();
		assert.ok(await page.getByRole('radio', { name: '7 days' }).isChecked(), 'kept over a reload');
		await matches(page, loc, '7d');
		await page.getByRole('radio', { name: '90 days' }).check();
		await matches(page, loc, '90d');

		await page.setViewportSize({ width: 360, height: 740 });
		/* the charts draw again at their new size once it is laid out */
		await until(async () => !(await scrollsSideways(page)), 3000, 'no sideways scroll at 360 px')
			.catch(async (e) => assert.fail(e.message + '; sticking out: ' + await wider(page)));
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('opened again signed in, the dashboard comes with its first answers and asks for its files at once', async () => {
		const { page, context, problems } = await signedIn(DEMO);
		await h1(page, 'Dashboard').waitFor();
		const loc = locations[0].id;
		await matches(page, loc, '30d');
		const seen = [];
		page.on('request', (r) => seen.push('asked ' + new URL(r.url()).pathname));
		page.on('response', (r) => seen.push('answered ' + new URL(r.url()).pathname));
		/* a round trip long enough to tell one round from two */
		const cdp = await context.newCDPSession(page);
		await cdp.send('Network.enable');
		/* from the network, not the memory cache, which answers each file
		 * the moment the module graph asks for it, one after the other */
		await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
		await cdp.send('Network.emulateNetworkConditions',
			{ offline: false, latency: 150, downloadThroughput: -1, uploadThroughput: -1 });
		await page.reload();
		await h1(page, 'Dashboard').waitFor();
		await matches(page, loc, '30d');
		await cdp.send('Network.emulateNetworkConditions',
			{ offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
		const all = seen.join(', ');
		/* who is signed in, the menu and the figures come in the document */
		for (const path of ['/api/auth/me', '/api/pages', '/api/dashboard'])
			assert.ok(!seen.includes('asked ' + path), path + ' asked for: ' + all);
		/* the shell's scripts and the page's, each asked for once and all
		 * before the first of them came: one round trip. Counted from the
		 * reload: a file the first visit asked for late (another page's
		 * module, fetched when idle) may come in between. */
		const reloaded = seen.slice(seen.indexOf('asked /app/dashboard'));
		const askedAgain = new Set(reloaded.filter((e) => e.startsWith('asked ')).map((e) => e.slice(6)));
		const first = reloaded.findIndex((e) => e.startsWith('answered ') &&
			e !== 'answered /app/dashboard' && askedAgain.has(e.slice(9)));
		for (const pattern of [/^asked \/shell\.\w+\.js$/, /^asked \/ui\.\w+\.js$/,
			/^asked \/modules\/reports\/dashboard\.\w+\.js$/, /^asked \/chart\.\w+\.js$/]) {
			assert.equal(seen.filter((e) => pattern.test(e)).length, 1, pattern + ' asked once: ' + all);
			assert.ok(reloaded.findIndex((e) => pattern.test(e)) < first, pattern + ' before any file came: ' + all);
		}
		/* and their style sheets are in the document too, applied once
		 * the shell and the page asked for them */
		assert.ok(!seen.some((e) => /^asked .*\.css$/.test(e)), 'a style sheet asked for: ' + all);
		const sheets = await page.evaluate(() => Array.from(document.querySelectorAll('style[data-href]'),
			(el) => el.dataset.href.replace(/\.\w+\.css$/, '.css') + ' ' + el.media).sort());
		assert.deepEqual(sheets, ['/chart.css all', '/modules/reports/dashboard.css all', '/shell.css all']);
		assert.equal(await page.locator('.dash-charts').evaluate((el) => getComputedStyle(el).display), 'grid');
		/* a carried answer serves once: another period is asked for */
		await page.getByRole('radio', { name: '7 days' }).check();
		await matches(page, loc, '7d');
		assert.ok(seen.includes('asked /api/dashboard'), 'the 7-day figures asked for: ' + seen.join(', '));
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('a location user sees their dashboard, and no System page', async () => {
		const { page, context, problems } = await signedIn(LOCATION_USER);
		await h1(page, 'Dashboard').waitFor();
		await matches(page, locations[1].id, '30d');
		const nav = page.getByRole('navigation', { name: 'Main' });
		const entries = await nav.getByRole('link').allTextContents();
		assert.ok(entries.includes('Dashboard'));
		assert.ok(!entries.includes('System'), 'no System in ' + entries.join(', '));
		await page.goto('/app/system');
		await h1(page, 'Page not found').waitFor();
		await page.getByText('that your account may open').waitFor();
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('figures that fail to come are said as the page shows, and can be asked for again', async () => {
		const { page, context } = await signedIn(DEMO);
		await h1(page, 'Dashboard').waitFor();
		let refuse = true;
		await page.route('**/api/dashboard*', (r) => (refuse
			? r.fulfill({ status: 503, contentType: 'application/json',
				body: JSON.stringify({ error: { code: 'unavailable', message: 'The server is restarting.' } }) })
			: r.continue()));
		const nav = page.getByRole('navigation', { name: 'Main' });
		await nav.getByRole('link', { name: 'Contacts', exact: true }).click();
		await h1(page, 'Contacts').waitFor();
		await nav.getByRole('link', { name: 'Dashboard', exact: true }).click();
		const alert = page.getByRole('alert');
		await alert.waitFor();
		assert.equal(await alert.locator('p').first().textContent(),
			'The figures could not be loaded: The server is restarting.');
		/* raised while the page was hidden, so said when its heading takes the focus */
		const focused = await page.evaluate(() => {
			const el = document.activeElement;
			const by = document.getElementById(el.getAttribute('aria-describedby') || '');
			return [el.tagName, el.textContent, by ? by.textContent.replace(/\s+/g, ' ').trim() : null];
		});
		assert.deepEqual(focused, ['H1', 'Dashboard', 'The figures could not be loaded: The server is restarting. Try again']);
		refuse = false;
		await page.getByRole('button', { name: 'Try again' }).click();
		await cardValue(page, 'Contacts').waitFor();
		assert.equal(await alert.count(), 0);
		await context.close();
	});

	test('an agency admin sees System, and it refreshes while open and stops when left', async () => {
		const { page, context, problems } = await signedIn(DEMO);
		const metrics = [];
		page.on('request', (r) => {
			if (new URL(r.url()).pathname === '/api/admin/metrics')
				metrics.push(Date.now());
		});
		await h1(page, 'Dashboard').waitFor();
		const nav = page.getByRole('navigation', { name: 'Main' });
		await nav.getByRole('link', { name: 'System' }).click();
		await h1(page, 'System').waitFor();
		assert.equal(await page.title(), 'System · ' + locations[0].name + ' · HyperLevel');

		const routes = page.getByRole('table', { name: 'Routes' });
		const row = routes.getByRole('row', { name: /GET \/api\/dashboard/ });
		await row.waitFor();
		const cells = await row.locator('td').allTextContents();
		assert.match(cells[0], /^\d+$/, 'a request count');
		assert.match(cells[4], /ms$/, 'p95');
		for (const name of ['Memory', 'SQLite', 'Rows', 'Jobs', 'Health'])
			await page.getByRole('heading', { level: 2, name, exact: true }).waitFor();
		await page.getByText('journal mode').waitFor();
		await page.getByText('backups', { exact: true }).waitFor();

		const requests = page.getByRole('article', { name: 'Requests' }).locator('.figure-value');
		const before = Number((await requests.textContent()).replace(/\D/g, ''));
		await until(async () => Number((await requests.textContent()).replace(/\D/g, '')) > before,
			15000, 'the request count to rise');
		/* a second sample draws the requests per second */
		assert.ok((await tableOf(page, 'Requests per second')).length >= 1);
		/* the memory axis: no two ticks read the same, and none is cut off */
		const axis = page.locator('figure.chart', { hasText: 'Memory in use' }).locator('.chart-grid text[dy]');
		const ticks = await axis.allTextContents();
		assert.ok(ticks.length >= 2 && ticks.every((t) => / MB$/.test(t)), ticks.join(', '));
		assert.equal(new Set(ticks).size, ticks.length, ticks.join(', '));
		const cut = await axis.evaluateAll((texts) => texts.filter((t) =>
			t.getBoundingClientRect().left < t.closest('.chart-plot').getBoundingClientRect().left)
			.map((t) => t.textContent));
		assert.deepEqual(cut, [], 'value labels cut off at the left');

		/* sorting by p95, slowest first, then the other way */
		const p95 = routes.getByRole('columnheader', { name: 'p95' });
		await p95.getByRole('button').click();
		assert.equal(await p95.getAttribute('aria-sort'), 'descending');
		const ms = async () => (await routes.locator('tbody tr').evaluateAll((trs) =>
			trs.map((tr) => parseFloat(tr.children[5].textContent.replace(/,/g, '')))));
		const down = await ms();
		assert.deepEqual(down, down.slice().sort((a, b) => b - a));
		assert.ok(down[0] > down[down.length - 1], 'p95s that differ, or the order proves nothing');
		await p95.getByRole('button').click();
		assert.equal(await p95.getAttribute('aria-sort'), 'ascending');
		const up = await ms();
		assert.deepEqual(up, up.slice().sort((a, b) => a - b));
		await shoot(page, 'system');

		await nav.getByRole('link', { name: 'Dashboard' }).click();
		await h1(page, 'Dashboard').waitFor();
		const seen = metrics.length;
		await page.waitForTimeout(6000);
		assert.equal(metrics.length, seen, 'no more reading once the page is left');
		assert.deepEqual(problems, []);
		await context.close();
	});
});

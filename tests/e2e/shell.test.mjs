// SPDX-License-Identifier: MIT
/*
 * The shell around the pages, against a real server: the menu from
 * /api/pages, the router (real URLs, reload, back and forward, params),
 * loading pages on demand, the sub-account switcher, a location user kept
 * to their sub-account, names shown as text, and the phone layout.
 *
 * Nothing is stood in for: the menu is the server's GET /api/pages and
 * the pages are the real ones (Dashboard, Contacts, System). A page whose
 * file is gone and a menu with no pages are made for real, with servers
 * of their own: one serving a copy of the web folder missing a page's
 * file, one with every module disabled.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DEMO, PHONE, SHOTS, apiAs, copyWebDir, launch, newPage, provoked, scrollsSideways, shoot,
	signIn, startServer, until } from './lib.mjs';

const XSS = '<img src=x onerror=alert(1)>';
const LOCATION_USER = { email: 'front.desk@example.test', password: 'desk-pass-123' };

describe('shell', () => {
	let server, browser, admin, locations, xssLocation, xssContact, otherContact, scripts;

	before(async () => {
		server = await startServer();
		browser = await launch();
		admin = await apiAs(server, DEMO.email, DEMO.password);
		locations = admin.me.locations;
		xssLocation = (await admin.post('/api/admin/locations', { name: XSS })).id;
		xssContact = (await admin.post('/api/contacts', { first_name: XSS, last_name: 'Tester' },
			xssLocation)).id;
		otherContact = (await admin.get('/api/contacts?limit=1', locations[1].id)).data[0];
		await admin.post('/api/admin/users', {
			email: LOCATION_USER.email, name: 'Front Desk', role: 'location_user',
			password: LOCATION_USER.password, location_ids: [locations[0].id],
		});
		/* the page scripts by their file's plain name: dashboard.js, ... */
		scripts = new Map((await admin.get('/api/pages')).data.map((p) =>
			[p.script, p.script.split('/').pop().replace(/\.[0-9a-f]{10}\.js$/, '.js')]));
	});

	after(async () => {
		await browser?.close();
		await server?.stop();
	});

	/* Signed in as `who` on a fresh page; `fetched` is the page scripts
	 * the page asked for, by plain name, in order (not the service
	 * worker's own fetch of the same file, once it serves the page).
	 * options.on: another server. */
	async function signedIn(who, options = {}) {
		const opened = await newPage(browser, options.on || server, options);
		if (options.saveData) {
			await opened.context.addInitScript(() => Object.defineProperty(Navigator.prototype,
				'connection', { configurable: true, get: () => ({ saveData: true, effectiveType: '4g' }) }));
		}
		opened.fetched = [];
		opened.requests = [];
		opened.context.on('request', (r) => {
			if (r.serviceWorker())
				return;
			opened.requests.push(r);
			const name = scripts.get(new URL(r.url()).pathname);
			if (name)
				opened.fetched.push(name);
		});
		await opened.page.goto(options.at || '/');
		await signIn(opened.page, who.email, who.password);
		return opened;
	}

	const h1 = (page, name) => page.getByRole('heading', { level: 1, name, exact: true });
	/* The page `name` is open in sub-account `loc`, as its title says. */
	const shows = (page, name, loc) => until(async () =>
		await page.title() === name + ' · ' + loc.name + ' · HyperLevel', 20000, name + ' of ' + loc.name);

	test('a first visit and every page of a normal session leave the console clean', async () => {
		const { page, context, problems } = await newPage(browser, server);
		await page.goto('/');
		await page.getByLabel('E-mail').waitFor();
		const icon = await page.locator('link[rel="icon"]').getAttribute('href');
		assert.equal((await page.request.get(icon)).status(), 200, 'the icon is served');
		assert.deepEqual(problems, [], 'signed out, nothing failed');
		await signIn(page, DEMO.email, DEMO.password);
		const loc = locations[0].id;
		const first = async (path) => (await admin.get(path, loc)).data[0].id;
		const records = ['/contacts/' + await first('/api/contacts?limit=1'),
			'/conversations/' + await first('/api/conversations?limit=1'),
			'/invoices/' + await first('/api/invoices?limit=1'),
			'/opportunities/' + (await admin.get('/api/opportunities?pipeline=' +
				await first('/api/pipelines') + '&per_stage=1', loc)).data[0].id,
			'/agency/contacts', '/agency/deals', '/agency/tasks'];
		const paths = (await admin.get('/api/pages', loc)).data.map((p) => p.path)
			.filter((p) => !p.includes(':')).concat(records);
		for (const path of paths) {
			await page.goto('/app' + path + '?location=' + loc);
			await page.getByRole('heading', { level: 1 }).first().waitFor();
			await page.waitForLoadState('networkidle');
			assert.deepEqual(problems, [], 'at ' + path);
			/* One name for one thing: what the API calls a location (and
			 * the reference a project) a person reads as a sub-account; the
			 * System page's routes are the API's own paths. */
			const text = (await page.locator('body').innerText()).replace(/\/api\/\S*/g, '');
			assert.doesNotMatch(text, /\b(locations?|projects?)\b/i, 'the words at ' + path);
		}
		await page.getByRole('button', { name: 'Sign out', exact: true }).click();
		await page.getByLabel('E-mail').waitFor();
		await page.reload();
		await page.getByLabel('E-mail').waitFor();
		await page.waitForLoadState('networkidle');
		assert.deepEqual(problems, [], 'signed out again, after a reload');
		await context.close();
	});

	test('the menu is /api/pages in its order; a page is fetched when opened or hinted at, not before', async () => {
		/* saving data: nothing is preloaded while idle */
		const { page, context, fetched, problems } = await signedIn(DEMO, { saveData: true });
		const nav = page.getByRole('navigation', { name: 'Main' });
		await h1(page, 'Dashboard').waitFor();
		const menu = (await admin.get('/api/pages')).data.filter((p) => p.label).map((p) => p.label);
		assert.deepEqual(menu, ['Dashboard', 'Today', 'Contacts', 'Conversations', 'Opportunities', 'Tasks',
			'Invoices', 'Reports', 'Agency', 'System', 'Channels', 'Settings']);
		assert.deepEqual(await nav.getByRole('link').allTextContents(), menu);
		assert.equal(new URL(page.url()).pathname, '/app/dashboard', 'the start is the first menu entry');
		assert.equal(new URL(page.url()).searchParams.get('location'), String(locations[0].id));
		assert.equal(await nav.getByRole('link', { name: 'Dashboard' }).getAttribute('aria-current'), 'page');
		await page.waitForTimeout(2500);
		assert.deepEqual(fetched, ['dashboard.js'], 'only the open page');

		await nav.getByRole('link', { name: 'System' }).hover();
		await until(() => fetched.includes('system.js'), 10000, 'the preload on hover');
		await nav.getByRole('link', { name: 'Contacts' }).focus();
		await until(() => fetched.includes('contacts.js'), 10000, 'the preload on focus');
		assert.deepEqual(fetched, ['dashboard.js', 'system.js', 'contacts.js']);

		/* (that a page left is told so: the System page's test) */
		await nav.getByRole('link', { name: 'System' }).click();
		await h1(page, 'System').waitFor();
		assert.equal(await page.title(), 'System · ' + locations[0].name + ' · HyperLevel');
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('when idle, the first menu entries are preloaded, and only they', async () => {
		const { page, context, fetched, problems } = await signedIn(DEMO);
		await h1(page, 'Dashboard').waitFor();
		await until(() => fetched.includes('today.js'), 15000, 'the idle preload');
		await page.waitForTimeout(500);
		assert.deepEqual(fetched, ['dashboard.js', 'today.js'], 'not Contacts, the third');
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('URLs are real: a record page by its path, reload, back and forward', async () => {
		const { page, context, problems } = await signedIn(DEMO, { at: '/app/contacts' });
		await h1(page, 'Contacts').waitFor();
		/* a #place on the page is the browser's, there and back: the page stays */
		await page.evaluate(() => {
			const a = document.createElement('a');
			a.href = '#end';
			a.textContent = 'To the end';
			document.querySelector('main h1').after(a);
			document.querySelector('main section').dataset.mark = 'kept';
		});
		await page.getByRole('link', { name: 'To the end' }).click();
		assert.equal(new URL(page.url()).hash, '#end');
		await page.goBack();
		assert.equal(new URL(page.url()).hash, '');
		assert.equal(await page.locator('main section[data-mark="kept"]').count(), 1, 'not reopened');
		const first = page.locator('main tbody tr:not(.c-skeleton) a[href*="/app/contacts/"]').first();
		const id = (await first.getAttribute('href')).match(/\/app\/contacts\/(\d+)/)[1];
		const contact = await admin.get('/api/contacts/' + id, locations[0].id);
		const name = [contact.first_name, contact.last_name].filter(Boolean).join(' ') || contact.email;
		await first.click();
		await h1(page, name).waitFor();
		assert.match(new URL(page.url()).pathname, /^\/app\/contacts\/\d+$/);
		const nav = page.getByRole('navigation', { name: 'Main' });
		assert.equal(await nav.getByRole('link', { name: 'Contacts' }).getAttribute('aria-current'), 'page',
			'a record page marks its section');
		await shoot(page, 'record');

		await page.reload();
		await h1(page, name).waitFor();
		await page.goBack();
		await h1(page, 'Contacts').waitFor();
		await page.goForward();
		await h1(page, name).waitFor();

		await page.goto('/app/no/such/page?location=' + locations[0].id);
		await h1(page, 'Page not found').waitFor();
		await page.getByRole('link', { name: 'Go to the start' }).click();
		await h1(page, 'Dashboard').waitFor();
		assert.deepEqual(problems, []);
		await context.close();
	});

	/* The contacts list's answers held back (not stood in for) until the
	 * function returned is called. */
	async function holdContactsList(context) {
		let release;
		const held = new Promise((r) => { release = r; });
		await context.route('**/api/contacts?*', async (route) => {
			await held;
			await route.continue();
		});
		return release;
	}

	test('a skeleton shows until the page has its data', async () => {
		const { page, context, problems } = await signedIn(DEMO);
		await h1(page, 'Dashboard').waitFor();
		const release = await holdContactsList(context);
		await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Contacts' }).click();
		const loading = page.getByRole('main').locator(':scope > [aria-busy="true"]');
		await loading.waitFor();
		assert.equal(await page.getByRole('main').getByRole('status').textContent(), 'Loading…');
		assert.equal(await h1(page, 'Contacts').count(), 0);
		await shoot(page, 'skeleton');
		release();
		await h1(page, 'Contacts').waitFor();
		assert.equal(await loading.count(), 0);
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('opened with its data slow to come, the app shows with a skeleton meanwhile', async () => {
		const { page, context, problems } = await signedIn(DEMO);
		await h1(page, 'Dashboard').waitFor();
		const release = await holdContactsList(context);
		/* no ?location: the document carries no list, the browser asks */
		await page.goto('/app/contacts');
		await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Contacts' }).waitFor();
		const loading = page.getByRole('main').locator(':scope > [aria-busy="true"]');
		await loading.waitFor();
		assert.equal(await h1(page, 'Contacts').count(), 0);
		release();
		await h1(page, 'Contacts').waitFor();
		assert.equal(await loading.count(), 0);
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('a page module that fails to load reloads the app once, then says so', async () => {
		/* a deploy that removed the dashboard's file while the server ran */
		const web = copyWebDir();
		const other = await startServer({ webDir: web });
		try {
			const script = (await (await apiAs(other, DEMO.email, DEMO.password)).get('/api/pages')).data
				.find((p) => p.path === '/dashboard').script;
			for (const suffix of ['', '.br', '.gz'])
				rmSync(join(web, script + suffix));
			const { page, context, problems } = await signedIn(DEMO, { on: other, at: '/app/contacts' });
			await h1(page, 'Contacts').waitFor();
			let loads = 0;
			page.on('load', () => loads++);
			await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Dashboard' }).click();
			await h1(page, 'This page could not be loaded').waitFor();
			assert.equal(loads, 1, 'reloaded once');
			assert.equal(new URL(page.url()).pathname, '/app/dashboard');
			await page.getByRole('button', { name: 'Try again' }).waitFor();
			/* a page that loads clears the flag: the next failure may reload again */
			await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Contacts' }).click();
			await h1(page, 'Contacts').waitFor();
			assert.equal(await page.evaluate(() => sessionStorage.getItem('hl.reloaded-page')), null);
			assert.deepEqual(provoked(problems, /^404 GET \/modules\/reports\/dashboard\.[0-9a-f]+\.js$/), []);
			await context.close();
		} finally {
			await other.stop();
			rmSync(web, { recursive: true, force: true });
		}
	});

	test('with no module enabled, a sub-account user has the core\'s Settings only, and starts there', async () => {
		/* no module enabled: only the core's pages are left: System for
		 * agency admins, Settings for everyone */
		const other = await startServer({ disabled: true });
		try {
			const otherAdmin = await apiAs(other, DEMO.email, DEMO.password);
			const loc = otherAdmin.me.locations[0];
			await otherAdmin.post('/api/admin/users', {
				email: LOCATION_USER.email, name: 'Front Desk', role: 'location_user',
				password: LOCATION_USER.password, location_ids: [loc.id],
			});
			const { page, context, problems } = await signedIn(LOCATION_USER, { on: other });
			const nav = page.getByRole('navigation', { name: 'Main' });
			await h1(page, 'Settings').waitFor();
			assert.deepEqual(await nav.getByRole('link').allTextContents(), ['Settings']);
			assert.equal(new URL(page.url()).pathname, '/app/settings', 'the start is the first menu entry');
			await shoot(page, 'no-modules');
			assert.deepEqual(problems, []);
			await context.close();
		} finally {
			await other.stop();
		}
	});

	test('an agency user switches sub-account; the URL and this tab keep the choice', async () => {
		const { page, context, requests, problems } = await signedIn(DEMO, { at: '/app/contacts' });
		await h1(page, 'Contacts').waitFor();
		const target = locations[2];
		const switcher = page.getByRole('button', { name: 'Sub-account ' + locations[0].name });
		await switcher.click();
		const find = page.getByLabel('Find a sub-account');
		await find.fill(target.name.slice(0, 6).toLowerCase());
		const list = page.getByRole('list', { name: 'Sub-accounts' });
		assert.ok((await list.getByRole('link').allTextContents()).includes(target.name));
		await shoot(page, 'switcher');
		await list.getByRole('link', { name: target.name, exact: true }).click();

		await shows(page, 'Contacts', target);
		await h1(page, 'Contacts').waitFor();
		assert.equal(new URL(page.url()).searchParams.get('location'), String(target.id));
		assert.equal(new URL(page.url()).pathname, '/app/contacts', 'the same section');
		await page.getByRole('button', { name: 'Sub-account ' + target.name }).waitFor();
		const asked = requests.filter((r) => r.url().includes('/api/contacts'));
		assert.equal(await asked[asked.length - 1].headerValue('x-location-id'), String(target.id));

		/* the choice stays with this tab, also without ?location */
		await page.goto('/app/dashboard');
		await h1(page, 'Dashboard').waitFor();
		assert.equal(new URL(page.url()).searchParams.get('location'), String(target.id));
		/* another tab starts from the first */
		const other = await context.newPage();
		await other.goto('/app/dashboard');
		await h1(other, 'Dashboard').waitFor();
		assert.equal(new URL(other.url()).searchParams.get('location'), String(locations[0].id));
		/* back goes to the sub-account before */
		await page.goBack();
		await page.goBack();
		await shows(page, 'Contacts', locations[0]);
		assert.equal(new URL(page.url()).searchParams.get('location'), String(locations[0].id));
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('the switcher works by keyboard', async () => {
		const { page, context, problems } = await signedIn(DEMO);
		await h1(page, 'Dashboard').waitFor();
		const switcher = page.getByRole('button', { name: /^Sub-account / });
		await switcher.focus();
		/* opening asks for the sub-accounts again; that first answer must be
		 * in before the next opening, which would otherwise share it */
		const asked = page.waitForEvent('requestfinished', (r) => new URL(r.url()).pathname === '/api/auth/me');
		await page.keyboard.press('Enter');
		await asked;
		const find = page.getByLabel('Find a sub-account');
		assert.equal(await find.evaluate((el) => el === document.activeElement), true);
		await page.keyboard.press('Escape');
		assert.equal(await switcher.evaluate((el) => el === document.activeElement), true);
		assert.equal(await switcher.getAttribute('aria-expanded'), 'false');
		const ring = await switcher.evaluate((el) => getComputedStyle(el).outlineStyle);
		assert.notEqual(ring, 'none', 'focus is visible');
		/* the switcher asks the server for the sub-accounts again as it
		 * opens; that answer, held back here, arrives while the person is
		 * already in the list and must not take the focus from them */
		let release = null, answered = false;
		const held = new Promise((resolve) => { release = resolve; });
		await context.route('**/api/auth/me', async (route) => {
			await held;
			try {
				await route.continue();
			} finally { /* let go, even when the page no longer wanted it */
				answered = true;
			}
		});
		await page.keyboard.press('Enter');
		await page.keyboard.type(locations[3].name);
		await page.keyboard.press('ArrowDown');
		assert.equal(await page.evaluate(() => document.activeElement.textContent), locations[3].name);
		release();
		await until(() => answered, 10000, 'the sub-accounts asked for again');
		await page.waitForTimeout(200);
		assert.equal(await page.evaluate(() => document.activeElement.textContent), locations[3].name);
		await context.unroute('**/api/auth/me');
		await page.keyboard.press('Enter');
		await shows(page, 'Dashboard', locations[3]);
		await page.getByRole('button', { name: 'Sub-account ' + locations[3].name }).waitFor();
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('a location user has no switcher and cannot open another sub-account', async () => {
		const { page, context, problems } = await signedIn(LOCATION_USER);
		await h1(page, 'Dashboard').waitFor();
		assert.equal(await page.getByRole('button', { name: /Sub-account/ }).count(), 0);
		await page.getByRole('complementary').getByText(locations[0].name, { exact: true }).waitFor();
		assert.equal(new URL(page.url()).searchParams.get('location'), String(locations[0].id));

		const other = locations[1];
		await page.goto('/app/contacts?location=' + other.id);
		await h1(page, 'Sub-account not available').waitFor();
		await page.getByText('You cannot open sub-account ' + other.id).waitFor();
		assert.equal(await page.getByText(other.name).count(), 0);
		assert.equal(await page.getByText(otherContact.first_name + ' ' + otherContact.last_name).count(), 0);
		await shoot(page, 'refused');
		/* the server refuses it too, whatever the page would ask */
		for (const path of ['/api/contacts?limit=1', '/api/contacts/' + otherContact.id]) {
			const r = await context.request.get(path, { headers: { 'X-Location-Id': String(other.id) } });
			assert.equal(r.status(), 404, path);
		}
		await page.getByRole('link', { name: 'Open ' + locations[0].name }).click();
		await shows(page, 'Dashboard', locations[0]);
		await h1(page, 'Dashboard').waitFor();
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('names are text: a sub-account and a contact named like markup', async () => {
		const { page, context, problems } = await signedIn(DEMO, { at: '/app/contacts' });
		await h1(page, 'Contacts').waitFor();
		await page.getByRole('button', { name: /^Sub-account / }).click();
		await page.getByLabel('Find a sub-account').fill('<img');
		const link = page.getByRole('list', { name: 'Sub-accounts' }).getByRole('link', { name: XSS, exact: true });
		assert.equal(await link.textContent(), XSS);
		await link.click();
		await shows(page, 'Contacts', { name: XSS });
		assert.equal(new URL(page.url()).searchParams.get('location'), String(xssLocation));
		await page.getByRole('button', { name: 'Sub-account ' + XSS }).waitFor();
		const contact = page.getByRole('main').getByRole('link', { name: XSS + ' Tester' });
		await contact.click();
		await h1(page, XSS + ' Tester').waitFor();
		assert.equal(new URL(page.url()).pathname, '/app/contacts/' + xssContact);
		assert.equal(await page.title(), XSS + ' Tester · ' + XSS + ' · HyperLevel');
		assert.equal(await page.locator('img').count(), 0, 'no element was made from a name');
		await page.waitForTimeout(300);
		assert.deepEqual(problems, [], 'no dialog, no error, no CSP report');
		await context.close();
	});

	test('the header search finds a contact by the plain letters of an accented name; keys move and open', async () => {
		const loc = locations[0];
		const zoe = (await admin.post('/api/contacts', { first_name: 'Zoë', last_name: 'Ångström-Vidal',
			email: 'zoe.vidal@example.test' }, loc.id)).id;
		/* a deal of a second pipeline: each module answers for all of its own */
		const renewals = await admin.post('/api/pipelines', { name: 'Renewals' }, loc.id);
		const stage = await admin.post('/api/pipelines/' + renewals.id + '/stages', { name: 'Due' }, loc.id);
		await admin.post('/api/opportunities', { name: 'Ångström yearly renewal', stage_id: stage.id }, loc.id);
		const { page, context, problems } = await signedIn(DEMO);
		await page.getByRole('heading', { level: 1 }).first().waitFor();
		await page.keyboard.press('/');
		const box = page.getByRole('combobox', { name: 'Find anything' });
		assert.equal(await box.evaluate((e) => e === document.activeElement), true, '"/" puts the focus in the search');
		const hint = await box.evaluate((e) => document.getElementById(e.getAttribute('aria-describedby')).textContent);
		const searched = (await admin.get('/api/pages', loc.id)).data.filter((p) => p.search);
		assert.ok(searched.length > 1 && searched.every((p) => hint.includes(p.label)) &&
			hint.endsWith(', as you type. Slash or Control K comes here.'), 'the hint names what the modules search: ' + hint);
		await box.fill('angstrom');
		const list = page.getByRole('listbox', { name: 'Search results' });
		const option = list.getByRole('option', { name: /Zoë Ångström-Vidal/ });
		await option.waitFor();
		assert.equal(await box.getAttribute('aria-expanded'), 'true');
		await list.getByRole('group', { name: 'Contacts' }).waitFor();
		await list.getByRole('group', { name: 'Opportunities' })
			.getByRole('option', { name: /Ångström yearly renewal.*Renewals/ }).waitFor();
		await shoot(page, 'header-search');
		await box.press('ArrowDown');
		assert.equal(await box.getAttribute('aria-activedescendant'), await option.getAttribute('id'),
			'the first result is the active one');
		assert.equal(await option.getAttribute('aria-selected'), 'true');
		await box.press('Enter');
		await until(() => new URL(page.url()).pathname === '/app/contacts/' + zoe, 10000, 'the contact opens');
		await page.getByRole('heading', { level: 1, name: 'Zoë Ångström-Vidal' }).waitFor();
		assert.equal(await box.getAttribute('aria-expanded'), 'false', 'the list closed');
		await page.keyboard.press('Control+k');
		await box.fill('zzzz-nobody');
		await page.getByRole('status').filter({ hasText: 'Nothing found for “zzzz-nobody”' }).waitFor();
		await box.press('Escape');
		assert.equal(await box.getAttribute('aria-expanded'), 'false', 'Escape closes the list');
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('a task given to someone rings their bell live; the notification opens the task', async () => {
		const loc = locations[0];
		const { page, context, problems } = await signedIn(LOCATION_USER);
		await page.getByRole('heading', { level: 1 }).first().waitFor();
		const bell = page.getByRole('button', { name: /^Notifications/ });
		await bell.waitFor();
		assert.equal(await bell.getAttribute('aria-label'), 'Notifications', 'nothing unread yet');
		await page.waitForFunction(() => document.querySelector('.live-down') &&
			!document.querySelector('.live-down').textContent);
		/* someone else, in a browser of their own, gives them a task */
		const other = await signedIn(DEMO, { at: '/app/tasks?location=' + loc.id });
		await h1(other.page, 'Tasks').waitFor();
		const desk = (await admin.get('/api/users', loc.id)).data.find((u) => u.name === 'Front Desk');
		await other.page.getByRole('button', { name: 'New task' }).click();
		const form = other.page.getByRole('form', { name: 'New task' });
		await form.getByLabel('Title').fill('Call Zoë back');
		await form.getByLabel('Assignee').selectOption(String(desk.id));
		await form.getByRole('button', { name: 'Add task' }).click();
		await until(async () => await bell.getAttribute('aria-label') === 'Notifications, 1 unread', 10000,
			'the bell counts 1, live');
		assert.equal(await page.locator('.bell-count').innerText(), '1');
		await bell.click();
		const item = page.getByRole('link', { name: /Perf Admin assigned you the task “Call Zoë back”/ });
		await item.waitFor();
		await shoot(page, 'bell');
		await page.getByRole('button', { name: /^Mark read: Perf Admin assigned you the task/ }).click();
		await until(async () => await bell.getAttribute('aria-label') === 'Notifications', 10000, 'marked read');
		await page.getByRole('button', { name: /^Mark read/ }).waitFor({ state: 'detached' });
		await item.click();
		await until(() => /^\/app\/tasks\/\d+$/.test(new URL(page.url()).pathname), 10000, 'the task opens');
		await page.getByRole('form', { name: 'Edit task Call Zoë back' }).waitFor();
		assert.deepEqual(problems, []);
		assert.deepEqual(other.problems, []);
		await other.context.close();
		await context.close();
	});

	test('at 360 px the app opens the phone\'s home; the menu is a button; nothing scrolls sideways', async () => {
		const { page, context, problems } = await signedIn(DEMO, { viewport: PHONE });
		await h1(page, 'Today').waitFor();
		assert.equal(new URL(page.url()).pathname, '/app/today', 'the page offered as the phone\'s home');
		assert.equal(await scrollsSideways(page), false);
		const nav = page.getByRole('navigation', { name: 'Main' });
		assert.equal(await nav.getByRole('link', { name: 'Contacts' }).isVisible(), false);
		const menu = page.getByRole('button', { name: 'Menu' });
		assert.equal(await menu.getAttribute('aria-expanded'), 'false');
		await menu.click();
		await nav.getByRole('link', { name: 'Contacts' }).waitFor({ state: 'visible' });
		assert.equal(await menu.getAttribute('aria-expanded'), 'true');
		await page.getByRole('button', { name: /^Sub-account / }).waitFor({ state: 'visible' });
		await page.screenshot({ path: join(SHOTS, 'menu-open-phone.png') });
		await nav.getByRole('link', { name: 'Contacts' }).click();
		await h1(page, 'Contacts').waitFor();
		assert.equal(await menu.getAttribute('aria-expanded'), 'false', 'the drawer closes');
		await nav.getByRole('link', { name: 'Dashboard' }).waitFor({ state: 'hidden' });
		assert.equal(await scrollsSideways(page), false);
		assert.deepEqual(problems, []);
		await context.close();
	});
});

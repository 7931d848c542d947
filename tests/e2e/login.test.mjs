// SPDX-License-Identifier: MIT
/*
 * Signing in and out, as a person does it, against a real server: what
 * the login page shows and says, at desktop and phone width, and that the
 * session decides what a reload shows. The menu is whatever the server's
 * GET /api/pages gives (nothing is stood in for here).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEMO, PHONE, apiAs, launch, newPage, provoked, scrollsSideways, shoot, signIn, startServer, until }
	from './lib.mjs';

describe('login', () => {
	let server, browser;

	before(async () => {
		/* three failed sign-ins per account (or unknown e-mail) before 429 */
		server = await startServer({ args: ['--login-attempts', '3'] });
		browser = await launch();
	});

	after(async () => {
		await browser?.close();
		await server?.stop();
	});

	test('the login page: a heading, labelled fields, a button, no sideways scroll at 360 px', async () => {
		const { page, problems } = await newPage(browser, server);
		await page.goto('/');
		await page.getByRole('heading', { name: 'Sign in' }).waitFor();
		assert.equal(await page.title(), 'Sign in · HyperLevel');
		await page.getByLabel('E-mail').waitFor();
		await page.getByLabel('Password').waitFor();
		assert.equal(await page.getByRole('button', { name: 'Sign in' }).isEnabled(), true);
		assert.equal(await page.getByLabel('E-mail').evaluate((el) => el === document.activeElement), true,
			'the e-mail field has the focus');
		await shoot(page, 'login');
		await page.setViewportSize(PHONE);
		assert.equal(await scrollsSideways(page), false, 'no horizontal scroll at 360 px');
		assert.ok((await page.getByRole('button', { name: 'Sign in' }).boundingBox()).width <= PHONE.width);
		assert.deepEqual(problems, []);
		await page.context().close();
	});

	test('the login page follows the dark colour scheme', async () => {
		const { page } = await newPage(browser, server, { colorScheme: 'dark' });
		await page.goto('/');
		await page.getByRole('heading', { name: 'Sign in' }).waitFor();
		const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
		const [r, g, b] = bg.match(/\d+/g).map(Number);
		assert.ok(r + g + b < 150, 'a dark background, not ' + bg);
		await shoot(page, 'login-dark');
		await page.context().close();
	});

	test('a wrong password is said in words, and the form stays', async () => {
		const { page, problems } = await newPage(browser, server);
		await page.goto('/app/somewhere');
		await page.getByLabel('E-mail').fill(DEMO.email);
		await page.getByLabel('Password').fill('not-the-password');
		await page.getByRole('button', { name: 'Sign in' }).click();
		const alert = page.getByRole('alert');
		await alert.filter({ hasText: 'Wrong e-mail or password.' }).waitFor();
		await page.getByRole('heading', { name: 'Sign in' }).waitFor();
		assert.equal(await page.getByLabel('Password').inputValue(), 'not-the-password',
			'kept, selected, to be typed over');
		await shoot(page, 'login-error');
		assert.deepEqual(provoked(problems, /^401 POST \/api\/auth\/login$/), []);
		await page.context().close();
	});

	test('too many failed sign-ins say when to try again', async () => {
		const { page, problems } = await newPage(browser, server);
		await page.goto('/');
		await page.getByLabel('E-mail').fill('nobody@example.test');
		const alert = page.getByRole('alert');
		for (let i = 0; i < 3; i++) {
			await page.getByLabel('Password').fill('guess-' + i);
			await page.getByRole('button', { name: 'Sign in' }).click();
			await alert.filter({ hasText: 'Wrong e-mail or password.' }).waitFor();
			await page.getByRole('button', { name: 'Sign in' }).waitFor();
			await alert.evaluate((el) => { el.textContent = ''; });
		}
		await page.getByLabel('Password').fill('guess-3');
		await page.getByRole('button', { name: 'Sign in' }).click();
		await alert.filter({ hasText: 'Too many' }).waitFor();
		assert.match(await alert.textContent(),
			/^Too many failed sign-ins\. Try again in \d+ minutes \(at \d\d?:\d\d[^)]*\)\.$/);
		assert.deepEqual(provoked(problems, /^401 POST \/api\/auth\/login$/, /^429 POST \/api\/auth\/login$/), []);
		await page.context().close();
	});

	test('signing in shows the app with its menu; a reload keeps it; signing out returns to the login page', async () => {
		const { page, problems } = await newPage(browser, server);
		await page.goto('/');
		await signIn(page, DEMO.email, DEMO.password);
		await page.getByRole('banner').getByText('HyperLevel').waitFor();
		const nav = page.getByRole('navigation', { name: 'Main' });
		await nav.waitFor();
		/* the menu is the server's /api/pages, in its order, or says there is none */
		const api = await apiAs(server, DEMO.email, DEMO.password);
		let labels = [];
		try {
			labels = (await api.get('/api/pages', 1)).data.filter((p) => p.label).map((p) => p.label);
		} catch (e) {
			assert.match(e.message, / 404 /);
		}
		if (labels.length) {
			await nav.getByRole('link').first().waitFor();
			assert.deepEqual(await nav.getByRole('link').allTextContents(), labels);
		} else {
			await nav.getByText('No pages are available.').waitFor();
			assert.equal(await nav.getByRole('link').count(), 0, 'no made-up menu');
		}
		assert.match(page.url(), /\/app.*[?&]location=\d+/);
		const heading = await page.getByRole('heading', { level: 1 }).textContent();
		await shoot(page, 'start');

		await page.reload();
		await page.getByRole('heading', { level: 1, name: heading }).waitFor();
		assert.equal(await page.getByRole('heading', { name: 'Sign in' }).isVisible(), false);

		await page.getByRole('button', { name: 'Sign out', exact: true }).click();
		await page.getByRole('heading', { name: 'Sign in' }).waitFor();
		assert.equal(new URL(page.url()).pathname, '/');
		assert.equal(await page.getByRole('button', { name: 'Sign out', exact: true }).count(), 0);
		await page.reload();
		await page.getByRole('heading', { name: 'Sign in' }).waitFor();
		await page.getByLabel('E-mail').waitFor();
		assert.deepEqual(problems, []);
		await page.context().close();
	});

	test('a signed-in reload over a slow link never draws the login form', async () => {
		const { page, context, problems } = await newPage(browser, server);
		await page.goto('/');
		await signIn(page, DEMO.email, DEMO.password);
		await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
		/* before each frame from the document's start: is the form there to see? */
		await page.addInitScript(() => {
			window.formDrawnAt = [];
			const look = () => {
				const form = document.getElementById('login-form');
				if (form && form.getClientRects().length && getComputedStyle(form).visibility === 'visible')
					window.formDrawnAt.push(Math.round(performance.now()));
				if (performance.now() < 10000)
					requestAnimationFrame(look);
			};
			requestAnimationFrame(look);
		});
		/* the reference's link: the document comes in pieces, and the
		 * browser draws what it has before it has read it all */
		const cdp = await context.newCDPSession(page);
		await cdp.send('Network.enable');
		await cdp.send('Network.emulateNetworkConditions',
			{ offline: false, latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 750e3 / 8 });
		await page.reload();
		await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
		await cdp.send('Network.emulateNetworkConditions',
			{ offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
		assert.deepEqual(await page.evaluate(() => window.formDrawnAt), [], 'ms at which the form was drawn');
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('a session that ends elsewhere brings back the login page, saying why', async () => {
		const { page, context, problems } = await newPage(browser, server);
		await page.goto('/');
		await signIn(page, DEMO.email, DEMO.password);
		/* the first page has its data: the session ends after, not while
		 * the page still asks (that 401 would bring the login page first) */
		await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
		await until(async () => await page.locator('[aria-busy="true"]').count() === 0, 10000,
			'the dashboard to have its figures');
		const where = page.url();
		/* the same session, signed out from another tab: the server
		 * closes the page's live stream at once, and the page says so
		 * without waiting for its next request */
		const out = await context.request.post('/api/auth/logout', { headers: { 'Content-Type': 'application/json' }, data: {} });
		assert.equal(out.status(), 204);
		await page.getByRole('alert').filter({ hasText: 'Your session has ended' }).waitFor({ timeout: 5000 });
		assert.equal(page.url(), where, 'the address stays, to come back to after signing in');
		await signIn(page, DEMO.email, DEMO.password);
		assert.equal(new URL(page.url()).pathname, new URL(where).pathname);
		assert.deepEqual(problems, []);
		await context.close();
	});
});

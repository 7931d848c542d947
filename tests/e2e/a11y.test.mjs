// SPDX-License-Identifier: MIT
/*
 * Every page of the app, as the server lists them for an agency admin
 * (/api/pages), with a record opened for each page of one (a contact, a
 * conversation, a deal, an invoice) and each Settings section, checked by
 * axe-core at desktop and phone width: no serious or critical violation.
 * axe runs in the page through the browser's debugging protocol, which
 * the page's strict CSP does not govern. And the skip links: the first
 * keys of a page reach them, and they lead to the page and to the menu.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { DESKTOP, PHONE, setUp, tearDown, until } from './lib.mjs';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SETTINGS = ['account', 'tokens', 'people', 'locations', 'modules', 'audit'];

describe('accessibility', () => {
	let server, browser, admin, open, loc;

	before(async () => {
		({ server, browser, admin, open } = await setUp());
		loc = admin.me.locations[0];
	});

	after(() => tearDown(server, browser));

	/* Every page's address: the menu's, then one record of each kind. */
	async function addresses() {
		const pages = (await admin.get('/api/pages', loc.id)).data.map((p) => p.path);
		const first = async (path) => ((await admin.get(path + (path.includes('?') ? '&' : '?') + 'limit=1', loc.id)).data[0] || {}).id;
		const ids = {
			'/contacts/:id': await first('/api/contacts'),
			'/conversations/:id': await first('/api/conversations'),
			'/opportunities/:id': await first('/api/opportunities'),
			'/invoices/:id': await first('/api/invoices'),
		};
		const out = [];
		for (const path of pages) {
			if (!path.includes(':'))
				out.push(path);
			else if (ids[path])
				out.push(path.replace(':id', ids[path]));
		}
		out.push('/invoices/settings');
		for (const section of SETTINGS)
			out.push('/settings?section=' + section);
		return out;
	}

	/* The serious and critical violations axe finds on the page as drawn. */
	async function violations(page) {
		await page.evaluate(AXE);
		const found = await page.evaluate(async () => (await window.axe.run(document, {
			resultTypes: ['violations'],
		})).violations.map((v) => ({ id: v.id, impact: v.impact,
			where: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) })));
		return found.filter((v) => v.impact === 'serious' || v.impact === 'critical');
	}

	for (const [width, viewport] of [['desktop', DESKTOP], ['phone', PHONE]]) {
		test('no serious or critical violation on any page at ' + width + ' width', async () => {
			const { page, context } = await open('/app/dashboard?location=' + loc.id, { viewport });
			const problems = [];
			for (const path of await addresses()) {
				await page.goto('/app' + path + (path.includes('?') ? '&' : '?') + 'location=' + loc.id);
				await page.getByRole('heading', { level: 1 }).first().waitFor();
				await until(async () => (await page.locator('.skeleton, [aria-busy="true"]').count()) === 0,
					10000, 'the page drawn: ' + path);
				for (const v of await violations(page))
					problems.push(path + ': ' + v.id + ' (' + v.impact + ') at ' + v.where.join(', '));
			}
			assert.deepEqual(problems, []);
			await context.close();
		});
	}

	/* The focus at the top of the document, as the browser has it when a
	 * person comes from the address bar. */
	const fromTheTop = (page) => page.evaluate(() => {
		const root = document.documentElement;
		root.tabIndex = -1;
		root.focus();
		root.removeAttribute('tabindex');
	});

	test('the first keys reach the skip links, which lead to the page and to the menu', async () => {
		for (const viewport of [DESKTOP, PHONE]) {
			const { page, context } = await open('/app/contacts?location=' + loc.id, { viewport });
			await page.getByRole('heading', { level: 1, name: 'Contacts' }).waitFor();
			await fromTheTop(page);
			await page.keyboard.press('Tab');
			const toPage = page.getByRole('link', { name: 'Skip to the page' });
			assert.equal(await toPage.evaluate((a) => a === document.activeElement), true, 'first');
			assert.equal(await toPage.isVisible(), true, 'seen when focused');
			await page.keyboard.press('Enter');
			assert.equal(await page.evaluate(() => document.activeElement.id), 'main');
			await page.keyboard.press('Tab');
			assert.equal(await page.evaluate(() => !!document.activeElement.closest('#main')), true,
				'the next key stays in the page');
			await fromTheTop(page);
			await page.keyboard.press('Tab');
			await page.keyboard.press('Tab');
			const toMenu = page.getByRole('link', { name: 'Skip to the menu' });
			assert.equal(await toMenu.evaluate((a) => a === document.activeElement), true, 'second');
			await page.keyboard.press('Enter');
			const focused = page.getByRole('navigation', { name: 'Main' }).getByRole('link').first();
			await until(() => focused.evaluate((a) => a === document.activeElement), 5000,
				'the menu\'s first entry focused, at ' + viewport.width + ' px');
			assert.equal(await focused.isVisible(), true, 'in view, on a phone in the opened drawer');
			assert.equal(new URL(page.url()).hash, '', 'no #fragment left in the address');
			await context.close();
		}
	});
});

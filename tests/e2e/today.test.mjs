// SPDX-License-Identifier: MIT
/*
 * The Today page (modules/mobile/webui/today.js), the app's home on a
 * phone: opened at /app on a 360 px screen (a wide one opens the first
 * menu entry), its figures the phone API's, the newest conversation a
 * tap away in its own sub-account, the person's deals by stage, and
 * another sub-account's Today from the list. Nothing scrolls sideways.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PHONE, scrollsSideways, setUp, shoot, tearDown, until } from './lib.mjs';

describe('today', () => {
	let server, browser, admin, open, loc;

	before(async () => {
		({ server, browser, admin, open } = await setUp());
		loc = admin.me.locations[0];
	});

	after(() => tearDown(server, browser));

	const h1 = (page, name) => page.getByRole('heading', { level: 1, name, exact: true });
	const value = (page, name) => page.getByRole('article', { name, exact: true }).locator('.figure-value').textContent();

	test('a phone opens Today: the figures, the newest conversation, the deals', async () => {
		const { page, context, problems } = await open('/app?location=' + loc.id, { viewport: PHONE });
		await h1(page, 'Today').waitFor();
		assert.equal(new URL(page.url()).pathname, '/app/today');
		const summary = await admin.get('/api/mobile/summary', loc.id);
		assert.equal(await value(page, 'Unread conversations'), String(summary.unread));
		assert.equal(await value(page, 'Tasks due today'), String(summary.tasks.due_today));
		assert.equal(await value(page, 'Open deals'), String(summary.deals.open));
		assert.equal(await scrollsSideways(page), false, 'nothing scrolls sideways at 360 px');

		const mine = await admin.get('/api/mobile/deals', loc.id);
		const stage = mine.stages.find((s) => s.count);
		const deals = page.getByRole('region', { name: 'My open deals' });
		const several = new Set(mine.stages.filter((s) => s.count).map((s) => s.pipeline_id)).size > 1;
		const heading = (several ? stage.pipeline_name + ': ' : '') + stage.name;
		await deals.getByRole('heading', { name: new RegExp('^' + heading + ' ') }).waitFor();
		await deals.getByRole('link', { name: new RegExp('^' + stage.deals[0].name) }).waitFor();
		await shoot(page, 'today');

		const newest = (await admin.get('/api/mobile/inbox?limit=1')).data[0];
		const latest = page.getByRole('region', { name: 'Latest conversations' }).getByRole('link').first();
		assert.match(await latest.textContent(), new RegExp(newest.contact_name));
		await latest.click();
		await until(async () => new URL(page.url()).pathname === '/app/conversations/' + newest.id, 10000,
			'the conversation open');
		assert.equal(new URL(page.url()).searchParams.get('location'), String(newest.location_id));
		await page.getByRole('heading', { name: newest.contact_name }).first().waitFor();
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('another sub-account\'s Today is a tap away; a wide screen opens the first menu entry', async () => {
		const { page, context, problems } = await open('/app/today?location=' + loc.id, { viewport: PHONE });
		await h1(page, 'Today').waitFor();
		const other = admin.me.locations[1];
		const list = page.getByRole('region', { name: 'Sub-accounts' });
		assert.equal(await list.getByRole('link', { name: new RegExp('^' + loc.name) }).getAttribute('aria-current'), 'true');
		await list.getByRole('link', { name: new RegExp('^' + other.name) }).click();
		await until(async () => await page.title() === 'Today · ' + other.name + ' · HyperLevel', 10000, 'the other Today');
		await page.getByText(other.name + ' · ', { exact: false }).first().waitFor();

		await page.setViewportSize({ width: 1280, height: 800 });
		await page.goto('/app?location=' + loc.id);
		await h1(page, 'Dashboard').waitFor();
		assert.deepEqual(problems, []);
		await context.close();
	});
});

// SPDX-License-Identifier: MIT
/*
 * The reports page (modules/reports/webui/reports.js), as the server
 * serves it: a dashboard's widgets in their order; a widget added with
 * its settings (a refused title said next to its field), moved earlier,
 * removed, each kept after a reload; a dashboard made, renamed and
 * deleted once the person confirms. At phone width nothing scrolls
 * sideways.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PHONE, fitsAt, provoked, setUp, shoot, tearDown, until } from './lib.mjs';

describe('reports', () => {
	let server, browser, admin, loc, open, board;

	before(async () => {
		({ server, browser, admin, open } = await setUp());
		loc = admin.me.locations[0];
		board = (await admin.get('/api/reports/dashboards', loc.id)).data[0];
		assert.ok(board, 'the data set has a dashboard in the first sub-account');
	});

	after(() => tearDown(server, browser));

	const h1 = (page, name) => page.getByRole('heading', { level: 1, name, exact: true });
	const titles = (page) => page.locator('.r-widget h2').allTextContents();
	const stored = async (id) => (await admin.get('/api/reports/dashboards/' + id, loc.id)).widgets;

	test('widgets are added, moved and removed, and stay so after a reload', async () => {
		const { page, context, problems } = await open('/app/dashboard?location=' + loc.id);
		await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Reports' }).click();
		await h1(page, 'Reports').waitFor();
		assert.equal(await page.getByLabel('Dashboard').locator('option:checked').textContent(), board.name);
		const before = (await stored(board.id)).map((w) => w.title);
		await until(async () => (await titles(page)).length === before.length, 10000, 'the widgets');
		assert.deepEqual(await titles(page), before);

		/* a title is needed: the server's word, next to the field */
		await page.getByRole('button', { name: 'Add widget' }).click();
		const form = page.getByRole('form', { name: 'Add a widget' });
		await form.getByLabel('Shows').selectOption({ label: 'Revenue' });
		assert.equal(await form.getByLabel('Title').inputValue(), 'Revenue', 'named after what it shows');
		await form.getByLabel('Title').fill('');
		await form.getByRole('button', { name: 'Add widget' }).click();
		await form.getByText(/required, 1 to 200 characters/i).waitFor();

		await form.getByLabel('Title').fill('Money in');
		await form.getByLabel('Period').selectOption({ label: 'Last 90 days' });
		await form.getByLabel('Grouped').selectOption({ label: 'By week' });
		await form.getByRole('button', { name: 'Add widget' }).click();
		const added = page.getByRole('article', { name: 'Money in' });
		await added.waitFor();
		assert.deepEqual(await titles(page), [...before, 'Money in']);
		await added.getByText('Revenue · Last 90 days, by week').waitFor();
		await added.getByRole('img', { name: 'Money in' }).waitFor();
		const made = (await stored(board.id)).find((w) => w.title === 'Money in');
		assert.deepEqual(made.config, { period: '90d', group: 'week' });

		/* moved before the last one by keyboard, kept after a reload */
		await added.getByRole('button', { name: 'Earlier: Money in' }).press('Enter');
		const moved = [...before.slice(0, -1), 'Money in', before[before.length - 1]];
		await until(async () => JSON.stringify(await titles(page)) === JSON.stringify(moved), 10000, 'the move');
		assert.deepEqual((await stored(board.id)).map((w) => w.title), moved);
		assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'Earlier: Money in',
			'the focus stays on the button');
		await page.reload();
		await h1(page, 'Reports').waitFor();
		await until(async () => JSON.stringify(await titles(page)) === JSON.stringify(moved), 10000, 'the order after a reload');
		await shoot(page, 'reports');

		await page.getByRole('button', { name: 'Remove: Money in' }).click();
		await page.getByText('Removed Money in.').waitFor();
		await until(async () => JSON.stringify(await titles(page)) === JSON.stringify(before), 10000, 'removed');
		assert.deepEqual((await stored(board.id)).map((w) => w.title), before);
		assert.deepEqual(provoked(problems, /^422 POST \/api\/reports\/dashboards\/[0-9]+\/widgets$/), []);
		await context.close();
	});

	test('a dashboard is made, renamed, and deleted once confirmed', async () => {
		const { page, context, problems } = await open('/app/reports?location=' + loc.id);
		await h1(page, 'Reports').waitFor();
		await page.getByRole('button', { name: 'New dashboard' }).click();
		await page.getByLabel('Name of the new dashboard').fill('Sales review');
		await page.getByRole('button', { name: 'Create dashboard' }).click();
		await page.getByRole('heading', { name: 'No widgets yet' }).waitFor();
		assert.equal(await page.getByLabel('Dashboard').locator('option:checked').textContent(), 'Sales review');
		const id = new URL(page.url()).searchParams.get('dashboard');
		assert.ok(id, 'the dashboard is in the URL');

		await page.getByRole('button', { name: 'Rename' }).click();
		await page.getByLabel('New name').fill('Weekly sales');
		await page.getByRole('button', { name: 'Save name' }).click();
		await until(async () => await page.getByLabel('Dashboard').locator('option:checked').textContent() === 'Weekly sales',
			10000, 'the new name');
		await page.reload();
		await h1(page, 'Reports').waitFor();
		assert.equal(await page.getByLabel('Dashboard').locator('option:checked').textContent(), 'Weekly sales');

		await page.getByRole('button', { name: 'Delete', exact: true }).click();
		const asking = page.getByRole('alertdialog', { name: 'Delete the dashboard Weekly sales and its widgets?' });
		await asking.getByRole('button', { name: 'Cancel' }).click();
		assert.equal((await admin.get('/api/reports/dashboards', loc.id)).data.some((d) => String(d.id) === id), true,
			'kept when the person says no');
		await page.getByRole('button', { name: 'Delete', exact: true }).click();
		await asking.getByRole('button', { name: 'Delete dashboard' }).click();
		await page.getByText('Deleted Weekly sales.').waitFor();
		assert.equal(await page.getByLabel('Dashboard').locator('option:checked').textContent(), board.name);
		assert.equal((await admin.get('/api/reports/dashboards', loc.id)).data.some((d) => String(d.id) === id), false);

		await fitsAt(page, PHONE);
		assert.deepEqual(problems, []);
		await context.close();
	});
});

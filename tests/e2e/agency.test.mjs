// SPDX-License-Identifier: MIT
/*
 * The agency's pages (modules/agency/webui/), as the server serves them:
 * the overview's figures are the server's; the sub-accounts' table sorts
 * by a column and is searched, both kept in the URL, and a row opens its
 * sub-account; the contacts of every sub-account, a name opening the
 * contact where it lives; deals by sub-account and stage for a status;
 * tasks by assignee. A sub-account's own user has no agency page. At
 * phone width nothing scrolls sideways.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PHONE, fitsAt, setUp, shoot, signedInOpener, tearDown, until } from './lib.mjs';

const DESK = { email: 'desk@example.test', password: 'desk-pass-123' };

describe('agency', () => {
	let server, browser, admin, open;

	before(async () => {
		({ server, browser, admin, open } = await setUp());
		await admin.post('/api/admin/users', { email: DESK.email, name: 'Desk', role: 'location_user',
			password: DESK.password, location_ids: [admin.me.locations[0].id] });
	});

	after(() => tearDown(server, browser));

	const h1 = (page, name) => page.getByRole('heading', { level: 1, name, exact: true });
	const table = (page) => page.getByRole('table', { name: 'Sub-accounts' });
	const firstColumn = (page) => table(page).locator('tbody th a').allTextContents();
	/* Whether the page's table shows all its columns at this width (at
	 * 1280 px it must; on a phone it scrolls inside itself). */
	const tableFits = (page) => page.locator('.ag-table-wrap').first().evaluate((w) => w.scrollWidth <= w.clientWidth);
	/* The headings whose level skips one (an h3 straight under an h1). */
	const skippedHeadings = (page) => page.evaluate(() => {
		let last = 0;
		const out = [];
		for (const h of document.querySelectorAll('#main h1, #main h2, #main h3, #main h4')) {
			const level = Number(h.tagName[1]);
			if (level > last + 1)
				out.push(h.tagName + ' ' + h.textContent.trim());
			last = level;
		}
		return out;
	});

	test('the overview shows the agency\'s figures; the table sorts, searches and opens a sub-account', async () => {
		const { page, context, problems } = await open('/app/dashboard');
		await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Agency' }).click();
		await h1(page, 'Agency').waitFor();
		const overview = await admin.get('/api/agency/overview');
		const figure = (name) => page.getByRole('article', { name, exact: true }).locator('.figure-value');
		assert.equal(await figure('Sub-accounts').textContent(), String(overview.sub_accounts));
		assert.equal(await figure('Open deals').textContent(), overview.counts.deals.open.toLocaleString('en-US'));
		await page.getByRole('img', { name: /^New contacts/ }).first().waitFor();

		const byName = (await admin.get('/api/agency/projects?limit=100')).data;
		await until(async () => (await firstColumn(page)).length === byName.length, 10000, 'every sub-account');
		assert.deepEqual(await firstColumn(page), byName.map((p) => p.name));
		assert.equal(await table(page).locator('th[data-sort="name"]').getAttribute('aria-sort'), 'ascending');
		assert.equal(await tableFits(page), true, 'every column in view at 1280 px');
		await shoot(page, 'agency');

		/* the most contacts first, then the fewest */
		const byContacts = (await admin.get('/api/agency/projects?limit=100&sort=-contacts')).data.map((p) => p.name);
		await table(page).getByRole('button', { name: 'Contacts' }).click();
		await until(async () => JSON.stringify(await firstColumn(page)) === JSON.stringify(byContacts), 10000, 'sorted by contacts');
		assert.equal(await table(page).locator('th[data-sort="contacts"]').getAttribute('aria-sort'), 'descending');
		assert.equal(new URL(page.url()).searchParams.get('sort'), '-contacts');
		await table(page).getByRole('button', { name: 'Contacts' }).click();
		await until(async () => (await firstColumn(page))[0] === byContacts[byContacts.length - 1], 10000, 'fewest first');

		/* searched by a part of one name; the URL keeps it through a reload */
		const target = byName[byName.length - 1];
		const part = target.name.split(' ')[0];
		await page.getByLabel('Search sub-accounts').fill(part);
		const matching = byName.filter((p) => p.name.toLowerCase().includes(part.toLowerCase())).map((p) => p.name);
		await until(async () => (await firstColumn(page)).length === matching.length, 10000, 'the search');
		await page.reload();
		await h1(page, 'Agency').waitFor();
		assert.equal(await page.getByLabel('Search sub-accounts').inputValue(), part);
		await until(async () => (await firstColumn(page)).sort().join() === matching.sort().join(), 10000, 'the search after a reload');

		/* a row opens its sub-account: the app's first page, there */
		await table(page).getByRole('link', { name: target.name, exact: true }).click();
		await until(async () => await page.title() === 'Dashboard · ' + target.name + ' · HyperLevel', 10000, 'the sub-account open');
		await page.getByRole('button', { name: 'Sub-account ' + target.name }).waitFor();
		assert.equal(new URL(page.url()).searchParams.get('location'), String(target.id));
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('contacts of every sub-account: searched, and opened where they live', async () => {
		const { page, context, problems } = await open('/app/agency/contacts');
		await h1(page, 'Agency: contacts').waitFor();
		const loc = admin.me.locations[2];
		const made = await admin.post('/api/contacts', { first_name: 'Quintessa', last_name: 'Marlowe' }, loc.id);
		await page.getByLabel('Search contacts').fill('Quintessa');
		const link = page.getByRole('link', { name: 'Quintessa Marlowe', exact: true });
		await link.waitFor();
		const row = page.getByRole('row').filter({ has: link });
		assert.equal(await row.getByRole('link', { name: loc.name, exact: true }).count(), 1, 'its sub-account');
		await page.getByLabel('Search contacts').fill('');
		await until(async () => await page.locator('.ag-table tbody tr').count() > 1, 10000, 'every contact again');
		assert.equal(await tableFits(page), true, 'every column in view at 1280 px');
		await shoot(page, 'agency-contacts');
		await link.click();
		await h1(page, 'Quintessa Marlowe').waitFor();
		assert.equal(new URL(page.url()).pathname, '/app/contacts/' + made.id);
		assert.equal(new URL(page.url()).searchParams.get('location'), String(loc.id));
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('deals by sub-account and stage, for the status chosen', async () => {
		const { page, context, problems } = await open('/app/agency/deals');
		await h1(page, 'Agency: deals').waitFor();
		const won = await admin.get('/api/agency/opportunities?status=won&limit=100');
		await page.getByRole('radio', { name: 'Won' }).check();
		await until(() => new URL(page.url()).searchParams.get('status') === 'won', 10000, 'the status in the URL');
		const grid = page.getByRole('table', { name: 'Won deals by sub-account and stage' });
		const first = won.sub_accounts[0];
		const row = grid.getByRole('row').filter({ has: page.getByRole('link', { name: first.name, exact: true }) });
		await until(async () => (await row.locator('td').first().textContent()) === String(first.count), 10000, 'the won deals');
		for (const stage of first.stages.filter((s) => s.count))
			await row.getByText(stage.name, { exact: true }).waitFor();
		assert.equal(await page.getByRole('article', { name: 'Won', exact: true }).locator('.figure-value').textContent(),
			won.totals.won.count.toLocaleString('en-US'));
		assert.deepEqual(await skippedHeadings(page), []);
		await shoot(page, 'agency-deals');
		await fitsAt(page, PHONE);
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('tasks by assignee: choosing one lists only theirs', async () => {
		const { page, context, problems } = await open('/app/agency/tasks');
		await h1(page, 'Agency: tasks').waitFor();
		const answer = await admin.get('/api/agency/tasks');
		const person = answer.assignees.filter((a) => a.id != null).sort((a, b) => b.open - a.open)[0];
		await page.getByRole('button', { name: person.name, exact: true }).click();
		await until(() => new URL(page.url()).searchParams.get('assignee') === String(person.id), 10000, 'the assignee in the URL');
		await page.getByText('Assigned to ' + person.name + '.').waitFor();
		const tasks = page.getByRole('table', { name: 'Open tasks' });
		const who = async () => (await tasks.locator('tbody tr td:last-child').allTextContents());
		await until(async () => { const w = await who(); return w.length > 0 && w.every((n) => n === person.name); },
			10000, 'only their tasks');
		await page.getByRole('radio', { name: 'Overdue' }).check();
		await until(() => new URL(page.url()).searchParams.get('status') === 'overdue', 10000, 'overdue in the URL');
		assert.equal(await tasks.evaluate((t) => t.closest('.ag-table-wrap').scrollWidth <= t.closest('.ag-table-wrap').clientWidth),
			true, 'every column in view at 1280 px');
		await shoot(page, 'agency-tasks');
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('a sub-account\'s own user has no agency page', async () => {
		const opener = signedInOpener(browser, server, DESK);
		const { page, context } = await opener('/app/dashboard');
		await h1(page, 'Dashboard').waitFor();
		assert.equal(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Agency' }).count(), 0);
		await page.goto('/app/agency');
		await h1(page, 'Page not found').waitFor();
		await context.close();
	});
});

// SPDX-License-Identifier: MIT
/*
 * A sub-account's own currency and time zone, whatever the browser's: a
 * sub-account kept in pounds on Kiritimati (UTC+14) shows its amounts in
 * "£" with one rounding rule on the board, the dashboard and a deal, and
 * its Tasks page's "Today" is Kiritimati's day while the browser sits at
 * UTC-12, a day and more behind.
 *
 * This needs a server whose PATCH /api/admin/locations/:id takes a
 * "currency" and whose /api/auth/me says each sub-account's timezone and
 * currency; on one that does not yet, each test says what is missing and
 * is skipped.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setUp, shoot, tearDown } from './lib.mjs';

const ZONE = 'Pacific/Kiritimati';
const BROWSER_ZONE = 'Etc/GMT+12'; /* UTC-12: never the same day as Kiritimati */

/* "YYYY-MM-DD" in `timeZone`, `days` from now. */
function dayIn(timeZone, days = 0) {
	return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })
		.format(new Date(Date.now() + days * 86400000));
}

describe('a sub-account\'s currency and time zone', () => {
	let server, browser, admin, open, place;
	let noMoney = null; /* why the currency cannot be tested yet, or null */
	let noZone = null;  /* why the time zone cannot be tested yet, or null */

	before(async () => {
		({ server, browser, admin, open } = await setUp());
		place = await admin.post('/api/admin/locations', { name: 'Kiritimati Lettings', timezone: ZONE });
		try {
			await admin.patch('/api/admin/locations/' + place.id, { currency: 'GBP' });
		} catch (e) {
			noMoney = 'the server does not take a sub-account\'s currency yet (' + e.message + ')';
		}
		const me = await admin.get('/api/auth/me');
		const l = (me.locations || []).find((x) => x.id === place.id) || {};
		if (!noMoney && l.currency !== 'GBP')
			noMoney = '/api/auth/me does not say the sub-account\'s currency yet';
		if (l.timezone !== ZONE)
			noZone = '/api/auth/me does not say the sub-account\'s time zone yet';
		const pipeline = await admin.post('/api/pipelines', { name: 'Lettings' }, place.id);
		const stage = await admin.post('/api/pipelines/' + pipeline.id + '/stages', { name: 'Viewing' }, place.id);
		for (const [name, value] of [['Harbour flat', 325050], ['Lagoon house', 29223900]])
			await admin.post('/api/opportunities', { name, value_cents: value, stage_id: stage.id }, place.id);
	});

	after(() => tearDown(server, browser));

	const at = (path) => path + (path.includes('?') ? '&' : '?') + 'location=' + place.id;

	test('amounts are in pounds: pence shown when there are some, none when whole', async (t) => {
		if (noMoney)
			return t.skip(noMoney);
		const { page, context, problems } = await open(at('/app/opportunities'), { timezoneId: BROWSER_ZONE });
		const card = (name) => page.locator('.b-card', { hasText: name }).locator('.b-card-value');
		await card('Harbour flat').waitFor();
		assert.equal(await card('Harbour flat').textContent(), '£3,250.50');
		assert.equal(await card('Lagoon house').textContent(), '£292,239');
		assert.equal(await page.locator('.b-sum').textContent(), '2 deals · £295,489.50');
		await shoot(page, 'board-gbp');
		await page.goto(at('/app/dashboard'));
		const figure = page.getByRole('article', { name: 'Open deals' });
		await figure.waitFor();
		assert.equal(await figure.locator('.figure-note').textContent(), 'worth £295,489.50',
			'the same open deals read the same on the dashboard');
		await page.goto(at('/app/opportunities/new'));
		await page.getByLabel('Name').fill('Reef cottage');
		await page.getByLabel('Value').fill('1,250.5');
		await page.getByRole('button', { name: 'Create deal' }).click();
		await page.getByRole('heading', { level: 1, name: 'Reef cottage' }).waitFor();
		assert.equal(await page.locator('.d-facts dt:text-is("Value") + dd').textContent(), '£1,250.50');
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('Today on the Tasks page is the sub-account\'s day, not the browser\'s', async (t) => {
		if (noZone)
			return t.skip(noZone);
		const today = dayIn(ZONE);
		assert.notEqual(today, dayIn(BROWSER_ZONE), 'the two days differ');
		/* a time of day in Kiritimati, UTC+14 */
		const there = (day, time) => new Date(Date.parse(day + 'T' + time + ':00+14:00')).toISOString();
		const ours = await admin.post('/api/tasks', { title: 'Inspect the harbour flat',
			due_at: there(today, '23:59') }, place.id);
		const theirs = await admin.post('/api/tasks', { title: 'Due on the browser\'s day',
			due_at: there(dayIn(BROWSER_ZONE), '12:00') }, place.id);
		const { page, context, problems } = await open(at('/app/tasks?due=today'), { timezoneId: BROWSER_ZONE });
		const box = (title) => page.getByRole('checkbox', { name: 'Done: ' + title, exact: true });
		await box(ours.title).waitFor();
		assert.equal(await box(theirs.title).count(), 0, 'a task of another day in Kiritimati');
		const due = await page.locator('.t-row', { has: box(ours.title) }).locator('.t-due').textContent();
		assert.equal(due, 'Due today 11:59 PM', 'its time on Kiritimati\'s clock');
		await page.getByRole('radio', { name: 'All' }).check();
		await box(theirs.title).waitFor();
		await page.getByRole('button', { name: 'New task' }).click();
		const form = page.getByRole('form', { name: 'New task' });
		await form.getByLabel('Title').fill('Call the landlord');
		await form.getByLabel('Due').fill(today + 'T09:30');
		await form.getByRole('button', { name: 'Add task' }).click();
		await page.getByRole('button', { name: 'Call the landlord', exact: true }).waitFor();
		const all = await admin.get('/api/tasks?limit=1000', place.id);
		assert.equal(all.data.find((x) => x.title === 'Call the landlord').due_at,
			new Date(Date.parse(today + 'T09:30:00+14:00')).toISOString(), 'typed on Kiritimati\'s clock');
		assert.deepEqual(problems, []);
		await context.close();
	});
});

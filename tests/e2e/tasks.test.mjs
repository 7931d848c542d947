// SPDX-License-Identifier: MIT
/*
 * The tasks page (modules/tasks/webui/), as the server serves it: a task
 * done with one click and still done after a reload, then open again; a
 * refused change put back with a message; a new task, edited (the
 * server's error by its field) and deleted; the filters kept in the URL;
 * a due time typed on the sub-account's clock; at phone width nothing
 * scrolls sideways. (Today in the sub-account's zone: locale.test.mjs.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PHONE, provoked, scrollsSideways, setUp, shoot, tearDown, until } from './lib.mjs';

describe('tasks', () => {
	let server, browser, admin, loc, open;
	const DAY = 86400000;

	before(async () => {
		({ server, browser, admin, open } = await setUp());
		loc = admin.me.locations[0];
		const me = admin.me.user.id;
		await admin.post('/api/tasks', { title: 'Send the March report', assignee_id: me,
			due_at: new Date(Date.now() - 2 * DAY).toISOString() }, loc.id);
		await admin.post('/api/tasks', { title: 'Plan the spring campaign', assignee_id: me,
			due_at: new Date(Date.now() + 3 * DAY).toISOString() }, loc.id);
	});

	after(() => tearDown(server, browser));

	const opened = (at = '/app/tasks?location=' + loc.id, options = {}) => open(at, options);

	const h1 = (page, name) => page.getByRole('heading', { level: 1, name, exact: true });
	const box = (page, title) => page.getByRole('checkbox', { name: 'Done: ' + title, exact: true });
	const statusOf = async (title) => {
		const all = await admin.get('/api/tasks?limit=1000', loc.id);
		return all.data.find((t) => t.title === title).status;
	};

	test('a task is done with one click, still done after a reload, and open again', async () => {
		const { page, context, problems } = await opened();
		await h1(page, 'Tasks').waitFor();
		await page.getByRole('radio', { name: 'Overdue' }).check();
		await until(() => new URL(page.url()).searchParams.get('due') === 'overdue', 10000, 'the filter in the URL');
		await until(async () => await page.locator('.t-list[aria-busy]').count() === 0, 10000, 'the overdue list');
		const task = box(page, 'Send the March report');
		await task.waitFor();
		assert.match(await page.locator('.t-row', { has: task }).locator('.t-due').textContent(), /^Overdue: /);
		await shoot(page, 'tasks');
		/* Clicks, not check() and uncheck(): a task done (or open again)
		 * leaves the list shown as the live update comes, maybe before
		 * check() looks at the box. The toast says it was done. */
		await task.click();
		await page.getByText('Done: Send the March report').last().waitFor();
		/* "Done: ..." is the box's own label too: the server says it is done. */
		await until(async () => await statusOf('Send the March report') === 'completed', 10000, 'done');
		await page.goto('/app/tasks?location=' + loc.id + '&status=completed');
		await h1(page, 'Tasks').waitFor();
		assert.equal(await page.getByLabel('Show').inputValue(), 'completed');
		assert.equal(await box(page, 'Send the March report').isChecked(), true, 'still done');
		await box(page, 'Send the March report').click(); /* open again, it leaves this list too */
		await page.getByText('Open again: Send the March report').waitFor();
		await until(async () => await statusOf('Send the March report') === 'open', 10000, 'open again');
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('the tasks about one contact, picked by typing, kept in the URL', async () => {
		const who = await admin.post('/api/contacts', { first_name: 'Philippa', last_name: 'Quarles' }, loc.id);
		await admin.post('/api/tasks', { title: 'Call Philippa about the lease', contact_id: who.id,
			due_at: new Date(Date.now() + DAY).toISOString() }, loc.id);
		const { page, context, problems } = await opened();
		await h1(page, 'Tasks').waitFor();
		await box(page, 'Plan the spring campaign').waitFor();
		const field = page.getByLabel('Contact');
		await field.fill('Philip');
		const option = page.locator('#' + await field.getAttribute('list') + ' option');
		await until(async () => (await option.count()) === 1, 10000, 'the contact offered');
		await field.fill(await option.getAttribute('value'));
		await until(() => new URL(page.url()).searchParams.get('contact') === String(who.id), 10000, 'the contact in the URL');
		await until(async () => (await page.locator('.t-row').count()) === 1, 10000, 'only their task');
		await box(page, 'Call Philippa about the lease').waitFor();
		await page.reload();
		await h1(page, 'Tasks').waitFor();
		assert.equal(await page.getByLabel('Contact').inputValue(), 'Philippa Quarles');
		await page.getByLabel('Contact').fill('');
		await box(page, 'Plan the spring campaign').waitFor();
		assert.equal(new URL(page.url()).searchParams.get('contact'), null);
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('a change the server refuses is put back, with a message', async () => {
		const { page, context } = await opened();
		await h1(page, 'Tasks').waitFor();
		await page.route('**/api/tasks/*/complete', (r) => r.fulfill({ status: 409, contentType: 'application/json',
			body: JSON.stringify({ error: { code: 'conflict', message: 'The task is locked.' } }) }));
		const task = box(page, 'Plan the spring campaign');
		await task.click(); /* not check(): the box is put back at once */
		await page.getByRole('alert').filter({ hasText: 'could not be changed: The task is locked.' }).waitFor();
		assert.equal(await task.isChecked(), false, 'put back');
		assert.equal(await statusOf('Plan the spring campaign'), 'open');
		await context.close();
	});

	test('a new task, edited with the server\'s error by its field, then deleted', async () => {
		const { page, context, problems } = await opened();
		await h1(page, 'Tasks').waitFor();
		await page.getByRole('button', { name: 'New task' }).click();
		const form = page.getByRole('form', { name: 'New task' });
		await form.getByLabel('Title').fill('Call the printer');
		await form.getByLabel('Due').fill('2031-05-04T09:30');
		await form.getByLabel('Notes').fill('About the <b>flyers</b>');
		await form.getByRole('button', { name: 'Add task' }).click();
		const title = page.getByRole('button', { name: 'Call the printer', exact: true });
		await title.waitFor();
		const all = await admin.get('/api/tasks?limit=1000', loc.id);
		const made = all.data.find((t) => t.title === 'Call the printer');
		assert.equal(made.body, 'About the <b>flyers</b>');
		const clock = new Intl.DateTimeFormat('en-CA', { timeZone: loc.timezone, year: 'numeric', month: '2-digit',
			day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(made.due_at));
		assert.equal(clock, '2031-05-04, 09:30', 'the time as typed, on the sub-account\'s clock (' + loc.timezone + ')');
		assert.equal(made.assignee_id, admin.me.user.id, 'yours unless said otherwise');

		await title.click();
		const edit = page.getByRole('form', { name: 'Edit task Call the printer' });
		const field = edit.getByLabel('Title');
		await field.fill('   ');
		await edit.getByRole('button', { name: 'Save changes' }).click();
		await until(async () => await field.getAttribute('aria-invalid') === 'true', 10000, 'the title\'s error');
		assert.match(await page.locator('#' + await field.getAttribute('aria-describedby')).textContent(), /^Required/);
		await field.fill('Call the printer again');
		await edit.getByRole('button', { name: 'Save changes' }).click();
		/* Saved, the row is drawn anew: open it once that is done. */
		await page.getByText('Changes saved.').waitFor();
		await page.getByRole('button', { name: 'Call the printer again', exact: true }).click();
		await page.getByRole('button', { name: 'Delete task' }).click();
		await page.getByText('Task “Call the printer again” deleted.').waitFor();
		const left = await admin.get('/api/tasks?limit=1000', loc.id);
		assert.ok(!left.data.some((t) => t.title.startsWith('Call the printer')));
		assert.deepEqual(provoked(problems, /^422 PATCH \/api\/tasks\/[0-9]+$/), []);
		await context.close();
	});

	test('a change by someone else, on its way while a task is opened, leaves the form open', async () => {
		const { page, context, problems } = await opened();
		await h1(page, 'Tasks').waitFor();
		const mine = await admin.post('/api/tasks', { title: 'Open me while others work' }, loc.id);
		const title = page.getByRole('button', { name: mine.title, exact: true });
		await title.waitFor();
		/* The list the live change asks for is held back until the task
		 * is open, as a slow answer would be. */
		let asked = false;
		let release;
		const held = new Promise((resolve) => { release = resolve; });
		await page.route(/\/api\/tasks(\?.*)?$/, async (route) => {
			asked = true;
			await held;
			await route.continue();
		});
		const theirs = await admin.post('/api/tasks', { title: 'Made by someone else' }, loc.id);
		await until(() => asked, 10000, 'the list asked again after the change');
		await title.click();
		const edit = page.getByRole('form', { name: 'Edit task ' + mine.title });
		await edit.getByLabel('Title').waitFor();
		release();
		await page.waitForResponse(/\/api\/tasks(\?.*)?$/);
		await page.waitForTimeout(300); /* what it would draw, it would have drawn */
		assert.equal(await edit.getByLabel('Title').isVisible(), true, 'the form is still open');
		await title.click(); /* closed: the list catches up */
		await page.getByRole('button', { name: theirs.title, exact: true }).waitFor({ timeout: 10000 });
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('at phone width nothing scrolls sideways', async () => {
		const { page, context, problems } = await opened(undefined, { viewport: PHONE });
		await h1(page, 'Tasks').waitFor();
		await box(page, 'Plan the spring campaign').waitFor();
		assert.equal(await scrollsSideways(page), false);
		assert.deepEqual(problems, []);
		await context.close();
	});
});

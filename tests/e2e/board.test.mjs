// SPDX-License-Identifier: MIT
/*
 * The opportunities pages (modules/opportunities/webui/), as the server
 * serves them: a pipeline's board with its columns' counts and values; a
 * deal moved by drag and by keyboard, still moved after a reload; a move
 * the server refuses put back with a message; filters kept in the URL; a
 * deal's page (lost with a reason, reopened, edited, a field's error from
 * the server) and a new deal with its contact; a column longer than the
 * server's page read as it is scrolled, and a deal dropped below what is
 * loaded of a column put just after the card above it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PHONE, provoked, scrollsSideways, setUp, shoot, tearDown, until } from './lib.mjs';

describe('opportunities', () => {
	let server, browser, admin, loc, stages, open, contact;
	const made = {};

	before(async () => {
		({ server, browser, admin, open } = await setUp());
		loc = admin.me.locations[0];
		const pipeline = (await admin.get('/api/pipelines', loc.id)).data[0];
		stages = pipeline.stages;
		contact = await admin.post('/api/contacts', { first_name: 'Quillon', last_name: 'Bexley' }, loc.id);
		for (const [name, stage] of [['Alpha deal', 0], ['Beta deal', 0], ['Gamma deal', 0], ['Delta deal', 1]]) {
			made[name] = await admin.post('/api/opportunities', {
				name, stage_id: stages[stage].id, value_cents: 100000, contact_id: contact.id,
				owner_id: admin.me.user.id,
			}, loc.id);
		}
	});

	after(() => tearDown(server, browser));

	const opened = (at = '/app/opportunities?location=' + loc.id, options = {}) => open(at, options);

	const h1 = (page, name) => page.getByRole('heading', { level: 1, name, exact: true });
	const column = (page, i) => page.getByRole('region', { name: stages[i].name, exact: true });
	const names = (col) => col.locator('.b-card-name').allTextContents();
	const card = (page, name) => page.locator('.b-card', { has: page.getByRole('link', { name, exact: true }) });
	const stageOf = async (name) => (await admin.get('/api/opportunities/' + made[name].id, loc.id)).stage_id;

	/* Drags the card named `name` by mouse to the top of column `to`. */
	async function drag(page, name, to) {
		const from = await card(page, name).boundingBox();
		const target = await column(page, to).locator('.b-cards').boundingBox();
		await page.mouse.move(from.x + 30, from.y + 20);
		await page.mouse.down();
		await page.mouse.move(from.x + 40, from.y + 30, { steps: 2 });
		await page.mouse.move(target.x + target.width / 2, target.y + 12, { steps: 12 });
		await page.mouse.up();
	}

	test('the board: its columns and figures; a deal dragged to another stage stays there', async () => {
		const { page, context, problems } = await opened();
		await h1(page, 'Opportunities').waitFor();
		const board = await admin.get('/api/opportunities', loc.id);
		for (const [i, stage] of stages.entries()) {
			const col = column(page, i);
			const want = board.stages.find((s) => s.id === stage.id);
			assert.match(await col.locator('.b-col-sum').textContent(),
				new RegExp('^' + want.count + ' deals? · '), stage.name);
			assert.equal((await names(col)).length, Math.min(want.count, 25), 'the first page');
		}
		const all = board.stages.reduce((n, s) => n + s.count, 0);
		const sum = await page.getByRole('status').filter({ hasText: /deals/ }).textContent();
		assert.match(sum, new RegExp('^' + all + ' deals · \\$'));
		/* the forecast: each stage's value by its win probability */
		const weighted = board.stages.reduce((n, s) => n + s.value_cents * s.probability / 100, 0);
		const shown = /· \$([\d,]+(?:\.\d\d)?) weighted$/.exec(sum);
		assert.ok(shown, 'a weighted forecast in "' + sum + '"');
		assert.equal(Math.round(Number(shown[1].replace(/,/g, '')) * 100), Math.round(weighted));
		/* four columns whole at 1280 px, the fifth's edge showing */
		assert.ok(stages.length > 4, 'a pipeline longer than the screen');
		const edge = (await page.getByRole('region', { name: 'Board' }).boundingBox());
		for (const i of [0, 1, 2, 3]) {
			const box = await column(page, i).boundingBox();
			assert.ok(box.x + box.width <= edge.x + edge.width, stages[i].name + ' whole');
		}
		assert.ok((await column(page, 4).boundingBox()).x < edge.x + edge.width, 'the next column shows');
		/* the owner's initials, named for a screen reader, once the names are in */
		await card(page, 'Gamma deal').getByText('Owner: ' + admin.me.user.name + ' (you)').waitFor({ state: 'attached' });
		assert.equal(await card(page, 'Gamma deal').locator('.b-card-owner [aria-hidden]').textContent(), 'PA');
		await shoot(page, 'board');

		const sums = async (i) => column(page, i).locator('.b-col-sum').textContent();
		const before0 = await sums(0);
		const patched = page.waitForResponse((r) => r.request().method() === 'PATCH');
		await drag(page, 'Alpha deal', 2);
		assert.equal((await patched).status(), 200);
		assert.equal((await names(column(page, 2)))[0], 'Alpha deal', 'first of the column it was dropped on');
		assert.ok(!(await names(column(page, 0))).includes('Alpha deal'));
		assert.notEqual(await sums(0), before0, 'the column it left counts one less');
		assert.equal(await stageOf('Alpha deal'), stages[2].id);
		await page.reload();
		await h1(page, 'Opportunities').waitFor();
		assert.equal((await names(column(page, 2)))[0], 'Alpha deal', 'still there after a reload');
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('by keyboard: Space picks a deal up, arrows carry it, Space drops it, Escape puts it back', async () => {
		const { page, context, problems } = await opened();
		await h1(page, 'Opportunities').waitFor();
		/* one tab stop: from the search field into the board */
		await page.getByLabel('Search', { exact: true }).focus();
		await page.keyboard.press('Tab');
		assert.equal(await page.evaluate(() => document.activeElement.classList.contains('b-card')), true);

		const beta = card(page, 'Beta deal');
		const order = await names(column(page, 0));
		for (const keys of [['ArrowRight'], ['ArrowUp'], []]) {
			await beta.focus();
			await page.keyboard.press('Space');
			for (const key of keys)
				await page.keyboard.press(key);
			await page.keyboard.press('Escape');
			assert.deepEqual(await names(column(page, 0)), order, 'put back where it was, after ' + keys);
		}
		assert.equal(await stageOf('Beta deal'), stages[0].id);

		await beta.focus();
		await page.keyboard.press('Space');
		await page.keyboard.press('ArrowRight');
		await page.keyboard.press('ArrowUp');
		const patched = page.waitForResponse((r) => r.request().method() === 'PATCH');
		await page.keyboard.press('Space');
		assert.equal((await patched).status(), 200);
		assert.equal(await page.evaluate(() => document.activeElement.textContent.includes('Beta deal')), true,
			'the focus stays on the deal');
		assert.equal(await stageOf('Beta deal'), stages[1].id);
		await page.reload();
		await h1(page, 'Opportunities').waitFor();
		assert.ok((await names(column(page, 1))).includes('Beta deal'), 'still moved after a reload');
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('a move the server refuses is put back, with a message', async () => {
		const { page, context } = await opened();
		await h1(page, 'Opportunities').waitFor();
		await page.route('**/api/opportunities/*', (r) => (r.request().method() === 'PATCH'
			? r.fulfill({ status: 409, contentType: 'application/json',
				body: JSON.stringify({ error: { code: 'conflict', message: 'The stage is locked.' } }) })
			: r.continue()));
		const first = await names(column(page, 0));
		const sum = await column(page, 0).locator('.b-col-sum').textContent();
		await drag(page, 'Gamma deal', 3);
		await page.getByRole('alert').filter({ hasText: 'could not be moved: The stage is locked.' }).waitFor();
		assert.deepEqual(await names(column(page, 0)), first, 'back where it was');
		assert.ok(!(await names(column(page, 3))).includes('Gamma deal'));
		assert.equal(await column(page, 0).locator('.b-col-sum').textContent(), sum);
		assert.equal(await stageOf('Gamma deal'), stages[0].id);
		await context.close();
	});

	test('filters stay in the URL: a search and an owner', async () => {
		const { page, context, problems } = await opened();
		await h1(page, 'Opportunities').waitFor();
		await page.getByLabel('Search', { exact: true }).fill('Delta');
		await until(async () => (await page.locator('.b-card').count()) === 1, 10000, 'one deal');
		assert.equal(new URL(page.url()).searchParams.get('q'), 'Delta');
		await page.getByLabel('Owner').selectOption({ label: 'Me' });
		await until(() => new URL(page.url()).searchParams.get('owner') === 'me', 10000, 'the owner in the URL');
		await page.reload();
		await h1(page, 'Opportunities').waitFor();
		assert.equal(await page.getByLabel('Search', { exact: true }).inputValue(), 'Delta');
		assert.equal(await page.getByLabel('Owner').inputValue(), 'me');
		assert.deepEqual(await page.locator('.b-card-name').allTextContents(), ['Delta deal']);
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('a deal\'s page: lost with a reason, reopened, edited; an error by its field', async () => {
		const { page, context, problems } = await opened();
		await h1(page, 'Opportunities').waitFor();
		await card(page, 'Delta deal').getByRole('link').click();
		await h1(page, 'Delta deal').waitFor();
		await page.getByRole('button', { name: 'Mark lost' }).click();
		await page.getByLabel('Why?').fill('Went with a cheaper agency');
		await page.getByRole('button', { name: 'Mark lost' }).last().click();
		await page.getByText('This deal is lost.').waitFor();
		await page.reload();
		await h1(page, 'Delta deal').waitFor();
		assert.ok(await page.getByText('Went with a cheaper agency').isVisible(), 'the reason stays');
		await shoot(page, 'deal');
		await page.getByRole('button', { name: 'Reopen' }).click();
		await page.getByRole('button', { name: 'Mark won' }).waitFor();

		await page.getByRole('button', { name: 'Edit' }).click();
		const value = page.getByLabel('Value');
		await value.fill('99999999999999');
		await page.getByRole('button', { name: 'Save changes' }).click();
		await until(async () => await value.getAttribute('aria-invalid') === 'true', 10000, 'the value\'s error');
		assert.equal(await page.locator('#' + await value.getAttribute('aria-describedby')).textContent(),
			'At most $10,000,000,000,000');
		/* a name of spaces only passes the browser; the server says why not */
		const name = page.getByLabel('Name');
		await name.fill('   ');
		await value.fill('2,500');
		const refused = page.waitForResponse((r) => r.request().method() === 'PATCH');
		await page.getByRole('button', { name: 'Save changes' }).click();
		assert.equal((await refused).status(), 422);
		await until(async () => await name.getAttribute('aria-invalid') === 'true', 10000, 'the name\'s error');
		assert.match(await page.locator('#' + await name.getAttribute('aria-describedby')).textContent(),
			/^Required/);
		assert.equal(await value.getAttribute('aria-invalid'), null, 'the value is fine now');
		await name.fill('Delta deal');
		await value.fill('2,500');
		await page.getByRole('button', { name: 'Save changes' }).click();
		await page.getByText('$2,500').waitFor();
		assert.equal((await admin.get('/api/opportunities/' + made['Delta deal'].id, loc.id)).value_cents, 250000);
		assert.deepEqual(provoked(problems, /^422 PATCH \/api\/opportunities\/[0-9]+$/), []);
		await context.close();
	});

	test('a new deal with its contact, picked by typing', async () => {
		const { page, context, problems } = await opened();
		await h1(page, 'Opportunities').waitFor();
		await page.getByRole('link', { name: 'New deal' }).click();
		await h1(page, 'New deal').waitFor();
		await page.getByRole('button', { name: 'Create deal' }).click();
		assert.equal(await page.getByLabel('Name').getAttribute('aria-invalid'), 'true', 'a name is needed');
		await page.getByLabel('Name').fill('Omega retainer');
		await page.getByLabel('Value').fill('1,200');
		await page.getByLabel('Stage').selectOption({ label: stages[1].name });
		const who = page.getByLabel('Contact');
		await who.fill('Quill');
		const option = page.locator('datalist option');
		await until(async () => (await option.count()) === 1, 10000, 'the contact offered');
		await shoot(page, 'deal-new');
		await who.fill(await option.getAttribute('value'));
		await page.getByRole('button', { name: 'Create deal' }).click();
		await h1(page, 'Omega retainer').waitFor();
		assert.ok(await page.getByRole('link', { name: 'Quillon Bexley' }).isVisible());
		assert.ok(await page.getByText('$1,200').isVisible());
		await page.getByRole('link', { name: 'Opportunities' }).first().click();
		await h1(page, 'Opportunities').waitFor();
		assert.ok((await names(column(page, 1))).includes('Omega retainer'));
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('pipelines and stages: added, renamed, reordered; a stage holding deals stays', async () => {
		const { page, context, problems } = await opened();
		await h1(page, 'Opportunities').waitFor();
		await page.getByRole('link', { name: 'Pipelines' }).click();
		await h1(page, 'Pipelines').waitFor();
		await page.getByLabel('New pipeline').fill('Renewals');
		await page.getByRole('button', { name: 'Add pipeline' }).click();
		const renewals = page.getByRole('region', { name: 'Renewals', exact: true });
		await renewals.waitFor();
		const stageNames = () => renewals.locator('.p-stage-name').evaluateAll((l) => l.map((i) => i.value));
		const box = renewals.getByLabel('New stage');
		for (const name of ['Asked', 'Agreed']) {
			await box.fill(name);
			if (name === 'Asked')
				await renewals.getByRole('button', { name: 'Add stage' }).click();
			else
				await box.press('Enter');
			await until(async () => (await stageNames()).includes(name), 10000, 'the stage ' + name);
			assert.equal(await box.inputValue(), '', 'the box is cleared once ' + name + ' is added');
		}
		/* Enter again on the emptied box adds nothing (it added a second
		 * stage of the same name) */
		await box.press('Enter');
		await renewals.getByText(/a name is needed/i).waitFor();
		assert.deepEqual((await stageNames()).slice(-2), ['Asked', 'Agreed']);
		/* moved down and up again and again: the notices do not pile up
		 * over the page (five of them covered the buttons) */
		for (const way of ['up', 'down', 'up', 'down', 'up']) {
			await renewals.getByRole('button', { name: 'Move Agreed ' + way }).click();
			const want = way === 'up' ? 'Agreed,Asked' : 'Asked,Agreed';
			await until(async () => (await stageNames()).slice(-2).join() === want, 10000, 'the order ' + want);
		}
		const notices = await page.locator('.toast p').allTextContents();
		assert.ok(notices.length <= 2, 'at most two notices: ' + notices.join(' | '));
		assert.equal(new Set(notices).size, notices.length, 'the same words once: ' + notices.join(' | '));
		const asked = renewals.locator('.p-stage-name').last();
		await asked.fill('Asked twice');
		await asked.press('Enter');
		await page.getByText('Stage renamed.').waitFor();
		await page.reload();
		await h1(page, 'Pipelines').waitFor();
		assert.deepEqual((await stageNames()).slice(-2), ['Agreed', 'Asked twice'], 'kept after a reload');
		await shoot(page, 'pipelines');

		/* the first pipeline's first stage holds deals: asked first, then
		 * refused, in words */
		const first = page.locator('.p-card').first();
		const stage = await first.locator('.p-stage-name').first().inputValue();
		await first.getByRole('button', { name: 'Delete stage ' + stage }).click();
		const asking = page.getByRole('alertdialog', { name: 'Delete the stage ' + stage + '?' });
		await asking.getByRole('button', { name: 'Delete stage', exact: true }).click();
		await page.getByRole('alert').filter({ hasText: /holds \d+ deals?/ }).waitFor();
		assert.equal(await first.locator('.p-stage-name').first().inputValue(), stage);

		await renewals.getByRole('link', { name: 'Open board' }).click();
		await h1(page, 'Opportunities').waitFor();
		assert.equal(await page.getByLabel('Pipeline').locator('option:checked').textContent(), 'Renewals');
		assert.deepEqual((await page.locator('.b-col h2').allTextContents()).slice(-2), ['Agreed', 'Asked twice']);
		assert.deepEqual(provoked(problems, /^409 DELETE \/api\/stages\/[0-9]+$/), []);
		await context.close();
	});

	test('a new sub-account\'s board says it has no pipeline, and leads to where one is made', async () => {
		const place = await admin.post('/api/admin/locations', { name: 'Harbour Dental' });
		const { page, context, problems } = await opened('/app/opportunities?location=' + place.id);
		await h1(page, 'Opportunities').waitFor();
		const board = page.getByRole('region', { name: 'Board' });
		await board.getByText('No pipeline yet.').waitFor();
		assert.equal(await board.getByText('no stages').count(), 0, 'not "This pipeline has no stages yet"');
		await shoot(page, 'board-no-pipeline');
		await board.getByRole('link', { name: 'Add the first one' }).click();
		await h1(page, 'Pipelines').waitFor();
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('at phone width the board scrolls inside itself, the page never sideways', async () => {
		const { page, context, problems } = await opened(undefined, { viewport: PHONE });
		await h1(page, 'Opportunities').waitFor();
		assert.equal(await scrollsSideways(page), false);
		const board = page.getByRole('region', { name: 'Board' });
		assert.ok(await board.evaluate((b) => b.scrollWidth > b.clientWidth), 'the columns scroll');
		assert.deepEqual(problems, []);
		await context.close();
	});

	/* The names of column `stage` as the server orders them, page by page. */
	async function columnNames(stage, perPage) {
		const all = [];
		let cursor = null;
		do {
			const page = await admin.get('/api/opportunities?stage=' + stage + '&per_stage=' + perPage +
				(cursor ? '&cursor=' + cursor : ''), loc.id);
			all.push(...page.data.map((d) => d.name));
			cursor = page.next_cursor;
		} while (cursor);
		return all;
	}

	test('a long column is read page by page as it is scrolled; a drop below what is loaded stays put', async () => {
		for (let i = 1; i <= 75; i++)
			await admin.post('/api/opportunities', { name: 'Bulk ' + String(i).padStart(2, '0'),
				stage_id: stages[3].id, value_cents: 1000 }, loc.id);
		const want = await columnNames(stages[3].id, 30);
		assert.ok(want.length >= 75);

		const { page, context, problems } = await opened();
		await h1(page, 'Opportunities').waitFor();
		const col = column(page, 3);
		assert.match(await col.locator('.b-col-sum').textContent(), new RegExp('^' + want.length + ' deals · '));
		assert.equal((await names(col)).length, 25, 'the first page');
		const cards = col.locator('.b-cards');
		await until(async () => {
			await cards.evaluate((list) => { list.scrollTop = list.scrollHeight; });
			return (await names(col)).length === want.length;
		}, 10000, 'the whole column, scrolled');
		assert.deepEqual(await names(col), want, 'in board order, each deal once');

		/* A deal carried by keyboard below the last card drawn, while the
		 * column's next page has not come, goes just after that card. */
		await page.route((url) => url.searchParams.has('cursor'), () => {}); /* the next page never comes */
		await page.reload();
		await h1(page, 'Opportunities').waitFor();
		await until(async () => (await names(col)).length === 25, 10000, 'the first page drawn');
		const shown = await names(col);
		const moved = shown[shown.length - 2];
		await card(page, moved).focus();
		await page.keyboard.press('Space');
		await page.keyboard.press('ArrowDown');
		const patched = page.waitForResponse((r) => r.request().method() === 'PATCH');
		await page.keyboard.press('Space');
		assert.equal((await patched).status(), 200);
		const now = await columnNames(stages[3].id, 200);
		assert.equal(now.indexOf(moved), now.indexOf(shown[shown.length - 1]) + 1, 'just after the card above it');
		assert.equal(now.length, want.length);
		assert.deepEqual(problems, []);
		await context.close();
	});
});

// SPDX-License-Identifier: MIT
/*
 * The contacts pages (modules/contacts/webui/), as the server serves them:
 * the list (search as you type, tag filter, selection and tags on many,
 * export, import with the job's progress, pages on scroll), a contact's
 * page (edit with the server's errors by the field, tags, notes, delete;
 * its timeline, quick actions and a deal's contact changed from there),
 * names shown as text, real URLs, and only this page's files fetched.
 * Nothing is stood in for: /api/pages and the page modules are the
 * server's own.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { DEMO, DESKTOP, PHONE, apiAs, launch, newPage, provoked, scrollsSideways, shoot, startServer, until }
	from './lib.mjs';

const XSS = '<img src=x onerror=alert(1)>';

describe('contacts', () => {
	let server, browser, admin, loc, other, session;

	before(async () => {
		server = await startServer();
		browser = await launch();
		admin = await apiAs(server, DEMO.email, DEMO.password);
		loc = admin.me.locations[0];
		other = await admin.post('/api/contacts', {
			first_name: 'Zebulon', last_name: 'Quartermain', email: 'zeb@quartermain.test',
			phone: '+1 555 0100', company_name: 'Quartermain Freight',
		}, loc.id);
		await admin.post('/api/contacts/' + other.id + '/tags',
			{ tags: ['alpha-tag', 'beta-tag', 'delta-tag', 'gamma-tag'] }, loc.id);
		await admin.post('/api/contacts', { first_name: XSS, last_name: 'Tester' }, loc.id);
	});

	after(async () => {
		await browser?.close();
		await server?.stop();
	});

	async function signedIn(options = {}) {
		const opened = await newPage(browser, server, options);
		if (options.saveData) { /* no idle preloads of other menu entries */
			await opened.context.addInitScript(() => Object.defineProperty(Navigator.prototype,
				'connection', { configurable: true, get: () => ({ saveData: true, effectiveType: '4g' }) }));
		}
		opened.requests = [];
		opened.page.on('request', (r) => opened.requests.push(r.url()));
		if (session) /* signed in once: the sign-in page is the shell's test */
			await opened.context.addCookies(session);
		await opened.page.goto(options.at || '/app/contacts?location=' + loc.id);
		if (!session) {
			/* by keyboard: a pointer left on the sign-in button would rest
			 * on a row of the list as it appears, and preload that page */
			await opened.page.getByLabel('E-mail').fill(DEMO.email);
			await opened.page.getByLabel('Password').fill(DEMO.password);
			await opened.page.getByLabel('Password').press('Enter');
			await opened.page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
			session = await opened.context.cookies();
		}
		return opened;
	}

	const h1 = (page, name) => page.getByRole('heading', { level: 1, name, exact: true });
	const rows = (page) => page.locator('main tbody tr:not(.c-skeleton)');

	test('the list: search as you type, open a contact, only this page\'s files fetched', async () => {
		const { page, context, requests, problems } = await signedIn({ saveData: true });
		await h1(page, 'Contacts').waitFor();
		await until(async () => await rows(page).count() > 2, 10000, 'the first page');
		assert.match(await page.getByRole('status').filter({ hasText: /contacts$/ }).textContent(), /^\d+ contacts$/);
		const modules = requests.filter((u) => /\/modules\//.test(u)).map((u) => new URL(u).pathname);
		assert.ok(modules.length > 0);
		for (const m of modules)
			assert.match(m, /^\/modules\/contacts\/contacts(-list|-select)?\.[0-9a-f]{10}\.(js|css)$/,
				'only the list\'s own files');
		await shoot(page, 'contacts-list');

		const asked = [];
		page.on('request', (r) => {
			if (/\/api\/contacts\?/.test(r.url()))
				asked.push(new URL(r.url()).searchParams.get('q'));
		});
		/* The answer to the whole word: one to a shorter one may come first. */
		const answered = page.waitForResponse((r) => /\/api\/contacts\?/.test(r.url()) &&
			new URL(r.url()).searchParams.get('q') === 'quarterm');
		await page.getByLabel('Search', { exact: true }).pressSequentially('quarterm', { delay: 40 });
		await answered;
		await until(async () => await rows(page).count() === 1 &&
			await rows(page).first().getByRole('link', { name: 'Zebulon Quartermain' }).count() === 1,
		10000, 'one match');
		assert.equal(await page.getByRole('status').filter({ hasText: /match/ }).textContent(), '1 match');
		/* four tags: one shown, the rest counted and named to a screen reader */
		const tags = rows(page).first().locator('.c-tags');
		assert.deepEqual(await tags.locator('.tag:not(.tag-more)').allTextContents(), ['alpha-tag']);
		const more = tags.locator('.tag-more');
		assert.equal(await more.locator('[aria-hidden="true"]').textContent(), '+3');
		assert.equal(await more.locator('.visually-hidden').textContent(), 'and beta-tag, delta-tag, gamma-tag');
		/* not one request a key (eight): a pause of the typing on a busy
		 * machine may let one or two more through than the two or three */
		assert.ok(asked.length >= 1 && asked.length < 'quarterm'.length, 'debounced: ' + JSON.stringify(asked));
		assert.equal(asked[asked.length - 1], 'quarterm');
		assert.equal(new URL(page.url()).searchParams.get('q'), 'quarterm', 'the search is in the URL');
		await page.getByRole('link', { name: 'Zebulon Quartermain' }).click();
		await h1(page, 'Zebulon Quartermain').waitFor();
		assert.equal(new URL(page.url()).pathname, '/app/contacts/' + other.id);
		assert.ok(await page.getByText('Quartermain Freight').first().isVisible());
		await page.goBack();
		await h1(page, 'Contacts').waitFor();
		assert.equal(await page.getByLabel('Search', { exact: true }).inputValue(), 'quarterm', 'kept on back');
		await until(async () => await rows(page).count() === 1, 10000, 'the search again');
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('a contact\'s page: edit, reload, an error by its field, notes, tags; URLs are real', async () => {
		const { page, context, problems } = await signedIn({ at: '/app/contacts/' + other.id + '?location=' + loc.id });
		await h1(page, 'Zebulon Quartermain').waitFor();
		await page.getByRole('button', { name: 'Edit' }).click();
		await page.getByLabel('Company', { exact: true }).fill('Quartermain Shipping');
		await page.getByLabel('Budget').fill('').catch(() => {}); /* not every seed has it */
		await page.getByRole('button', { name: 'Save changes' }).click();
		await page.getByRole('button', { name: 'Edit' }).waitFor();
		await page.reload();
		await h1(page, 'Zebulon Quartermain').waitFor();
		assert.ok(await page.getByText('Quartermain Shipping').first().isVisible(), 'the change stays');

		/* the server's 422 goes next to the e-mail field */
		await page.getByRole('button', { name: 'Edit' }).click();
		const email = page.getByLabel('E-mail', { exact: true });
		await email.fill('not an address');
		await page.getByRole('button', { name: 'Save changes' }).click();
		await until(async () => await email.getAttribute('aria-invalid') === 'true', 10000, 'the field error');
		const described = await email.getAttribute('aria-describedby');
		const note = page.locator('#' + described);
		assert.match(await note.textContent(), /not an e-mail address/i);
		assert.equal(await note.evaluate((n) => n.closest('.field').querySelector('input').id),
			await email.getAttribute('id'), 'in the field\'s own box');
		assert.equal(await email.evaluate((n) => n === document.activeElement), true);
		await page.getByRole('button', { name: 'Cancel' }).click();

		/* notes: "@" offers the sub-account's people; the one picked is named */
		const someone = (await admin.get('/api/users', loc.id)).data.find((u) => u.id !== admin.me.user.id);
		const area = page.getByLabel('New note');
		await area.fill('Called about the <b>renewal</b>, cc ');
		await area.press('End');
		await area.pressSequentially('@' + someone.name.slice(0, 2));
		await page.getByRole('listbox', { name: 'People to mention' }).getByRole('option', { name: someone.name }).first().waitFor();
		await area.press('Enter');
		assert.equal(await area.inputValue(), 'Called about the <b>renewal</b>, cc @' + someone.name + ' ');
		await page.getByRole('button', { name: 'Add note' }).click();
		const notes = page.locator('.r-notes');
		await notes.getByText('Called about the <b>renewal</b>').waitFor();
		/* tags */
		await page.getByLabel('Add a tag').fill('key-account');
		await page.getByRole('button', { name: 'Add', exact: true }).click();
		await page.getByRole('button', { name: 'Remove tag key-account' }).waitFor();
		await shoot(page, 'contact-record');
		await page.getByRole('button', { name: 'Remove tag key-account' }).click();
		await until(async () => await page.getByRole('button', { name: 'Remove tag key-account' }).count() === 0,
			10000, 'the tag gone');
		await notes.getByRole('button', { name: 'Delete note' }).first().click();
		await notes.getByRole('button', { name: 'Delete', exact: true }).click();
		await until(async () => await notes.getByText('renewal').count() === 0, 10000, 'the note gone');

		/* real URLs: reload, back, forward */
		await page.getByRole('link', { name: 'Contacts', exact: true }).first().click();
		await h1(page, 'Contacts').waitFor();
		await page.goBack();
		await h1(page, 'Zebulon Quartermain').waitFor();
		await page.goForward();
		await h1(page, 'Contacts').waitFor();
		await page.goto('/app/contacts/999999999?location=' + loc.id);
		await h1(page, 'Not found').waitFor();
		await page.goto('/app/contacts/nonsense?location=' + loc.id);
		await h1(page, 'Not found').waitFor();
		assert.deepEqual(provoked(problems, /^404 GET \/api\/contacts\/[0-9]+$/, /^422 PATCH \/api\/contacts\/[0-9]+$/), []);
		await context.close();
	});

	test('a name with markup shows as its characters, in the list and on its page', async () => {
		const { page, context, problems } = await signedIn();
		await h1(page, 'Contacts').waitFor();
		const link = page.getByRole('link', { name: XSS + ' Tester' });
		await link.waitFor();
		assert.equal(await page.locator('main img').count(), 0);
		await link.click();
		await h1(page, XSS + ' Tester').waitFor();
		assert.equal(await page.locator('main img').count(), 0);
		assert.match(await page.title(), /^<img src=x onerror=alert\(1\)> Tester · /);
		await page.waitForTimeout(200);
		assert.deepEqual(problems, [], 'no dialog, no error');
		await context.close();
	});

	test('create a contact, then delete it', async () => {
		const { page, context, problems } = await signedIn();
		await h1(page, 'Contacts').waitFor();
		await page.getByRole('link', { name: 'New contact' }).click();
		await h1(page, 'New contact').waitFor();
		await page.getByRole('button', { name: 'Create contact' }).click();
		await page.getByRole('alert').or(page.locator('[aria-invalid="true"]')).first().waitFor();
		await page.getByLabel('First name').fill('Philippa');
		await page.getByLabel('Last name').fill('Oyelaran');
		await page.getByLabel('E-mail', { exact: true }).fill('philippa@oyelaran.test');
		await page.getByRole('button', { name: 'Create contact' }).click();
		await h1(page, 'Philippa Oyelaran').waitFor();
		assert.match(new URL(page.url()).pathname, /^\/app\/contacts\/\d+$/);
		const id = new URL(page.url()).pathname.split('/').pop();

		/* The same address again: said beside the E-mail field, naming the
		 * person (it said "Contact 5001" at the top of the form). */
		await page.goto(page.url().replace(/\/contacts\/\d+/, '/contacts/new'));
		await h1(page, 'New contact').waitFor();
		await page.getByLabel('First name').fill('Pippa');
		const email = page.getByLabel('E-mail', { exact: true });
		await email.fill('philippa@oyelaran.test');
		await page.getByRole('button', { name: 'Create contact' }).click();
		await page.getByText('Philippa Oyelaran (contact ' + id + ') already has this e-mail address').waitFor();
		assert.equal(await email.getAttribute('aria-invalid'), 'true');
		assert.equal(await page.locator('.form-error').count(), 0, 'nothing at the top of the form');
		const twin = page.locator('.field-error').getByRole('link', { name: 'Open Philippa Oyelaran' });
		await twin.waitFor();
		assert.equal(new URL(await twin.getAttribute('href'), page.url()).pathname, '/app/contacts/' + id);
		await shoot(page, 'contact-duplicate');
		await page.goBack();
		await h1(page, 'Philippa Oyelaran').waitFor();
		await page.getByRole('button', { name: 'Delete' }).click();
		await page.getByRole('button', { name: 'Delete contact' }).click();
		await h1(page, 'Contacts').waitFor();
		await page.getByLabel('Search', { exact: true }).fill('oyelaran');
		await page.getByRole('heading', { name: 'No contacts match' }).waitFor();
		assert.deepEqual(provoked(problems, /^(422|409) POST \/api\/contacts$/), []);
		await context.close();
	});

	test('tag two contacts at once, filter by the tag, export what the filter selects', async () => {
		const { page, context, problems } = await signedIn();
		await h1(page, 'Contacts').waitFor();
		await until(async () => await rows(page).count() > 3, 10000, 'the first page');
		const names = [];
		for (const i of [1, 2]) {
			const row = rows(page).nth(i);
			names.push(await row.locator('.c-name-text').textContent());
			await row.getByRole('checkbox').check();
		}
		await page.getByText('2 contacts selected').waitFor();
		await page.getByLabel('Tag to add or remove').fill('spring-drive');
		await page.getByRole('button', { name: 'Add tag' }).click();
		await page.getByText('Tag “spring-drive” added to 2 contacts.').waitFor();
		await page.getByLabel('Tag', { exact: true }).selectOption('spring-drive');
		await until(async () => await rows(page).count() === 2, 10000, 'two tagged');
		assert.deepEqual((await rows(page).locator('.c-name-text').allTextContents()).sort(), names.sort());
		assert.equal(new URL(page.url()).searchParams.get('tag'), 'spring-drive');
		assert.deepEqual(await rows(page).locator('.c-tags .tag:not(.tag-more)').allTextContents(),
			['spring-drive', 'spring-drive'], 'the tag filtered by is the one each row shows');

		const [download] = await Promise.all([
			page.waitForEvent('download'),
			page.getByRole('link', { name: 'Export CSV' }).click(),
		]);
		const csv = readFileSync(await download.path(), 'utf8').trim().split(/\r?\n/);
		assert.match(csv[0], /^id,first_name,last_name,email/);
		assert.equal(csv.length, 3, 'the header and the two tagged rows');
		assert.ok(csv.slice(1).every((l) => l.includes('spring-drive')));
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('import a CSV: the job\'s counts and errors; a big list pages as it scrolls', async () => {
		const place = await admin.post('/api/admin/locations', { name: 'Import Test Co' });
		const { page, context, problems } = await signedIn({ at: '/app/contacts?location=' + place.id });
		await h1(page, 'Contacts').waitFor();
		await page.getByRole('heading', { name: 'No contacts yet' }).waitFor();
		await page.getByRole('button', { name: 'Import CSV' }).first().click();
		await page.getByLabel('CSV file', { exact: true }).setInputFiles({
			name: 'few.csv', mimeType: 'text/csv',
			buffer: Buffer.from('first_name,last_name,email\nAda,Okafor,ada@okafor.test\nBo,Lind,bo@lind.test\nCy,,not-mail\n'),
		});
		await page.getByRole('button', { name: 'Upload', exact: true }).click();
		await page.getByRole('button', { name: 'Import', exact: true }).click();
		await page.getByText('Import finished.').waitFor();
		const counts = page.locator('.i-counts');
		assert.equal(await counts.locator('div').filter({ hasText: 'Added' }).locator('dd').textContent(), '2');
		assert.equal(await counts.locator('div').filter({ hasText: 'Skipped' }).locator('dd').textContent(), '1');
		await page.getByText('Line 4: email: not an e-mail address').waitFor();
		await until(async () => await rows(page).count() === 2, 10000, 'the list shows them');

		/* over 64 KB: a job, followed until it is done */
		let big = 'first_name,last_name,email,company_name,source\n';
		for (let i = 0; i < 800; i++)
			big += 'Person' + i + ',Family' + i + ',person' + i + '@bulk-import-example.test,Bulk Import Company Limited,a long spreadsheet row\n';
		assert.ok(big.length > 64 * 1024);
		await page.getByRole('button', { name: 'Import another file' }).click();
		await page.getByLabel('CSV file', { exact: true }).setInputFiles({ name: 'many.csv', mimeType: 'text/csv', buffer: Buffer.from(big) });
		await page.getByRole('button', { name: 'Upload', exact: true }).click();
		await page.getByRole('button', { name: 'Import', exact: true }).click();
		await page.getByText('Import finished.').waitFor({ timeout: 30000 });
		assert.equal(await counts.locator('div').filter({ hasText: 'Added' }).locator('dd').textContent(), '800');
		await page.getByRole('status').filter({ hasText: '802 contacts' }).waitFor();
		await page.getByRole('button', { name: 'Close' }).click();

		await until(async () => await rows(page).count() === 50, 10000, 'the first page');
		await page.getByRole('button', { name: 'Load more' }).scrollIntoViewIfNeeded();
		await until(async () => await rows(page).count() >= 100, 10000, 'the next page on scroll');
		await page.getByText(/^Showing \d+ of 802$/).waitFor();
		await page.getByRole('button', { name: 'Load more' }).focus();
		const before = await rows(page).count();
		await page.keyboard.press('Enter');
		await until(async () => await rows(page).count() > before, 10000, 'a page by the button');
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('import step by step: match a column, preview, skip duplicates, the report names the line', async () => {
		const { page, context, problems } = await signedIn();
		await h1(page, 'Contacts').waitFor();
		await page.getByRole('button', { name: 'Import CSV' }).first().click();
		await page.getByLabel('CSV file', { exact: true }).setInputFiles({
			name: 'hubspot.csv', mimeType: 'text/csv',
			buffer: Buffer.from('Name,E-mail Address,Mobile,Lead Status\n' +
				'Walker,walk-ada@walk.test,(512) 555-0101,gold\n' +
				'Walker Again,WALK-ADA@walk.test,,silver\n' +
				'Bowalk,walk-bo@walk.test,,\n'),
		});
		await page.getByRole('button', { name: 'Upload', exact: true }).click();
		/* guessed from the names; "Lead Status" is left out */
		assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'full_name');
		assert.equal(await page.getByLabel('E-mail Address').inputValue(), 'email');
		assert.equal(await page.getByLabel('Mobile').inputValue(), 'phone');
		assert.equal(await page.getByLabel('Lead Status').inputValue(), '');
		const preview = page.getByRole('table', { name: 'What the first rows become' });
		await preview.getByText('Phone: +15125550101', { exact: false }).waitFor();
		await page.getByLabel('Lead Status').selectOption({ label: 'Source' });
		await preview.getByText('Source: gold', { exact: false }).waitFor();
		await page.getByLabel('Skip the row').check();
		await preview.getByRole('row').filter({ hasText: 'a duplicate of line 2\'s contact' }).getByText('Skipped').waitFor();
		await shoot(page, 'contacts-import-map');
		await page.getByRole('button', { name: 'Import', exact: true }).click();
		await page.getByText('Import finished.').waitFor();
		const counts = page.locator('.i-counts');
		assert.equal(await counts.locator('div').filter({ hasText: 'Added' }).locator('dd').textContent(), '2');
		await page.getByText('Line 3: a duplicate of line 2\'s contact (the same e-mail, WALK-ADA@walk.test)').waitFor();
		await shoot(page, 'contacts-import-report');
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('the tags page: rename a tag, merge two, delete one', async () => {
		const tagged = await admin.post('/api/contacts', { first_name: 'Tagpage', email: 'tagpage@tags.test' }, loc.id);
		await admin.post('/api/contacts/' + tagged.id + '/tags', { tags: ['tp-patient', 'tp-patients', 'tp-old'] }, loc.id);
		const { page, context, problems } = await signedIn();
		await page.getByRole('link', { name: 'Tags', exact: true }).click();
		await h1(page, 'Tags').waitFor();
		const tag = (name) => page.getByRole('form', { name: 'Tag ' + name, exact: true });
		await tag('tp-old').getByLabel('Name').fill('tp-retired');
		await tag('tp-old').getByRole('button', { name: 'Rename tp-old' }).click();
		await page.getByText('Renamed to “tp-retired”.').waitFor();
		await tag('tp-patient').getByLabel('Merge into').selectOption({ label: 'tp-patients' });
		await tag('tp-patient').getByRole('button', { name: 'Merge tp-patient' }).click();
		await page.getByText('“tp-patient” merged into “tp-patients”.').waitFor();
		await tag('tp-retired').getByRole('button', { name: 'Delete tp-retired' }).click();
		await page.getByRole('alertdialog').getByRole('button', { name: 'Delete tag' }).click();
		await page.getByText('Tag “tp-retired” deleted.').waitFor();
		await shoot(page, 'contacts-tags');
		const names = (await admin.get('/api/contacts/' + tagged.id, loc.id)).tags.map((t) => t.name);
		assert.deepEqual(names, ['tp-patients']);
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('the contact is the hub: its timeline links to the deal, New task starts with it, a deal changes contact and has notes and tasks', async () => {
		const pipeline = (await admin.get('/api/pipelines', loc.id)).data[0];
		const [first, second] = pipeline.stages;
		const deal = await admin.post('/api/opportunities', { name: 'Harbour website', stage_id: first.id,
			contact_id: other.id }, loc.id);
		await admin.patch('/api/opportunities/' + deal.id, { stage_id: second.id }, loc.id);
		await admin.post('/api/contacts/' + other.id + '/notes', { body: 'Wants a quote by Friday' }, loc.id);
		const moved = 'Deal Harbour website moved from ' + first.name + ' to ' + second.name;
		const { page, context, problems } = await signedIn({ at: '/app/contacts/' + other.id + '?location=' + loc.id });
		await h1(page, 'Zebulon Quartermain').waitFor();
		const timeline = page.getByRole('list', { name: 'What happened, newest first' });
		/* the lines come as the events are handled: a reload shows them once written */
		await until(async () => {
			if (await timeline.getByRole('link', { name: moved }).count())
				return true;
			await page.reload();
			await h1(page, 'Zebulon Quartermain').waitFor();
			return false;
		}, 10000, 'the deal\'s move on the timeline');
		await timeline.getByText('Note: Wants a quote by Friday').waitFor();
		assert.equal(await timeline.getByRole('link', { name: moved }).getAttribute('href'),
			'/app/opportunities/' + deal.id + '?location=' + loc.id);
		assert.equal(await scrollsSideways(page), false, 'nothing scrolls sideways at 1280 px');
		await shoot(page, 'contact-hub');
		await page.setViewportSize(PHONE);
		assert.equal(await scrollsSideways(page), false, 'nor at phone width');
		await page.setViewportSize(DESKTOP);

		/* New task, from the contact: the form opens with the contact in it */
		await page.getByRole('group', { name: 'Quick actions' }).getByRole('link', { name: 'New task' }).click();
		const form = page.getByRole('form', { name: 'New task' });
		await form.getByLabel('Title').waitFor();
		assert.equal(await form.getByLabel('Contact').inputValue(), 'Zebulon Quartermain (zeb@quartermain.test)');
		await form.getByLabel('Title').fill('Send the Harbour quote');
		await form.getByRole('button', { name: 'Add task' }).click();
		await page.getByText('Task “Send the Harbour quote” added.').waitFor();
		const task = (await admin.get('/api/tasks?contact=' + other.id, loc.id)).data
			.find((t) => t.title === 'Send the Harbour quote');
		assert.equal(task && task.contact_id, other.id, 'the task is the contact\'s');
		await page.goBack();
		await h1(page, 'Zebulon Quartermain').waitFor();
		await timeline.getByText('Task Send the Harbour quote created').waitFor();

		/* the deal, from its line: its contact changed to another */
		await timeline.getByRole('link', { name: moved }).click();
		await h1(page, 'Harbour website').waitFor();
		await page.getByRole('button', { name: 'Edit' }).click();
		const who = page.getByLabel('Contact');
		assert.equal(await who.inputValue(), 'Zebulon Quartermain');
		await who.fill('Tester');
		const option = page.locator('datalist option');
		await until(async () => (await option.count()) === 1, 10000, 'the contact offered');
		await who.fill(await option.getAttribute('value'));
		await page.getByRole('button', { name: 'Save changes' }).click();
		await page.getByText('Changes saved.').waitFor();
		assert.ok(await page.getByRole('link', { name: XSS + ' Tester' }).isVisible(), 'the new contact');

		/* New task, from the deal: the form shows the deal and its contact; the task is the deal's */
		const dealTasks = page.getByRole('region', { name: 'Tasks', exact: true });
		await dealTasks.getByText('No tasks for this deal yet.').waitFor();
		await dealTasks.getByRole('link', { name: 'New task' }).click();
		const dealForm = page.getByRole('form', { name: 'New task' });
		await dealForm.getByLabel('Title').waitFor();
		assert.equal(await dealForm.getByLabel('Deal').inputValue(), 'Harbour website');
		assert.equal(await dealForm.getByLabel('Deal').isEditable(), false, 'the deal is kept');
		assert.equal(await dealForm.getByLabel('Contact').inputValue(), XSS + ' Tester');
		await dealForm.getByLabel('Title').fill('Book the kickoff');
		await shoot(page, 'deal-task-new');
		await dealForm.getByRole('button', { name: 'Add task' }).click();
		await h1(page, 'Harbour website').waitFor();
		await dealTasks.getByRole('link', { name: 'Book the kickoff' }).waitFor();
		assert.equal(await dealTasks.getByRole('link', { name: 'Send the Harbour quote' }).count(), 0,
			'the deal\'s own tasks, not its old contact\'s');

		/* a note on the deal; its history says what happened to it */
		await page.getByLabel('New note').fill('Budget approved by <b>Zeb</b>');
		await page.getByRole('button', { name: 'Add note' }).click();
		await page.getByRole('list', { name: 'Notes on this deal' }).getByText('Budget approved by <b>Zeb</b>').waitFor();
		await page.getByRole('list', { name: 'What happened to this deal, newest first' }).getByText(moved).waitFor();
		assert.equal(await scrollsSideways(page), false);
		await shoot(page, 'deal-notes');

		/* the deal's task, in the deal's list: its row links back to the deal by name */
		await dealTasks.getByRole('link', { name: 'Book the kickoff' }).click();
		await h1(page, 'Tasks').waitFor();
		const taskRow = page.locator('.t-row', { hasText: 'Book the kickoff' });
		await taskRow.getByRole('link', { name: 'Harbour website' }).waitFor();
		await taskRow.getByRole('button', { name: 'Book the kickoff' }).click();
		assert.equal(await taskRow.getByLabel('Deal').inputValue(), 'Harbour website');
		await taskRow.getByLabel('Deal').fill('Harbo'); /* another deal is picked by typing */
		const offered = taskRow.locator('datalist option');
		await until(async () => (await offered.count()) === 1, 10000, 'the deal offered');
		assert.equal(await offered.getAttribute('value'), 'Harbour website (' + XSS + ' Tester)');
		await shoot(page, 'deal-tasks');
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('at phone width the list is cards and nothing scrolls sideways', async () => {
		const { page, context, problems } = await signedIn({ viewport: PHONE });
		await h1(page, 'Contacts').waitFor();
		await until(async () => await rows(page).count() > 2, 10000, 'the first page');
		assert.equal(await scrollsSideways(page), false);
		assert.equal(await page.locator('main thead').isVisible(), false);
		await rows(page).first().getByRole('link').click();
		await page.getByRole('button', { name: 'Edit' }).waitFor();
		assert.equal(await scrollsSideways(page), false);
		assert.deepEqual(problems, []);
		await context.close();
	});
});

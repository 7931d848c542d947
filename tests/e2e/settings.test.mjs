// SPDX-License-Identifier: MIT
/*
 * The Settings page (webui/settings.js), as the server serves it: a
 * sub-account user made in People signs in and sees only their own; an
 * API token made is shown once, works, ends when it was made to, and
 * once revoked is refused; a sub-account added and renamed; the audit
 * log filtered by person; a location user sees their tokens only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEMO, DESKTOP, PHONE, apiAs, launch, newPage, provoked, scrollsSideways, shoot, signIn, startServer, until }
	from './lib.mjs';

describe('settings', () => {
	let server, browser, admin, locations;
	const NEW_USER = { name: 'Imogen Thistlewood', email: 'imogen@thistle.test', password: 'thistle-pass-42' };

	before(async () => {
		server = await startServer();
		browser = await launch();
		admin = await apiAs(server, DEMO.email, DEMO.password);
		locations = admin.me.locations;
	});

	after(async () => {
		await browser?.close();
		await server?.stop();
	});

	async function signedIn(who, at, options = {}) {
		const o = await newPage(browser, server, options);
		await o.page.goto(at);
		await signIn(o.page, who.email, who.password);
		return o;
	}

	const h1 = (page, name) => page.getByRole('heading', { level: 1, name, exact: true });

	test('a sub-account user made in People signs in and sees their sub-account only', async () => {
		const { page, context, problems } = await signedIn(DEMO, '/app/settings?section=people&location=' + locations[0].id);
		await h1(page, 'Settings').waitFor();
		const form = page.getByRole('form', { name: 'Add a person' });
		await form.getByLabel('Name').fill(NEW_USER.name);
		await form.getByLabel('E-mail').fill(NEW_USER.email);
		await form.getByLabel('Password').fill(NEW_USER.password);
		await form.getByLabel('Role').selectOption({ label: 'Sub-account user' });
		await form.getByRole('checkbox', { name: locations[1].name, exact: true }).check();
		await form.getByRole('button', { name: 'Add person' }).click();
		await page.getByRole('cell', { name: NEW_USER.email }).waitFor();
		const row = page.getByRole('row', { name: new RegExp(NEW_USER.name) });
		assert.deepEqual((await row.getByRole('cell').allTextContents()).slice(0, 5).map((t) => t.trim()),
			[NEW_USER.name, NEW_USER.email, 'Sub-account user', locations[1].name, 'Active']);
		const lines = await row.getByRole('cell').nth(4).evaluate((td) => {
			const range = document.createRange();
			range.selectNodeContents(td);
			return new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top))).size;
		});
		assert.equal(lines, 1, '"Active" on one line at 1280 px');
		await shoot(page, 'settings-people');
		assert.deepEqual(problems, []);
		await context.close();

		const theirs = await signedIn(NEW_USER, '/');
		await theirs.page.getByRole('heading', { level: 1 }).first().waitFor();
		assert.equal(new URL(theirs.page.url()).searchParams.get('location'), String(locations[1].id));
		const menu = await theirs.page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
		assert.ok(!menu.includes('System'), 'no System for them: ' + menu);
		assert.ok(menu.includes('Settings'));
		await theirs.page.goto('/app/settings');
		await h1(theirs.page, 'Settings').waitFor();
		assert.deepEqual(await theirs.page.getByRole('navigation', { name: 'Settings' }).getByRole('link').allTextContents(),
			['Your account', 'API tokens'], 'their own account and tokens only');
		await theirs.context.close();
	});

	test('a person invited with no e-mail set up gets the link by hand and signs in; forgot password says the same', async () => {
		const person = { name: 'Noor Haddad', email: 'noor@example.test', password: 'noor-pass-123' };
		const { page, context, problems } = await signedIn(DEMO, '/app/settings?section=people&location=' + locations[0].id);
		await h1(page, 'Settings').waitFor();
		const form = page.getByRole('form', { name: 'Add a person' });
		await form.getByLabel('Name').fill(person.name);
		await form.getByLabel('E-mail').fill(person.email);
		await form.getByLabel('Role').selectOption({ label: 'Sub-account user' });
		await form.getByRole('checkbox', { name: locations[1].name, exact: true }).check();
		await form.getByRole('button', { name: 'Add person' }).click();
		const link = page.getByLabel('The link');
		await link.waitFor();
		// The relay is not set up here: the page says plainly nothing left.
		await page.getByText(/^Nothing was e-mailed \(.+\): hand this link over yourself\.$/).waitFor();
		const row = page.getByRole('row', { name: new RegExp(person.name) });
		assert.match((await row.getByRole('cell').nth(4).textContent()).trim(), /^Invited/);
		const url = await link.inputValue();
		assert.match(url, /\/link\/[A-Za-z0-9_-]{40,}$/);
		await shoot(page, 'settings-invited');
		assert.deepEqual(problems, []);
		await context.close();

		const theirs = await newPage(browser, server, { viewport: PHONE });
		await theirs.page.goto(url);
		await theirs.page.getByRole('heading', { name: 'Choose your password' }).waitFor();
		await shoot(theirs.page, 'invitation-page');
		await theirs.page.getByLabel('New password', { exact: true }).fill(person.password);
		await theirs.page.getByLabel('New password again').fill(person.password);
		await theirs.page.getByRole('button', { name: 'Set password and sign in' }).click();
		await theirs.page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
		assert.equal(new URL(theirs.page.url()).searchParams.get('location'), String(locations[1].id));
		assert.deepEqual(theirs.problems, []);
		await theirs.context.close();

		const said = [];
		for (const address of [person.email, 'nobody-here@example.test']) {
			const o = await newPage(browser, server);
			await o.page.goto('/');
			await o.page.getByRole('button', { name: 'Forgot your password?' }).click();
			const ask = o.page.getByRole('form', { name: 'Forgot password' });
			await ask.getByLabel('E-mail').fill(address);
			await ask.getByRole('button', { name: 'E-mail me a link' }).click();
			const status = ask.getByRole('status');
			await until(async () => (await status.textContent()) !== '', 10000, 'an answer');
			said.push(await status.textContent());
			if (said.length === 1)
				await shoot(o.page, 'login-forgot');
			assert.deepEqual(o.problems, []);
			await o.context.close();
		}
		assert.match(said[0], /^If an account uses this address/);
		assert.equal(said[0], said[1], 'the same words for a known and an unknown address');
	});

	test('a person\'s role and sub-accounts are changed; they see the new one', async () => {
		const person = { name: 'Mirela Ostrowska', email: 'mirela@example.test', password: 'mirela-pass-123' };
		await admin.post('/api/admin/users', { name: person.name, email: person.email, password: person.password,
			role: 'location_user', location_ids: [locations[2].id] });
		const { page, context, problems } = await signedIn(DEMO, '/app/settings?section=people&location=' + locations[0].id);
		await h1(page, 'Settings').waitFor();
		await page.getByRole('button', { name: 'Edit ' + person.name }).click();
		const form = page.getByRole('form', { name: 'Change ' + person.name });
		assert.equal(await form.getByRole('checkbox', { name: locations[2].name, exact: true }).isChecked(), true);
		await form.getByLabel('Role').selectOption({ label: 'Sub-account admin' });
		await form.getByRole('checkbox', { name: locations[2].name, exact: true }).uncheck();
		await form.getByRole('checkbox', { name: locations[3].name, exact: true }).check();
		await form.getByRole('button', { name: 'Save changes' }).click();
		const row = page.getByRole('row', { name: new RegExp(person.name) });
		await until(async () => (await row.getByRole('cell').nth(2).textContent()) === 'Sub-account admin', 10000, 'the new role');
		assert.equal((await row.getByRole('cell').nth(3).textContent()).trim(), locations[3].name);
		const stored = (await admin.get('/api/admin/users')).data.find((u) => u.email === person.email);
		assert.equal(stored.role, 'location_admin');
		assert.deepEqual(stored.location_ids, [locations[3].id]);
		assert.deepEqual(problems, []);
		await context.close();

		const theirs = await signedIn(person, '/');
		await theirs.page.getByRole('heading', { level: 1 }).first().waitFor();
		assert.equal(new URL(theirs.page.url()).searchParams.get('location'), String(locations[3].id));
		await theirs.context.close();
	});

	test('the modules and their states', async () => {
		const { page, context, problems } = await signedIn(DEMO, '/app/settings?location=' + locations[0].id);
		await h1(page, 'Settings').waitFor();
		await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Modules' }).click();
		await page.getByRole('heading', { level: 2, name: 'Modules' }).waitFor();
		const listed = (await admin.get('/api/admin/modules')).data;
		const names = await page.locator('.s-modules tbody th').allTextContents();
		assert.deepEqual(names, listed.map((m) => m.name));
		const row = page.getByRole('row', { name: /^invoices / });
		assert.equal((await row.getByRole('cell').nth(1).textContent()).trim(), 'On');
		await shoot(page, 'settings-modules');
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('an API token is shown once, works, and once revoked is refused', async () => {
		const { page, context, problems } = await signedIn(DEMO, '/app/settings?section=tokens&location=' + locations[0].id);
		await h1(page, 'Settings').waitFor();
		const form = page.getByRole('form', { name: 'New API token' });
		await form.getByLabel('Name').fill('Reporting script');
		await form.getByLabel('Expires after (days)').fill('90');
		await form.getByRole('button', { name: 'Make token' }).click();
		const value = page.getByLabel('The token');
		await value.waitFor();
		const token = await value.inputValue();
		assert.match(token, /^hlt_/);
		const use = () => fetch(server.url + '/api/contacts?limit=1', { headers: { Authorization: 'Bearer ' + token } });
		assert.equal((await use()).status, 200, 'the token works');
		await shoot(page, 'settings-tokens');
		await page.reload();
		await h1(page, 'Settings').waitFor();
		assert.equal(await page.getByLabel('The token').count(), 0, 'shown once');
		// It ends 90 days from now (it read "Jan 21, 1970": seconds taken for ms).
		const ends = (await page.getByRole('row', { name: /^Reporting script / }).getByRole('cell').nth(4)
			.textContent()).trim();
		const days = await page.evaluate(() => [89, 90, 91].map((n) => new Intl.DateTimeFormat(undefined,
			{ year: 'numeric', month: 'short', day: 'numeric' }).format(Date.now() + n * 864e5)));
		assert.ok(days.includes(ends), ends + ' is not one of ' + days.join(', '));
		await page.getByRole('button', { name: 'Revoke Reporting script' }).click();
		await page.getByText('Token revoked: it no longer works.').waitFor();
		assert.equal((await use()).status, 401, 'refused once revoked');
		assert.equal(await page.getByRole('button', { name: 'Revoke Reporting script' }).count(), 0);
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('a sub-account added with its zone, currency and country, renamed; the audit log by person', async () => {
		const { page, context, problems } = await signedIn(DEMO, '/app/settings?section=locations&location=' + locations[0].id);
		await h1(page, 'Settings').waitFor();
		const form = page.getByRole('form', { name: 'Add a sub-account' });
		await form.getByLabel('Name').fill('Quarry Yoga Dover');
		await form.getByLabel('Time zone').fill('Europe/Lisbon');
		await form.getByLabel('Currency').fill('eur');
		await form.getByLabel('Country').fill('pt');
		await form.getByRole('button', { name: 'Add sub-account' }).click();
		const added = page.getByRole('form', { name: 'Sub-account Quarry Yoga Dover' });
		await added.waitFor();
		assert.equal(await added.getByLabel('Time zone').inputValue(), 'Europe/Lisbon');
		assert.equal(await added.getByLabel('Currency').inputValue(), 'EUR');
		assert.equal(await added.getByLabel('Country').inputValue(), 'PT');
		await added.getByLabel('Name').fill('Quarry Yoga Dover Heights');
		await added.getByRole('button', { name: /^Save/ }).click();
		await page.getByRole('form', { name: 'Sub-account Quarry Yoga Dover Heights' }).waitFor();
		await shoot(page, 'settings-sub-accounts');
		const all = await admin.get('/api/admin/locations');
		assert.ok(all.data.some((l) => l.name === 'Quarry Yoga Dover Heights' && l.timezone === 'Europe/Lisbon' &&
			l.currency === 'EUR' && l.country === 'PT'));

		await page.getByRole('link', { name: 'Audit log' }).click();
		await page.getByRole('heading', { level: 2, name: 'Audit log' }).waitFor();
		await page.getByLabel('Who').selectOption({ label: 'Perf Admin' });
		await page.getByLabel('Action').selectOption({ label: 'signed in' });
		await page.getByRole('button', { name: 'Filter' }).click();
		await until(() => new URL(page.url()).searchParams.get('action') === 'signed in', 10000, 'the filter in the URL');
		/* The filtered list takes the place of the whole one: wait for it. */
		const rows = page.locator('.s-section tbody tr');
		await until(async () => {
			const texts = await rows.allTextContents();
			return texts.length > 0 && texts.every((t) => /Perf Admin.*signed in$/s.test(t.trim()));
		}, 10000, 'only her sign-ins');
		await shoot(page, 'settings-audit');
		assert.equal(await scrollsSideways(page), false);
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('your account: another device signed out, the password changed with the old one', async () => {
		const person = { name: 'Zdenka Prochazkova', email: 'zdenka@example.test', password: 'zdenka-pass-123' };
		await admin.post('/api/admin/users', { name: person.name, email: person.email, password: person.password,
			role: 'location_user', location_ids: [locations[0].id] });
		const phone = await signedIn(person, '/app/settings', { viewport: PHONE });
		await h1(phone.page, 'Settings').waitFor();
		const { page, context, problems } = await signedIn(person, '/app/settings');
		await page.getByRole('heading', { level: 2, name: 'Your account' }).waitFor();
		const rows = page.locator('.s-sessions tbody tr');
		assert.equal(await rows.count(), 2);
		assert.match(await rows.first().textContent(), /Chrome on Linux \(this device\)/);
		await shoot(page, 'settings-account');
		await page.getByRole('button', { name: /^Sign out Chrome on Linux/ }).click();
		await page.getByText('That device is signed out.').waitFor();
		assert.equal(await rows.count(), 1);
		assert.equal((await phone.page.request.get('/api/auth/sessions')).status(), 401, 'the other one is out');

		const form = page.getByRole('form', { name: 'Change your password' });
		await form.getByLabel('Current password').fill('not-my-password');
		await form.getByLabel('New password').fill('zdenka-new-456');
		await form.getByRole('button', { name: 'Change password' }).click();
		await until(async () => await form.getByLabel('Current password').getAttribute('aria-invalid') === 'true',
			10000, 'the wrong password refused beside its field');
		assert.match(await page.locator('#' + await form.getByLabel('Current password').getAttribute('aria-describedby'))
			.textContent(), /^Not your current password/);
		await form.getByLabel('Current password').fill(person.password);
		await form.getByRole('button', { name: 'Change password' }).click();
		await page.getByText('Password changed. Your other devices are signed out.').waitFor();
		await apiAs(server, person.email, 'zdenka-new-456');
		assert.equal((await page.request.get('/api/auth/sessions')).status(), 200, 'this device stays signed in');
		assert.deepEqual(provoked(problems, /^422 POST \/api\/auth\/password$/), []);
		await context.close();
		await phone.context.close();
	});

	test('the audit log reads who did what to which record, by its number, on a desktop and a phone', async () => {
		const here = locations[0].id;
		const contact = (await admin.get('/api/contacts?limit=1', here)).data[0];
		const invoice = await admin.post('/api/invoices', { contact_id: contact.id, items: [
			{ description: 'Logo refresh', quantity: 1, unit_price_cents: 50000 }] }, here);
		await admin.delete('/api/invoices/' + invoice.id, here);
		for (const viewport of [DESKTOP, PHONE]) {
			const { page, context, problems } = await signedIn(DEMO, '/app/settings?section=audit&location=' + here,
				{ viewport });
			await page.getByRole('heading', { level: 2, name: 'Audit log' }).waitFor();
			const filters = page.getByRole('search', { name: 'Filter the audit log' });
			/* Filters are lists of what there is, not boxes to type in. */
			assert.ok((await filters.getByLabel('Kind of record').locator('option').allTextContents()).includes('invoice'));
			assert.ok((await filters.getByLabel('Action').locator('option').allTextContents()).includes('deleted'));
			await filters.getByLabel('Kind of record').selectOption({ label: 'invoice' });
			await filters.getByRole('button', { name: 'Filter' }).click();
			await until(() => new URL(page.url()).searchParams.get('kind') === 'invoice', 10000, 'the filter in the URL');
			const rows = page.locator('.s-section tbody tr');
			/* the filtered list, not the one drawn before it */
			await until(async () => {
				const texts = await rows.allInnerTexts();
				return texts.length >= 2 && texts.every((t) => / invoice /.test(t.replace(/\s+/g, ' ')));
			}, 10000, 'the invoice\'s entries');
			const [deleted, created] = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' '));
			assert.match(deleted, new RegExp('Perf Admin.*deleted invoice ' + invoice.number));
			assert.match(created, new RegExp('created invoice ' + invoice.number));
			assert.ok(deleted.includes(locations[0].name), deleted);
			/* No table's name is left for a person to read. */
			const all = await page.locator('.s-section').innerText();
			assert.doesNotMatch(all, /invoice_items|unpaid_counts|payment_days|\binsert\b|\bupdate\b/);
			if (viewport === DESKTOP)
				await shoot(page, 'settings-audit-records'); /* at both widths */
			assert.equal(await scrollsSideways(page), false);
			assert.deepEqual(problems, []);
			await context.close();
		}
	});

	test('the agency\'s name and what a new sub-account starts with', async () => {
		const before = await admin.get('/api/admin/agency');
		const { page, context, problems } = await signedIn(DEMO, '/app/settings?section=agency&location=' + locations[0].id);
		await page.getByRole('heading', { level: 2, name: 'Agency' }).waitFor();
		const form = page.getByRole('form', { name: 'The agency' });
		await form.getByLabel('Currency').fill('ZZZ');
		await form.getByRole('button', { name: 'Save' }).click();
		await until(async () => await form.getByLabel('Currency').getAttribute('aria-invalid') === 'true', 10000,
			'the currency refused beside it');
		await form.getByLabel('Name').fill('Northwind & Partners');
		await form.getByLabel('Time zone').fill('Europe/Dublin');
		await form.getByLabel('Currency').fill('eur');
		await form.getByRole('button', { name: 'Save' }).click();
		await page.getByText('Saved.').waitFor();
		await until(async () => (await page.locator('.who-org').textContent()) === 'Northwind & Partners', 10000,
			'the top bar says the new name');
		await shoot(page, 'settings-agency');
		const made = await admin.post('/api/admin/locations', { name: 'Dublin Dental' });
		assert.deepEqual([made.timezone, made.currency], ['Europe/Dublin', 'EUR']);
		assert.deepEqual(provoked(problems, /^422 PATCH \/api\/admin\/agency$/), []);
		await context.close();
		await admin.patch('/api/admin/agency', { name: before.name, timezone: before.timezone, currency: before.currency });
	});

	test('at phone width nothing scrolls sideways', async () => {
		const { page, context, problems } = await signedIn(DEMO, '/app/settings?section=people&location=' + locations[0].id,
			{ viewport: PHONE });
		await h1(page, 'Settings').waitFor();
		assert.equal(await scrollsSideways(page), false);
		assert.deepEqual(problems, []);
		await context.close();
	});
});

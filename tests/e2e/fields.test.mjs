// SPDX-License-Identifier: MIT
/*
 * The custom fields page (modules/contacts/webui/fields.js), as the
 * server serves it: reached from the contacts list by an admin; a choice
 * field added with its options (a key the server refuses said by its
 * field), shown on a contact's form, renamed, moved up, and deleted only
 * once confirmed. A sub-account's user has neither the link nor the page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PHONE, fitsAt, provoked, setUp, shoot, signedInOpener, tearDown, until } from './lib.mjs';

const DESK = { email: 'desk@example.test', password: 'desk-pass-123' };

describe('custom fields', () => {
	let server, browser, admin, loc, open;

	before(async () => {
		({ server, browser, admin, open } = await setUp());
		loc = admin.me.locations[0];
		await admin.post('/api/admin/users', { email: DESK.email, name: 'Desk', role: 'location_user',
			password: DESK.password, location_ids: [loc.id] });
	});

	after(() => tearDown(server, browser));

	const h1 = (page, name) => page.getByRole('heading', { level: 1, name, exact: true });
	const stored = async () => (await admin.get('/api/custom-fields?limit=1000', loc.id)).data;
	const names = (page) => page.locator('.f-field input[name="name"]').evaluateAll((els) => els.map((e) => e.value));

	test('a field is added, shown on a contact\'s form, renamed, moved and deleted', async () => {
		const { page, context, problems } = await open('/app/contacts?location=' + loc.id);
		await h1(page, 'Contacts').waitFor();
		await page.getByRole('link', { name: 'Custom fields' }).click();
		await h1(page, 'Custom fields').waitFor();
		const before = (await stored()).map((f) => f.name);
		assert.deepEqual(await names(page), before);

		const form = page.getByRole('form', { name: 'Add a field' });
		await form.getByLabel('Name').fill('Lead source');
		assert.equal(await form.getByLabel('Key').inputValue(), 'lead_source', 'a key from the name');
		await form.getByLabel('Key').fill('9lives');
		await form.getByLabel('Type').selectOption({ label: 'Choice of options' });
		await form.getByLabel('Options, one per line').fill('Web\nReferral\nWalk-in');
		await form.getByRole('button', { name: 'Add field' }).click();
		await form.getByText(/a lower-case letter, then letters/i).waitFor();
		await form.getByLabel('Key').fill('lead_source');
		await form.getByRole('button', { name: 'Add field' }).click();
		await page.getByRole('form', { name: 'Field Lead source' }).waitFor();
		const made = (await stored()).find((f) => f.key === 'lead_source');
		assert.equal(made.type, 'select');
		assert.deepEqual(made.options, ['Web', 'Referral', 'Walk-in']);
		assert.deepEqual(await names(page), [...before, 'Lead source']);
		await shoot(page, 'custom-fields');

		/* up one, kept after a reload */
		await page.getByRole('button', { name: 'Move Lead source up' }).click();
		const moved = [...before.slice(0, -1), 'Lead source', before[before.length - 1]];
		await until(async () => JSON.stringify(await names(page)) === JSON.stringify(moved), 10000, 'the move');
		await page.reload();
		await h1(page, 'Custom fields').waitFor();
		assert.deepEqual(await names(page), moved);
		assert.deepEqual((await stored()).map((f) => f.name), moved);

		const field = page.getByRole('form', { name: 'Field Lead source' });
		await field.getByLabel('Name').fill('Came from');
		await field.getByRole('button', { name: /^Save/ }).click();
		await page.getByRole('form', { name: 'Field Came from' }).waitFor();

		/* on a contact's form, as a choice */
		await page.goto('/app/contacts/new?location=' + loc.id);
		await h1(page, 'New contact').waitFor();
		const choice = page.getByLabel('Came from');
		assert.deepEqual(await choice.locator('option').allTextContents(), ['None', 'Web', 'Referral', 'Walk-in']);

		await page.goto('/app/contacts/fields?location=' + loc.id);
		await h1(page, 'Custom fields').waitFor();
		await page.getByRole('button', { name: 'Delete Came from' }).click();
		const asking = page.getByRole('alertdialog', { name: /^Delete the field Came from/ });
		await asking.getByRole('button', { name: 'Cancel' }).click();
		assert.ok((await stored()).some((f) => f.key === 'lead_source'), 'kept when the person says no');
		await page.getByRole('button', { name: 'Delete Came from' }).click();
		await asking.getByRole('button', { name: 'Delete field' }).click();
		await page.getByText('Field “Came from” deleted.').waitFor();
		assert.deepEqual(await names(page), before);
		assert.ok(!(await stored()).some((f) => f.key === 'lead_source'));
		await fitsAt(page, PHONE);
		assert.deepEqual(provoked(problems, /^422 POST \/api\/custom-fields$/), []);
		await context.close();
	});

	test('a sub-account\'s user has no custom fields page', async () => {
		const opener = signedInOpener(browser, server, DESK);
		const { page, context } = await opener('/app/contacts?location=' + loc.id);
		await h1(page, 'Contacts').waitFor();
		assert.equal(await page.getByRole('link', { name: 'Custom fields' }).count(), 0);
		await page.goto('/app/contacts/fields?location=' + loc.id);
		/* no page of that path for them: the contact page's, which finds no contact "fields" */
		await page.getByRole('heading', { level: 1 }).first().waitFor();
		assert.equal(await h1(page, 'Custom fields').count(), 0);
		await context.close();
	});
});

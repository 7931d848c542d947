// SPDX-License-Identifier: MIT
/*
 * The invoices pages (modules/invoices/webui/), as the server serves
 * them: an invoice made with two lines, its totals shown as they are typed
 * and then the server's, a line's error from the server next to its
 * field, sent, part paid and paid, its status and balance at each step and
 * after a reload; the list by status in the URL; the invoice alone on
 * paper; nothing sideways at phone width.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PHONE, provoked, scrollsSideways, setUp, shoot, tearDown, until } from './lib.mjs';

describe('invoices', () => {
	let server, browser, admin, loc, open;

	before(async () => {
		({ server, browser, admin, open } = await setUp());
		loc = admin.me.locations[0];
		await admin.post('/api/contacts', { first_name: 'Ottoline', last_name: 'Farrow', email: 'otto@farrow.test' }, loc.id);
	});

	after(() => tearDown(server, browser));

	const opened = (at = '/app/invoices?location=' + loc.id, options = {}) => open(at, options);

	const h1 = (page, name) => page.getByRole('heading', { level: 1, name, exact: true });
	const figure = (page, term) => page.locator('.v-totals dt', { hasText: new RegExp('^' + term + '$') })
		.locator('xpath=following-sibling::dd[1]').textContent();

	test('an invoice with two lines, sent, part paid and paid: its status and totals', async () => {
		const { page, context, problems } = await opened();
		await h1(page, 'Invoices').waitFor();
		await shoot(page, 'invoices');
		await page.getByRole('link', { name: 'New invoice' }).click();
		await h1(page, 'New invoice').waitFor();
		const who = page.getByLabel('Bill to');
		await who.fill('Ottol');
		const option = page.locator('datalist option');
		await until(async () => (await option.count()) === 1, 10000, 'the contact offered');
		await who.fill(await option.getAttribute('value'));
		const line = (i) => page.locator('.v-line').nth(i);
		await line(0).getByLabel('Description').fill('Website audit');
		await line(0).getByLabel('Qty').fill('2');
		await line(0).getByLabel('Unit price').fill('450');
		await line(0).getByLabel('Tax %').fill('10');
		await page.getByRole('button', { name: 'Add a line' }).click();
		/* an hour and a half: 1.5 × $80.33 is $120.495, $120.50 to the cent */
		await line(1).getByLabel('Qty').fill('1.5');
		await line(1).getByLabel('Unit price').fill('80.33');
		/* as typed, before the server has seen them */
		assert.equal(await line(0).locator('[data-amount]').textContent(), '$900');
		assert.equal(await figure(page, 'Subtotal'), '$1,020.50');
		assert.equal(await figure(page, 'Tax'), '$90');
		assert.equal(await figure(page, 'Total'), '$1,110.50');
		await shoot(page, 'invoice-draft');
		/* the second line has no description: the server says so, by it */
		await page.getByRole('button', { name: 'Create draft' }).click();
		const description = line(1).getByLabel('Description');
		await until(async () => await description.getAttribute('aria-invalid') === 'true', 10000, 'the line\'s error');
		assert.match(await page.locator('#' + await description.getAttribute('aria-describedby')).textContent(),
			/^Text of 1 to 500 characters/);
		await description.fill('Hosting, one year');
		await page.getByRole('button', { name: 'Create draft' }).click();
		await page.getByText('Draft', { exact: true }).waitFor();
		assert.equal(await figure(page, 'Total'), '$1,110.50', 'the server\'s total');
		assert.equal(await figure(page, 'Balance due'), 'Nothing until it is sent', 'a draft is not owed');

		/* nothing leaves by e-mail yet, and the page says so */
		await page.getByRole('button', { name: 'Mark as sent' }).click();
		await page.locator('.v-status', { hasText: 'Sent' }).waitFor();
		await page.getByText('Marked as sent. Nothing was e-mailed', { exact: false }).waitFor();
		assert.equal(await figure(page, 'Balance due'), '$1,110.50');
		const number = (await page.getByRole('heading', { level: 1 }).textContent()).trim();
		assert.match(number, /^INV-\d+$/);
		await page.getByLabel('Amount').fill('500');
		await page.getByLabel('Method').selectOption({ label: 'Bank transfer' });
		await page.getByRole('button', { name: 'Record payment' }).click();
		await page.locator('.v-status', { hasText: 'Part paid' }).waitFor();
		assert.equal(await figure(page, 'Paid'), '$500');
		assert.equal(await figure(page, 'Balance due'), '$610.50');
		await page.reload();
		await h1(page, number).waitFor();
		assert.equal(await figure(page, 'Balance due'), '$610.50', 'kept after a reload');
		await shoot(page, 'invoice');

		/* on paper: the invoice, not the app around it */
		await page.emulateMedia({ media: 'print' });
		assert.equal(await page.getByRole('navigation', { name: 'Main' }).isVisible(), false);
		assert.equal(await page.getByRole('button', { name: 'Record payment' }).isVisible(), false);
		assert.equal(await page.locator('.v-lines').isVisible(), true);
		await page.emulateMedia({ media: 'screen' });

		assert.equal(await page.getByLabel('Amount').inputValue(), '610.50', 'the balance offered');
		await page.getByRole('button', { name: 'Record payment' }).click();
		await page.locator('.v-status', { hasText: /^Paid$/ }).waitFor();
		assert.equal(await figure(page, 'Balance due'), '$0');

		await page.getByRole('link', { name: 'Invoices', exact: true }).first().click();
		await h1(page, 'Invoices').waitFor();
		await page.getByRole('radio', { name: 'Paid', exact: true }).check();
		await until(() => new URL(page.url()).searchParams.get('status') === 'paid', 10000, 'the status in the URL');
		await page.getByRole('link', { name: number }).waitFor();
		assert.deepEqual(provoked(problems, /^422 POST \/api\/invoices$/), []);
		await context.close();
	});

	test('at phone width nothing scrolls sideways', async () => {
		const { page, context, problems } = await opened(undefined, { viewport: PHONE });
		await h1(page, 'Invoices').waitFor();
		assert.equal(await scrollsSideways(page), false);
		await page.getByRole('link', { name: 'New invoice' }).click();
		await h1(page, 'New invoice').waitFor();
		assert.equal(await scrollsSideways(page), false);
		assert.deepEqual(problems, []);
		await context.close();
	});
});

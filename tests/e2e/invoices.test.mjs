// SPDX-License-Identifier: MIT
/*
 * The invoices pages (modules/invoices/webui/), as the server serves
 * them: an invoice made with two lines, its totals shown as they are typed
 * and then the server's, a line's error from the server next to its
 * field, sent, part paid and paid, its status and balance at each step and
 * after a reload; the list by status in the URL; the invoice alone on
 * paper; the agency's details and logo set in Settings and an invoice of
 * 1.5 hours with a note and terms, on the print and the client's public
 * view, sent by e-mail through a real SMTP relay; nothing sideways at
 * phone width.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PHONE, ROOT, provoked, scrollsSideways, setUp, shoot, tearDown, until } from './lib.mjs';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/* The relay (tests/integration/smtp_relay.py), serving until the file
 * ends: its port and certificate. */
async function startRelay() {
	const proc = spawn('python3', [join(ROOT, 'tests/integration/smtp_relay.py'), 'e2e-user', 'e2e-pass-1'],
		{ stdio: ['ignore', 'pipe', 'inherit'] });
	const [port, cert] = await new Promise((resolve, reject) => {
		let said = '';
		proc.stdout.on('data', (d) => {
			said += d;
			if (said.includes('\n'))
				resolve(said.trim().split(' '));
		});
		proc.once('exit', (code) => reject(new Error('the relay ended: ' + code)));
	});
	return { port, cert, stop: () => proc.kill() };
}

describe('invoices', () => {
	let server, browser, admin, loc, open, relay;

	before(async () => {
		relay = await startRelay();
		({ server, browser, admin, open } = await setUp({ settings: {
			email: 'smtp_url = smtp://127.0.0.1:' + relay.port + '\nsmtp_user = e2e-user\n' +
				'smtp_password = e2e-pass-1\nsmtp_ca_file = ' + relay.cert + '\n' } }));
		loc = admin.me.locations[0];
		await admin.post('/api/contacts', { first_name: 'Ottoline', last_name: 'Farrow', email: 'otto@farrow.test' }, loc.id);
		await admin.put('/api/email/settings', { from_name: 'Northwind', from_address: 'billing@northwind.test' }, loc.id);
	});

	after(async () => {
		await tearDown(server, browser);
		relay?.stop();
	});

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

	test('the agency\'s details and logo, 1.5 hours, a note and terms: on the print and the client\'s view, e-mailed', async () => {
		const before = await admin.get('/api/admin/agency');
		const { page, context, problems } = await opened('/app/settings?section=agency&location=' + loc.id);
		const form = page.getByRole('form', { name: 'The agency' });
		await form.getByLabel('Address').fill('1 Harbour Road\nCork T12 X000');
		await form.getByLabel('Billing e-mail').fill('billing@northwind.test');
		await form.getByLabel('Tax ID').fill('IE1234567T');
		await form.getByRole('button', { name: 'Save' }).click();
		await page.getByText('Saved.').waitFor();
		/* a red pixel, as PNG */
		const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');
		await page.getByLabel('Image').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: png });
		await page.getByText('Logo saved.').waitFor();
		await until(() => page.locator('.s-logo-img').evaluate((i) => i.complete && i.naturalWidth === 1), 10000, 'the logo shown');
		await shoot(page, 'settings-agency-business');

		/* a sub-account's own settings: what new invoices start with */
		await page.goto('/app/invoices?location=' + loc.id);
		await page.getByRole('link', { name: 'Invoice settings' }).click();
		await h1(page, 'Invoice settings').waitFor();
		await page.getByText('Left empty, invoices show the agency\'s: ' + before.name, { exact: false }).waitFor();
		await page.getByLabel('Terms on new invoices').fill('Payable within 14 days.');
		await page.getByRole('button', { name: 'Save' }).click();
		await page.getByText('Saved.').first().waitFor();
		await shoot(page, 'invoice-settings');

		await page.goto('/app/invoices/new?location=' + loc.id);
		await h1(page, 'New invoice').waitFor();
		const who = page.getByLabel('Bill to');
		await who.fill('Ottol');
		const option = page.locator('datalist option');
		await until(async () => (await option.count()) === 1, 10000, 'the contact offered');
		await who.fill(await option.getAttribute('value'));
		const line = page.locator('.v-line').first();
		await line.getByLabel('Description').fill('Strategy session');
		await line.getByLabel('Qty').fill('1.5');
		await line.getByLabel('Unit price').fill('120');
		await page.getByLabel('Client\'s address').fill('Farrow Studio\n8 Quay St, Galway');
		await page.getByLabel('Notes').fill('Thanks for a great kickoff!');
		assert.equal(await page.getByLabel('Terms').inputValue(), 'Payable within 14 days.', 'the sub-account\'s terms');
		await page.getByRole('button', { name: 'Create draft' }).click();
		await page.getByText('Draft', { exact: true }).waitFor();
		const sheet = page.locator('.v-sheet');
		for (const words of [before.name, 'Cork T12 X000', 'Tax ID: IE1234567T', 'Farrow Studio', '8 Quay St, Galway',
			'Strategy session', '1.5', 'Thanks for a great kickoff!', 'Payable within 14 days.'])
			await sheet.getByText(words, { exact: false }).first().waitFor();
		assert.equal(await figure(page, 'Total'), '$180');
		await until(() => sheet.locator('.v-logo').evaluate((i) => i.complete && i.naturalWidth === 1), 10000, 'the logo on the invoice');
		/* on paper: the business, the client's address, the notes and terms */
		await page.emulateMedia({ media: 'print' });
		for (const sel of ['.v-from', '.v-logo', '.v-address'])
			assert.equal(await sheet.locator(sel).first().isVisible(), true, sel + ' printed');
		assert.equal(await page.getByRole('button', { name: 'Send' }).isVisible(), false);
		await page.emulateMedia({ media: 'screen' });
		/* the same as a PDF, named by the number */
		const [pdf] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'PDF' }).click()]);
		assert.match(pdf.suggestedFilename(), /^INV-\d+\.pdf$/);

		/* Send: e-mailed through the relay, and sent once it has left */
		await page.getByRole('button', { name: 'Send', exact: true }).click();
		await page.getByText('E-mailed to otto@farrow.test', { exact: false }).waitFor({ timeout: 20000 });
		await page.locator('.v-status', { hasText: 'Sent' }).waitFor();
		await shoot(page, 'invoice-sent-by-mail');

		/* the client's view: no session, the same printout, the PDF */
		const href = await page.getByRole('link', { name: 'The client\'s view' }).getAttribute('href');
		assert.match(href, /^\/i\/[0-9a-f]{32}$/);
		const stranger = await browser.newContext({ baseURL: server.url });
		const view = await stranger.newPage();
		const seen = [];
		view.on('console', (m) => seen.push(m.text()));
		await view.goto(href);
		for (const words of [before.name, 'Farrow Studio', 'Strategy session', 'Thanks for a great kickoff!',
			'Payable within 14 days.', '$180.00'])
			await view.getByText(words, { exact: false }).first().waitFor();
		assert.equal(await view.locator('img').evaluate((i) => i.complete && i.naturalWidth === 1), true, 'the logo');
		const [theirs] = await Promise.all([view.waitForEvent('download'),
			view.getByRole('link', { name: 'Download PDF' }).click()]);
		assert.equal(theirs.suggestedFilename(), pdf.suggestedFilename());
		assert.deepEqual(seen, [], 'nothing refused by the page\'s policy');
		await view.evaluate(AXE); /* through the debugging protocol: the page's policy allows no script */
		const axe = await view.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] }))
			.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id));
		assert.deepEqual(axe, [], 'no serious or critical violation on the client\'s page');
		await shoot(view, 'invoice-public');
		await stranger.close();
		assert.deepEqual(problems, []);
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

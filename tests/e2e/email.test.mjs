// SPDX-License-Identifier: MIT
/*
 * E-mail through the email module, against a real SMTP server
 * (tests/integration/smtp_relay.py: STARTTLS and AUTH required): an admin
 * sets the sub-account's sender on the E-mail page, reached from
 * Channels, and sends a test that reports the relay's answer; in a
 * thread, the composer takes a subject and inserts a merge field, the
 * message ticks to Sent, and the thread shows the subject and the body
 * as the contact got it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ROOT, provoked, setUp, shoot, tearDown, until } from './lib.mjs';

/* The relay, serving until the file ends: its port and certificate. */
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

describe('email', () => {
	let server, browser, admin, open, loc, relay, conversation, contact;

	before(async () => {
		relay = await startRelay();
		({ server, browser, admin, open } = await setUp({ settings: {
			email: 'smtp_url = smtp://127.0.0.1:' + relay.port + '\nsmtp_user = e2e-user\n' +
				'smtp_password = e2e-pass-1\nsmtp_ca_file = ' + relay.cert + '\n' } }));
		loc = admin.me.locations[0];
		contact = await admin.post('/api/contacts', { first_name: 'Odile', last_name: 'Marchetti',
			email: 'odile@example.test' }, loc.id);
		conversation = await admin.post('/api/conversations', { contact_id: contact.id, channel: 'email' }, loc.id);
	});

	after(async () => {
		await tearDown(server, browser);
		relay?.stop();
	});

	test('the sender, set on the E-mail page; a test reports the relay\'s answer', async () => {
		const { page, context, problems } = await open('/app/channels?location=' + loc.id);
		await page.getByRole('link', { name: 'Set up e-mail' }).click();
		await page.getByRole('heading', { level: 1, name: 'E-mail' }).waitFor();
		await page.getByText('smtp://127.0.0.1:' + relay.port).waitFor();
		await page.getByLabel('Sender\'s name').fill('Clear Fitness');
		await page.getByLabel('Sender\'s address').fill('not an address');
		await page.getByRole('button', { name: 'Save' }).click();
		await page.getByText('not an e-mail address').waitFor();
		await page.getByLabel('Sender\'s address').fill('hello@clearfitness.example.test');
		await page.getByRole('button', { name: 'Save' }).click();
		await page.getByText('Saved. Mail that waited').waitFor();
		const settings = await admin.get('/api/email/settings', loc.id);
		assert.deepEqual([settings.from_name, settings.from_address, settings.reply_to],
			['Clear Fitness', 'hello@clearfitness.example.test', null]);
		assert.ok(!(await page.content()).includes('e2e-pass-1'), 'the relay\'s password is nowhere');
		await page.getByRole('textbox', { name: 'To', exact: true }).fill('owner@example.test');
		await page.getByRole('button', { name: 'Send a test' }).click();
		const outcome = page.getByRole('status').filter({ hasText: /Sent to|Not sent|not answered/ });
		await outcome.waitFor({ timeout: 40000 });
		assert.equal(await outcome.textContent(), 'Sent to owner@example.test. The relay took it.');
		/* the agency's key for the MTA, shown once */
		await page.getByRole('button', { name: 'Make the key' }).click();
		const key = page.locator('.em-secret');
		await key.waitFor();
		assert.match(await key.textContent(), /^[0-9a-f]{48}$/);
		await page.getByText('A key is made.').waitFor();
		assert.equal((await admin.get('/api/email/settings', loc.id)).inbound_key_set, true);
		await shoot(page, 'channels-email');
		assert.deepEqual(provoked(problems, /^422 PUT \/api\/email\/settings$/), []);
		await context.close();
	});

	test('a message with a subject and a merge field ticks to Sent', async () => {
		const thread = (page) => page.getByRole('region', { name: 'Odile Marchetti', exact: true });
		const { page, context, problems } = await open('/app/conversations/' + conversation.id + '?location=' + loc.id);
		await thread(page).waitFor();
		/* a text counts segments and has no subject; an e-mail the other way round */
		const subject = page.getByLabel('Subject');
		await page.getByLabel('Send as').selectOption('sms');
		assert.equal(await subject.isVisible(), false);
		await page.getByLabel('Send as').selectOption('email');
		await subject.fill('Your plan for March');
		await page.getByLabel('Reply', { exact: true }).fill('Hi ');
		await page.getByLabel('Insert').selectOption({ label: 'First name' });
		await page.getByLabel('Reply', { exact: true }).press('End');
		await page.getByLabel('Reply', { exact: true }).pressSequentially(', here is **your** plan.');
		assert.equal(await page.getByLabel('Reply', { exact: true }).inputValue(), 'Hi {{contact.first_name}}, here is **your** plan.');
		await page.getByLabel('Attach files').setInputFiles({ name: 'plan.pdf', mimeType: 'application/pdf',
			buffer: Buffer.from('%PDF-1.4 the plan') });
		await page.getByRole('button', { name: 'Send' }).click();
		/* the thread shows the e-mail as its reader sees it: Markdown rendered */
		const sent = thread(page).locator('.i-msg', { hasText: 'Hi Odile, here is your plan.' });
		await sent.getByText('Your plan for March').waitFor();
		assert.equal(await sent.locator('.i-body strong').textContent(), 'your');
		assert.equal((await sent.locator('.i-body').textContent()).includes('**'), false);
		/* the inbox's preview reads the same words */
		const row = page.locator('.i-item', { hasText: 'Odile Marchetti' }).locator('.i-preview');
		await until(async () => (await row.textContent()) === 'Hi Odile, here is your plan.', 10000, 'the preview');
		/* the file went with it, and can be downloaded from the thread by its name */
		const link = sent.getByRole('link', { name: 'plan.pdf (1 KB)' });
		const download = await Promise.all([page.waitForEvent('download'), link.click()]).then(([d]) => d);
		assert.equal(download.suggestedFilename(), 'plan.pdf');
		const { readFile } = await import('node:fs/promises');
		assert.equal(String(await readFile(await download.path())), '%PDF-1.4 the plan');
		await until(async () => (await sent.locator('.i-status').textContent()) === 'Sent', 10000, 'Sent');
		await shoot(page, 'email-thread');
		/* and the server's, when the inbox is drawn again */
		await page.reload();
		await thread(page).waitFor();
		assert.equal(await row.textContent(), 'Hi Odile, here is your plan.');
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('the contact page shows an opt-out, and one who asks again is allowed again', async () => {
		await admin.post('/api/opt-outs', { contact_id: contact.id, channel: 'email' }, loc.id);
		const { page, context, problems } = await open('/app/contacts/' + contact.id + '?location=' + loc.id);
		const allowed = page.getByRole('region', { name: 'Messages allowed' });
		await allowed.getByText('No E-mail').waitFor();
		await allowed.getByText('noted by a person').waitFor();
		await shoot(page, 'contact-consent');
		await allowed.getByRole('button', { name: 'Allow E-mail again' }).click();
		await allowed.getByText('has not opted out of any').waitFor();
		assert.deepEqual((await admin.get('/api/opt-outs?contact=' + contact.id, loc.id)).data, []);
		assert.deepEqual(problems, []);
		await context.close();
	});
});

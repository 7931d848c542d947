// SPDX-License-Identifier: MIT
/*
 * Texts through the sms module, against a local double of Twilio's API
 * (tests/integration/twilio_double.py): an admin sets the sub-account's
 * Twilio account on the SMS page, reached from Channels, and the token is
 * never shown again, and a test text says it works; the composer counts a text's segments; a text
 * written in a thread ticks from queued to Sent as it leaves; one Twilio refuses says why in the thread, and Retry
 * sends it again.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ROOT, setUp, shoot, tearDown, until } from './lib.mjs';

const SID = 'AC' + '0123456789abcdef'.repeat(2);
const TOKEN = 'e2e' + 'f'.repeat(29);

/* The double, serving until the file ends: its URL, and a way to ask it. */
async function startDouble() {
	const proc = spawn('python3', [join(ROOT, 'tests/integration/twilio_double.py'), SID, TOKEN],
		{ stdio: ['ignore', 'pipe', 'inherit'] });
	const url = await new Promise((resolve, reject) => {
		proc.stdout.once('data', (d) => resolve(String(d).trim()));
		proc.once('exit', (code) => reject(new Error('the Twilio double ended: ' + code)));
	});
	const ask = async (path, body) => (await fetch(url + path, body === undefined ? {}
		: { method: 'POST', body: JSON.stringify(body) })).json();
	return { url, ask, stop: () => proc.kill() };
}

describe('sms', () => {
	let server, browser, admin, open, loc, double, conversation;

	before(async () => {
		double = await startDouble();
		({ server, browser, admin, open } = await setUp({ settings: {
			sms: 'twilio_base_url = ' + double.url + '\n', conversations: 'retry_first_s = 1\n' } }));
		loc = admin.me.locations[0];
		const contact = await admin.post('/api/contacts', { first_name: 'Odile', last_name: 'Marchetti',
			phone: '+1 555 010 4477' }, loc.id);
		conversation = await admin.post('/api/conversations', { contact_id: contact.id, channel: 'sms' }, loc.id);
	});

	after(async () => {
		await tearDown(server, browser);
		double?.stop();
	});

	const thread = (page) => page.getByRole('region', { name: 'Odile Marchetti', exact: true });
	const messageOf = (page, text) => thread(page).locator('.i-msg', { hasText: text });

	test('the sub-account\'s Twilio account, set on the SMS page; the token never shown again', async () => {
		const { page, context, problems } = await open('/app/channels?location=' + loc.id);
		await page.getByRole('heading', { level: 1, name: 'Channels' }).waitFor();
		await shoot(page, 'channels');
		await page.getByRole('link', { name: 'Set up SMS' }).click();
		await page.getByRole('heading', { level: 1, name: 'SMS' }).waitFor();
		await page.getByLabel('Account SID').fill(SID);
		await page.getByLabel('Auth token').fill(TOKEN);
		await page.getByLabel('Sending number').fill('+1 555 010 0000');
		await page.getByRole('button', { name: 'Save' }).click();
		await page.getByText('Saved. Texts that waited').waitFor();
		const settings = await admin.get('/api/sms/settings', loc.id);
		assert.deepEqual([settings.account_sid, settings.from_number, settings.auth_token_set],
			[SID, '+15550100000', true]);
		await page.reload();
		await page.getByText('A token is set').waitFor();
		assert.equal(await page.getByLabel('Auth token').inputValue(), '');
		assert.equal(await page.getByLabel('Account SID').inputValue(), SID);
		assert.ok(!(await page.content()).includes(TOKEN), 'the token is nowhere in the page');
		/* without public_url, where replies would come is not known */
		await page.getByText('the server\'s operator sets public_url').waitFor();
		/* a test text shows the account works */
		const test = page.getByRole('form', { name: 'Send a test text' });
		await test.getByLabel('To').fill('+1 555 010 4477');
		await test.getByRole('button', { name: 'Send a test text' }).click();
		await test.getByText('Sent to +15550104477. The provider took it.').waitFor();
		await shoot(page, 'channels-sms');
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('a text ticks to Sent as it leaves; one refused says why, and Retry sends it', async () => {
		const { page, context, problems } = await open('/app/conversations/' + conversation.id + '?location=' + loc.id);
		await thread(page).waitFor();
		/* the composer counts a text's segments as a carrier will */
		const segments = thread(page).locator('.i-segments');
		await page.getByLabel('Reply', { exact: true }).fill('x'.repeat(155) + '{curly}');
		assert.equal(await segments.textContent(), '2 segments (GSM-7, 164 characters)');
		await page.getByLabel('Reply', { exact: true }).fill('Thanks 🙏');
		assert.equal(await segments.textContent(), '1 segment (Unicode because of “🙏”, 9 units)');
		await page.getByLabel('Reply', { exact: true }).fill('Your table for four is booked for 8 pm.');
		await page.getByRole('button', { name: 'Send' }).click();
		const first = messageOf(page, 'Your table for four');
		await until(async () => (await first.locator('.i-status').textContent()) === 'Sent', 10000, 'Sent');
		const kept = (await double.ask('/double/messages')).messages;
		assert.deepEqual(kept.map((m) => [m.form.To, m.form.Body]).slice(-1), /* after the page's test */
			[['+15550104477', 'Your table for four is booked for 8 pm.']]);

		await double.ask('/double/fail', { status: 400, code: 21610,
			message: 'Attempt to send to unsubscribed recipient', times: 1 });
		await page.getByLabel('Reply', { exact: true }).fill('Shall we keep it?');
		await page.getByRole('button', { name: 'Send' }).click();
		const second = messageOf(page, 'Shall we keep it?');
		await second.getByText('Twilio error 21610: Attempt to send to unsubscribed recipient').waitFor();
		assert.equal(await second.locator('.i-status').textContent(), 'Not sent');
		await shoot(page, 'sms-thread');
		await second.getByRole('button', { name: 'Retry' }).click();
		await until(async () => (await second.locator('.i-status').textContent()) === 'Sent', 10000, 'Sent after Retry');
		assert.equal(await second.getByRole('button', { name: 'Retry' }).count(), 0);
		assert.deepEqual(problems, []);
		await context.close();
	});
});

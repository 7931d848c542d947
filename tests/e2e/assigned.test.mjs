// SPDX-License-Identifier: MIT
/*
 * A user who sees only what is assigned to them ("assigned only"), in
 * the browser: every page of their menu and the record pages of others'
 * records show nothing of others': none of the e-mail addresses of the
 * sub-account's other contacts, none of its other deals' names, none of
 * its other invoices' numbers, which the same pages show an agency
 * administrator (so the walk can find them). Their own records are
 * there. Voiding their invoice asks first.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { apiAs, provoked, setUp, shoot, signedInOpener, tearDown, until } from './lib.mjs';

const OLGA = { email: 'olga@example.test', password: 'olga-pass-123' };

describe('assigned only', () => {
	let server, browser, admin, open, loc, olga, mine, theirs;

	before(async () => {
		({ server, browser, admin, open } = await setUp({ scale: 0.01 }));
		loc = admin.me.locations[0].id;
		const user = await admin.post('/api/admin/users', {
			email: OLGA.email, name: 'Olga Owens', password: OLGA.password, role: 'location_user',
			location_ids: [loc], assigned_only: true,
		});
		mine = await herRecords(user.id);
		theirs = await othersRecords(user.id, mine);
		olga = await apiAs(server, OLGA.email, OLGA.password);
	});

	after(() => tearDown(server, browser));

	/* Olga's contact with a deal, a task, a conversation and an invoice. */
	async function herRecords(owner) {
		const contact = await admin.post('/api/contacts', { first_name: 'Quilla', last_name: 'Marchbanks',
			email: 'quilla@marchbanks.test', owner_id: owner }, loc);
		const pipeline = (await admin.get('/api/pipelines', loc)).data[0];
		const deal = await admin.post('/api/opportunities', { name: 'Marchbanks retainer',
			pipeline_id: pipeline.id, stage_id: pipeline.stages[0].id, contact_id: contact.id,
			value_cents: 4200000, owner_id: owner }, loc);
		await admin.post('/api/tasks', { title: 'Call Quilla back', assignee_id: owner,
			contact_id: contact.id }, loc);
		const message = await admin.post('/api/conversations/inbound', { contact_id: contact.id,
			channel: 'sms', body: 'Quilla writes' }, loc);
		await admin.patch('/api/conversations/' + message.conversation_id, { assigned_to: owner }, loc);
		const invoice = await admin.post('/api/invoices', { contact_id: contact.id, items: [
			{ description: 'Marchbanks audit', quantity: 1, unit_price_cents: 123400 }] }, loc);
		await admin.post('/api/invoices/' + invoice.id + '/send', {}, loc);
		return { contact, deal, invoice, conversation: message.conversation_id };
	}

	/* What of others' the sub-account holds, and the words that name it. */
	async function othersRecords(owner, own) {
		const contacts = (await admin.get('/api/contacts?limit=1000', loc)).data
			.filter((c) => c.owner_id !== owner);
		const deals = [];
		for (const p of (await admin.get('/api/pipelines', loc)).data)
			for (const status of ['open', 'won', 'lost'])
				deals.push(...(await admin.get('/api/opportunities?pipeline=' + p.id + '&status=' + status
					+ '&per_stage=500', loc)).data.filter((d) => d.owner_id !== owner));
		const invoices = (await admin.get('/api/invoices?limit=1000', loc)).data
			.filter((i) => i.id !== own.invoice.id);
		const conversations = (await admin.get('/api/conversations?limit=100', loc)).data
			.filter((c) => c.id !== own.conversation);
		const words = [...contacts.map((c) => c.email).filter(Boolean), ...deals.map((d) => d.name),
			...invoices.map((i) => i.number)];
		assert.ok(contacts.length > 20 && deals.length > 5 && invoices.length > 2, 'the seed holds others\' records');
		return { contacts, deals, invoices, conversations, words };
	}

	/* The page's text once it has settled: the same for 150 ms. */
	async function settledText(page) {
		await page.getByRole('heading', { level: 1 }).first().waitFor();
		let text = '';
		await until(async () => {
			const before = text;
			await page.waitForTimeout(150);
			text = await page.locator('body').innerText();
			return text === before;
		}, 10000, 'the page to settle');
		return text;
	}

	/* The words of `theirs` that `text` holds (an id or number followed by
	 * a digit is another one). */
	const found = (text) => theirs.words.filter((w) => new RegExp(w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
		+ '(?![0-9])').test(text));

	/* Every page of the menu `who` is offered, and record pages of others'. */
	async function pagesOf(client) {
		const menu = (await client.get('/api/pages', loc)).data.filter((p) => !p.path.includes(':'));
		const records = [
			...theirs.contacts.slice(0, 3).map((c) => '/contacts/' + c.id),
			...theirs.deals.slice(0, 3).map((d) => '/opportunities/' + d.id),
			...theirs.invoices.slice(0, 3).map((i) => '/invoices/' + i.id),
			...theirs.conversations.slice(0, 3).map((c) => '/conversations/' + c.id),
		];
		return [...menu.map((p) => p.path), ...records];
	}

	test('no page shows others\' records; the same pages show them to an administrator', async () => {
		const paths = await pagesOf(olga);
		assert.ok(paths.includes('/dashboard') && paths.includes('/today') && paths.includes('/invoices'));
		assert.ok(!paths.some((p) => p.startsWith('/agency')), 'no screen of every record');
		const her = await signedInOpener(browser, server, OLGA)('/app?location=' + loc);
		const theAdmin = await open('/app?location=' + loc);
		const seen = {}, shown = {};
		for (const path of paths) {
			const at = '/app' + path + '?location=' + loc;
			await her.page.goto(at);
			const text = await settledText(her.page);
			seen[path] = found(text);
			if (path === '/contacts')
				assert.match(text, /Quilla/, 'her own contact is listed');
			if (path === '/invoices')
				assert.match(text, new RegExp(mine.invoice.number), 'her own invoice is listed');
			if (path === '/contacts' || path === '/invoices')
				await shoot(her.page, 'assigned-only' + path.replace('/', '-'));
			if (path.split('/').length > 2)
				continue; /* a record of others' shows them, whoever asks */
			await theAdmin.page.goto(at);
			shown[path] = found(await settledText(theAdmin.page));
		}
		for (const path of paths)
			assert.deepEqual(seen[path], [], 'Olga sees others\' records at ' + path);
		/* Her pages of others' records: the page's 404, as a record that is
		 * not there. */
		assert.deepEqual(provoked(her.problems,
			/^404 GET \/api\/(contacts|opportunities|invoices|conversations)\/[0-9]+(\/messages)?$/), []);
		const somewhere = Object.values(shown).reduce((n, w) => n + w.length, 0);
		assert.ok(somewhere > 20, 'the administrator sees them: the walk looks for what pages show');
		await her.context.close();
		await theAdmin.context.close();
	});

	test('voiding her invoice asks first; cancelled, it stays sent', async () => {
		const { page, context, problems } = await signedInOpener(browser, server, OLGA)(
			'/app/invoices/' + mine.invoice.id + '?location=' + loc);
		await page.getByRole('heading', { level: 1, name: mine.invoice.number }).waitFor();
		await page.getByRole('button', { name: 'Void' }).click();
		const ask = page.getByRole('alertdialog');
		await ask.waitFor();
		assert.match(await ask.textContent(), new RegExp('Void ' + mine.invoice.number + '\\?'));
		await ask.getByRole('button', { name: 'Cancel' }).click();
		await page.locator('.v-status', { hasText: 'Sent' }).waitFor();
		assert.equal((await olga.get('/api/invoices/' + mine.invoice.id, loc)).status, 'sent');
		assert.deepEqual(problems, []);
		await context.close();
	});
});

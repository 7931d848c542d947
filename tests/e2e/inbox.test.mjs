// SPDX-License-Identifier: MIT
/*
 * The conversations pages (modules/conversations/webui/), as the server
 * serves them: a thread opened from the inbox is read; a reply sent shows
 * in the thread and is still there after a reload; starring and the
 * unread filter, kept in the URL; a new conversation from a contact;
 * assigning and marking unread from the thread; a saved reply kept on its
 * page and put into a reply; at phone width the inbox and the thread show
 * one at a time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PHONE, provoked, scrollsSideways, setUp, shoot, tearDown, until } from './lib.mjs';

describe('conversations', () => {
	let server, browser, admin, loc, open, contact, other;

	before(async () => {
		({ server, browser, admin, open } = await setUp());
		loc = admin.me.locations[0];
		contact = await admin.post('/api/contacts', { first_name: 'Wilhelmina', last_name: 'Ostrava' }, loc.id);
		other = await admin.post('/api/contacts', { first_name: 'Bartholomew', last_name: 'Quince' }, loc.id);
		/* a message from the contact, unread: the newest of the inbox */
		await admin.post('/api/conversations/inbound', {
			contact_id: contact.id, channel: 'sms', body: 'Is the <b>offer</b> still on?',
		}, loc.id);
	});

	after(() => tearDown(server, browser));

	const opened = (at = '/app/conversations?location=' + loc.id, options = {}) => open(at, options);

	const h1 = (page, name) => page.getByRole('heading', { level: 1, name, exact: true });
	const thread = (page) => page.getByRole('region', { name: 'Wilhelmina Ostrava', exact: true });
	const conversationOf = async (id) => (await admin.get('/api/conversations?contact=' + id, loc.id)).data[0];

	test('a thread opened is read; a reply sent shows in it and stays after a reload', async () => {
		const { page, context, problems } = await opened();
		await h1(page, 'Conversations').waitFor();
		const entry = page.getByRole('link', { name: /^Wilhelmina Ostrava/ });
		await entry.waitFor();
		await shoot(page, 'inbox');
		assert.match(await entry.textContent(), /1 unread/);
		await entry.click();
		await thread(page).getByText('Is the <b>offer</b> still on?').waitFor();
		assert.equal(await entry.getAttribute('aria-current'), 'page');
		await until(async () => (await conversationOf(contact.id)).unread_count === 0, 10000, 'read');
		assert.doesNotMatch(await entry.textContent(), /unread/);

		await page.getByLabel('Reply', { exact: true }).fill('Yes, until Friday.');
		await page.getByRole('button', { name: 'Send' }).click();
		await thread(page).getByText('Yes, until Friday.').waitFor();
		assert.equal(await page.getByLabel('Reply', { exact: true }).inputValue(), '', 'the box is empty again');
		await shoot(page, 'conversation');
		await page.reload();
		await thread(page).getByText('Yes, until Friday.').waitFor();
		const messages = await thread(page).locator('.i-body').allTextContents();
		assert.deepEqual(messages.slice(-2), ['Is the <b>offer</b> still on?', 'Yes, until Friday.'], 'oldest at the top');
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('starred, and the inbox filtered to starred ones, kept in the URL', async () => {
		const { page, context, problems } = await opened();
		await h1(page, 'Conversations').waitFor();
		await page.getByRole('link', { name: /^Wilhelmina Ostrava/ }).click();
		const star = thread(page).getByRole('button', { name: 'Star' });
		await star.click();
		await until(async () => await star.getAttribute('aria-pressed') === 'true', 10000, 'starred');
		assert.equal((await conversationOf(contact.id)).starred, true);
		await page.getByRole('radio', { name: 'Starred' }).check();
		await until(() => new URL(page.url()).searchParams.get('starred') === '1', 10000, 'the filter in the URL');
		await until(async () => (await page.locator('.i-item').count()) === 1, 10000, 'only the starred one');
		await page.reload();
		await h1(page, 'Conversations').waitFor();
		assert.equal(await page.getByRole('radio', { name: 'Starred' }).isChecked(), true);
		assert.deepEqual(await page.locator('.i-item .i-name').allTextContents(), ['Wilhelmina Ostrava']);
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('unread first: those with unread messages at the top, kept in the URL', async () => {
		/* an old conversation with a message waiting, a read one answered just now */
		const all = (await admin.get('/api/conversations?limit=50', loc.id)).data;
		const waiting = all[all.length - 1];
		await admin.post('/api/conversations/inbound', { contact_id: waiting.contact_id, channel: waiting.channel,
			body: 'Are you open on Sunday?' }, loc.id);
		const answered = all.find((c) => c.id !== waiting.id && !c.unread_count);
		await admin.post('/api/conversations/' + answered.id + '/messages', { body: 'Thanks, see you then.' }, loc.id);
		const { page, context, problems } = await opened();
		await h1(page, 'Conversations').waitFor();
		await page.getByLabel('Order').selectOption({ label: 'Unread first' });
		await until(() => new URL(page.url()).searchParams.get('sort') === 'unread', 10000, 'the order in the URL');
		const want = (await admin.get('/api/conversations?sort=unread&limit=50', loc.id)).data;
		const unread = want.filter((c) => c.unread_count).length;
		assert.ok(unread > 0 && unread < want.length, 'read and unread ones to order');
		const names = () => page.locator('.i-item .i-name').allTextContents();
		await until(async () => JSON.stringify((await names()).slice(0, want.length)) ===
			JSON.stringify(want.map((c) => c.contact_name || 'Contact ' + c.contact_id)), 10000, 'the server\'s order');
		const marked = await page.locator('.i-item').evaluateAll((els) => els.map((a) => a.classList.contains('is-unread')));
		assert.deepEqual(marked.slice(0, want.length), want.map((c) => c.unread_count > 0));
		await page.reload();
		await h1(page, 'Conversations').waitFor();
		assert.equal(await page.getByLabel('Order').inputValue(), 'unread');
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('a new conversation from a contact, picked by typing', async () => {
		const { page, context, problems } = await opened();
		await h1(page, 'Conversations').waitFor();
		await page.getByRole('button', { name: 'New conversation' }).click();
		const form = page.getByRole('form', { name: 'New conversation' });
		await form.getByRole('button', { name: 'Open conversation' }).click();
		assert.equal(await form.getByLabel('Contact').getAttribute('aria-invalid'), 'true', 'a contact is needed');
		await form.getByLabel('Contact').fill('Barthol');
		const option = page.locator('datalist option');
		await until(async () => (await option.count()) === 1, 10000, 'the contact offered');
		await form.getByLabel('Contact').fill(await option.getAttribute('value'));
		await form.getByLabel('Channel').selectOption({ label: 'E-mail' });
		await form.getByRole('button', { name: 'Open conversation' }).click();
		const theirs = page.getByRole('region', { name: 'Bartholomew Quince', exact: true });
		await theirs.waitFor();
		assert.equal(await theirs.locator('.i-channel').textContent(), 'E-mail');
		await page.getByLabel('Reply', { exact: true }).fill('Welcome aboard!');
		await page.getByLabel('Subject').fill('Welcome to the studio');
		await page.getByLabel('Reply', { exact: true }).press('Control+Enter');
		await theirs.getByText('Welcome aboard!').waitFor();
		await theirs.getByText('Welcome to the studio').waitFor();
		assert.equal((await conversationOf(other.id)).channel, 'email');
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('assigned from the thread, then to no one; marked unread, it waits bold in the inbox', async () => {
		const { page, context, problems } = await opened();
		await h1(page, 'Conversations').waitFor();
		await page.getByRole('link', { name: /^Wilhelmina Ostrava/ }).click();
		const who = thread(page).getByLabel('Assigned to');
		await who.waitFor();
		const me = admin.me.user;
		await until(async () => (await who.locator('option').count()) > 1, 10000, 'the people offered');
		await who.selectOption({ label: me.name + ' (me)' });
		await page.getByText('Assigned to ' + me.name + '.').waitFor();
		await until(async () => (await conversationOf(contact.id)).assigned_to === me.id, 10000, 'assigned');
		await who.selectOption({ label: 'No one' });
		await until(async () => (await conversationOf(contact.id)).assigned_to === null, 10000, 'unassigned');
		await until(async () => (await conversationOf(contact.id)).unread_count === 0, 10000, 'read when opened');
		await thread(page).getByRole('button', { name: 'Mark unread' }).click();
		await page.getByText('Pick a conversation to read it and reply.').waitFor();
		assert.equal(new URL(page.url()).pathname, '/app/conversations', 'back to the inbox');
		assert.equal((await conversationOf(contact.id)).unread_count, 1);
		const entry = page.getByRole('link', { name: /^Wilhelmina Ostrava/ });
		await until(async () => /1 unread/.test(await entry.textContent()), 10000, 'shown unread');
		assert.match(await entry.getAttribute('class'), /is-unread/);
		assert.deepEqual(problems, []);
		await context.close();
	});

	test('a saved reply: added on its page with a field, put into a reply, sent with the name filled', async () => {
		const { page, context, problems } = await opened();
		await h1(page, 'Conversations').waitFor();
		await page.getByRole('link', { name: 'Saved replies' }).click();
		await h1(page, 'Saved replies').waitFor();
		await page.getByText('No saved replies yet.').waitFor();
		const add = page.getByRole('region', { name: 'New saved reply' });
		await add.getByRole('button', { name: 'Add saved reply' }).click();
		assert.equal(await add.getByLabel('Name', { exact: true }).getAttribute('aria-invalid'), 'true', 'a name is needed');
		await add.getByLabel('Name', { exact: true }).fill('Offer still on');
		await add.getByLabel('Words').fill('Hi ');
		await add.getByLabel('Insert').selectOption({ label: 'First name' });
		assert.equal(await add.getByLabel('Words').inputValue(), 'Hi {{contact.first_name}}', 'the field at the caret');
		await add.getByLabel('Words').press('End');
		await add.getByLabel('Words').pressSequentially(', the offer runs {{contact.nickname}}');
		await add.getByRole('button', { name: 'Add saved reply' }).click();
		await until(async () => await add.getByLabel('Words').getAttribute('aria-invalid') === 'true', 10000,
			'an unknown field refused beside the words');
		await add.getByLabel('Words').fill('Hi {{contact.first_name}}, the offer runs until Friday.');
		await add.getByRole('button', { name: 'Add saved reply' }).click();
		const listed = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Offer still on' }) });
		await listed.waitFor();
		assert.equal(await add.getByLabel('Name', { exact: true }).inputValue(), '', 'the form is empty again');
		await listed.getByRole('button', { name: 'Edit Offer still on' }).click();
		const edit = page.getByRole('form', { name: 'Edit Offer still on' });
		await edit.getByLabel('Name', { exact: true }).fill('Offer: until Friday');
		await edit.getByRole('button', { name: 'Save changes' }).click();
		await page.getByRole('heading', { name: 'Offer: until Friday' }).waitFor();
		await shoot(page, 'saved-replies');

		await page.goto(server.url + '/app/conversations?location=' + loc.id);
		await page.getByRole('link', { name: /^Wilhelmina Ostrava/ }).click();
		const saved = thread(page).getByLabel('Saved reply');
		await until(async () => (await saved.locator('option').count()) === 2, 10000, 'the saved reply offered');
		await saved.selectOption({ label: 'Offer: until Friday' });
		assert.equal(await page.getByLabel('Reply', { exact: true }).inputValue(), 'Hi {{contact.first_name}}, the offer runs until Friday.');
		await page.getByRole('button', { name: 'Send' }).click();
		await thread(page).getByText('Hi Wilhelmina, the offer runs until Friday.').waitFor();

		await page.goto(server.url + '/app/saved-replies?location=' + loc.id);
		const item = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Offer: until Friday' }) });
		await item.getByRole('button', { name: 'Delete Offer: until Friday' }).click();
		await item.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
		await page.getByText('No saved replies yet.').waitFor();
		assert.deepEqual((await admin.get('/api/saved-replies', loc.id)).data, []);
		assert.deepEqual(provoked(problems, /^422 POST \/api\/saved-replies$/), []);
		await context.close();
	});

	test('at phone width the inbox, then the thread alone; nothing scrolls sideways', async () => {
		const { page, context, problems } = await opened(undefined, { viewport: PHONE });
		await h1(page, 'Conversations').waitFor();
		assert.equal(await scrollsSideways(page), false);
		await page.getByRole('link', { name: /^Wilhelmina Ostrava/ }).click();
		await thread(page).waitFor();
		assert.equal(await page.locator('.i-inbox').isVisible(), false, 'the thread alone');
		assert.equal(await scrollsSideways(page), false);
		await page.getByRole('link', { name: 'Inbox' }).click();
		await page.locator('.i-inbox').waitFor();
		assert.deepEqual(problems, []);
		await context.close();
	});
});

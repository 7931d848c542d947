// SPDX-License-Identifier: MIT
/*
 * Live updates (webui/live.js and the pages that follow them): two people
 * of one sub-account, each in their own browser; what one does shows on
 * the other's pages without a reload, and a person of another sub-account
 * hears nothing of it. Then each page that follows changes (the inbox,
 * tasks, invoices, the dashboard) brought up to date by changes made
 * through the API. Last, a connection that drops: the header says so, and
 * once it is back the page catches up with what happened meanwhile.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setUp, shoot, signedInOpener, tearDown, until } from './lib.mjs';

describe('live updates', () => {
	let server, browser, admin, a, b, stages, deal, conversation;
	const people = {
		lena: { email: 'lena@example.test', password: 'lena-pass-1', name: 'Lena Live' },
		marc: { email: 'marc@example.test', password: 'marc-pass-1', name: 'Marc Live' },
		otto: { email: 'otto@example.test', password: 'otto-pass-1', name: 'Otto Elsewhere' },
	};
	const open = {};

	before(async () => {
		({ server, browser, admin } = await setUp());
		[a, b] = admin.me.locations;
		for (const [key, where] of [['lena', a], ['marc', a], ['otto', b]]) {
			const p = people[key];
			await admin.post('/api/admin/users', { email: p.email, name: p.name, password: p.password,
				role: 'location_user', location_ids: [where.id] });
			open[key] = signedInOpener(browser, server, p);
		}
		const pipeline = (await admin.get('/api/pipelines', a.id)).data[0];
		stages = pipeline.stages;
		const contact = await admin.post('/api/contacts', { first_name: 'Wren', last_name: 'Halloway' }, a.id);
		deal = await admin.post('/api/opportunities', { name: 'Halloway retainer', stage_id: stages[0].id,
			value_cents: 250000, contact_id: contact.id }, a.id);
		conversation = await admin.post('/api/conversations', { contact_id: contact.id, channel: 'sms' }, a.id);
	});

	after(() => tearDown(server, browser));

	const column = (page, i) => page.getByRole('region', { name: stages[i].name, exact: true });
	const card = (page, name) => page.locator('.b-card', { has: page.getByRole('link', { name, exact: true }) });
	const inColumn = async (page, i, name) => (await column(page, i).locator('.b-card-name').allTextContents()).includes(name);

	/* The frames a page's live WebSocket receives, parsed. */
	function framesOf(page) {
		const frames = [];
		page.on('websocket', (ws) => {
			if (ws.url().includes('/api/live'))
				ws.on('framereceived', (f) => frames.push(JSON.parse(f.payload)));
		});
		return frames;
	}

	/* Reloads would reset what a page shows: none may happen. */
	function loadsOf(page) {
		const loads = { n: 0 };
		page.on('load', () => loads.n++);
		return loads;
	}

	test('what one person does shows on the other\'s pages at once; another sub-account hears nothing', async () => {
		const boardAt = '/app/opportunities?location=' + a.id;
		const threadAt = '/app/conversations/' + conversation.id + '?location=' + a.id;
		const lenaBoard = await open.lena(boardAt);
		const lenaThread = await open.lena(threadAt);
		const marcBoard = await open.marc(boardAt);
		const marcThread = await open.marc(threadAt);
		const otto = await open.otto('/app/opportunities?location=' + b.id);
		const ottoFrames = framesOf(otto.page);
		await otto.page.reload();
		const loads = [loadsOf(lenaBoard.page), loadsOf(lenaThread.page)];
		for (const o of [lenaBoard, marcBoard])
			await card(o.page, deal.name).waitFor();
		await lenaThread.page.getByRole('heading', { name: 'Wren Halloway' }).waitFor();
		await until(() => ottoFrames.some((f) => f.type === 'hello'), 5000, "Otto's live connection");

		/* Marc moves the deal by keyboard, as the board's help says. */
		const moved = marcBoard.page.waitForResponse((r) => r.request().method() === 'PATCH');
		await card(marcBoard.page, deal.name).focus();
		await marcBoard.page.keyboard.press('Space');
		await marcBoard.page.keyboard.press('ArrowRight');
		await marcBoard.page.keyboard.press('Space');
		assert.equal((await moved).status(), 200);
		const movedAt = Date.now();
		await until(() => inColumn(lenaBoard.page, 1, deal.name), 10000, "the move on Lena's board");
		const moveSeen = Date.now() - movedAt;
		assert.ok(!(await inColumn(lenaBoard.page, 0, deal.name)), 'it left the first column');

		/* Marc sends a message from the thread. */
		const text = 'Retainer moved to the next stage, call you at 3';
		await marcThread.page.getByLabel('Reply', { exact: true }).fill(text);
		const sent = marcThread.page.waitForResponse((r) => r.request().method() === 'POST' && /\/messages$/.test(r.url()));
		await marcThread.page.getByRole('button', { name: 'Send' }).click();
		assert.equal((await sent).status(), 201);
		const sentAt = Date.now();
		const lenaMessages = lenaThread.page.locator('.i-messages');
		await until(async () => (await lenaMessages.textContent()).includes(text), 10000,
			"the message in Lena's thread");
		const messageSeen = Date.now() - sentAt;
		/* the inbox beside the thread says it too */
		await until(async () => (await lenaThread.page.locator('.i-list').textContent()).includes(text), 3000,
			"the message's preview in Lena's inbox");
		console.log('   seen by the other person after: move %d ms, message %d ms', moveSeen, messageSeen);
		assert.deepEqual(loads.map((l) => l.n), [0, 0], 'no page was reloaded');
		await shoot(lenaThread.page, 'live-thread');

		/* Otto, of the other sub-account, heard of none of it; what is
		 * done in his own sub-account reaches him. */
		await admin.post('/api/tasks', { title: 'A task in the other sub-account' }, b.id);
		await until(() => ottoFrames.some((f) => f.event === 'task.created'), 5000, "Otto's own sub-account's event");
		const events = ottoFrames.filter((f) => f.type === 'event');
		assert.ok(events.every((f) => f.location_id === b.id), JSON.stringify(events));
		assert.ok(!events.some((f) => /^(opportunity|message)\./.test(f.event)), JSON.stringify(events));
		for (const o of [lenaBoard, lenaThread, marcBoard, marcThread, otto])
			assert.deepEqual(o.problems, []);
	});

	test('the inbox, tasks, invoices and the dashboard follow changes made elsewhere', async () => {
		const here = a.id;
		const inbox = await open.lena('/app/conversations?location=' + here);
		const tasks = await open.lena('/app/tasks?location=' + here);
		const invoices = await open.lena('/app/invoices?location=' + here);
		const dashboard = await open.lena('/app/dashboard?location=' + here);
		await inbox.page.getByRole('heading', { name: 'Conversations', level: 1 }).waitFor();
		await tasks.page.getByRole('heading', { name: 'Tasks', level: 1 }).waitFor();
		await invoices.page.getByRole('heading', { name: 'Invoices', level: 1 }).waitFor();
		await dashboard.page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
		const figure = dashboard.page.locator('.dash-cards');
		const figuresBefore = await figure.textContent();

		const note = 'Sent from the API: the brief is attached';
		await admin.post('/api/conversations/' + conversation.id + '/messages', { body: note }, here);
		await until(async () => (await inbox.page.locator('.i-list').textContent()).includes(note), 5000,
			'the inbox showing the new message');

		const task = await admin.post('/api/tasks', { title: 'Call Wren about the retainer' }, here);
		await tasks.page.getByRole('button', { name: task.title }).waitFor({ timeout: 5000 });

		const contact = await admin.post('/api/contacts', { first_name: 'Ivo', last_name: 'Newcomb' }, here);
		const invoice = await admin.post('/api/invoices', { contact_id: contact.id, items: [
			{ description: 'Brand audit', quantity: 1, unit_price_cents: 90000 }] }, here);
		await invoices.page.getByRole('link', { name: invoice.number || 'Draft ' + invoice.id }).waitFor({ timeout: 5000 });

		/* A new contact moves the dashboard's figures, without dimming them. */
		await until(async () => (await figure.textContent()) !== figuresBefore, 5000, 'the dashboard\'s figures');
		await shoot(tasks.page, 'live-tasks');
		for (const o of [inbox, tasks, invoices, dashboard])
			assert.deepEqual(o.problems, []);
	});

	test('a dropped connection says so, comes back and catches up', async () => {
		const tasks = await open.lena('/app/tasks?location=' + a.id);
		const page = tasks.page;
		let allow = true;
		let current = null;
		let hello = false;
		const asked = [];
		await page.routeWebSocket(/\/api\/live/, (ws) => {
			asked.push(ws.url());
			if (!allow) {
				ws.close({ code: 4000, reason: 'the network is down' });
				return;
			}
			const server = ws.connectToServer();
			server.onMessage((m) => {
				hello = hello || /"type":"hello"/.test(m);
				ws.send(m);
			});
			current = ws;
		});
		await page.reload();
		await page.getByRole('heading', { name: 'Tasks', level: 1 }).waitFor();
		/* Dropped before its first hello, a WebSocket counts as blocked and
		 * the page turns to a stream, which this route does not stop. */
		await until(() => current !== null && hello, 5000, 'the live connection through the route');
		const status = page.locator('.top .live-down[role="status"]');
		assert.equal(await status.textContent(), '');

		allow = false;
		current.close({ code: 4000, reason: 'the network is down' });
		await until(async () => /Reconnecting/.test(await status.textContent()), 8000, 'the header saying so');
		await shoot(page, 'live-reconnecting');
		const task = await admin.post('/api/tasks', { title: 'Made while Lena was offline' }, a.id);
		allow = true;
		await page.getByRole('button', { name: task.title }).waitFor({ timeout: 15000 });
		await until(async () => (await status.textContent()) === '', 5000, 'the header quiet again');
		assert.ok(asked.slice(1).every((u) => /[?&]since=\d+/.test(u)), asked.join(' '));
		assert.deepEqual(tasks.problems, []);
	});
});

// SPDX-License-Identifier: MIT
/*
 * email.js: the e-mail page (/app/channels/email, reached from Channels),
 * for the sub-account's admins: the name and address its mail is from,
 * where replies go, and a test message through the server's relay, whose
 * outcome (sent, or the relay's words) shows when it comes. The relay is
 * the operator's, named here but set in the server's configuration. For
 * the agency's administrators, where the MTA hands over mail received,
 * and its key, made here and shown once.
 */

export default async function page(view, ctx) {
	const { html, api, ui } = ctx;
	let [settings] = await Promise.all([api.get('/api/email/settings'),
		ui.stylesheet(new URL('./email.css', import.meta.url))]);

	ctx.title('E-mail');
	view.append(html`
<p class="crumbs"><a href="${ctx.href('/channels')}">Channels</a></p>
<div class="page-head"><h1>E-mail</h1></div>
<p class="muted em-intro">${settings.relay
		? html`Mail leaves through this server's relay, <code>${settings.relay}</code>, from the sender set here.`
		: 'No relay is set up on this server, so e-mail waits. The server\'s operator sets smtp_url.'}</p>
<form class="card em-form" novalidate aria-label="Sender">
	<div class="field"><label for="em-name">Sender's name</label>
		<input id="em-name" name="from_name" maxlength="200" autocomplete="off" placeholder="Clear Fitness"></div>
	<div class="field"><label for="em-from">Sender's address</label>
		<input id="em-from" name="from_address" type="email" maxlength="254" autocomplete="off" required
			placeholder="hello@clearfitness.example"></div>
	<div class="field"><label for="em-reply">Replies go to</label>
		<input id="em-reply" name="reply_to" type="email" maxlength="254" autocomplete="off"
			aria-describedby="em-reply-note">
		<p id="em-reply-note" class="muted em-note">Leave empty for the sender's address.</p></div>
	<div class="em-actions"><button type="submit" class="btn btn-primary">Save</button></div>
</form>
<form class="card em-test" novalidate aria-label="Send a test">
	<h2>Send a test</h2>
	<div class="field"><label for="em-test-to">To</label>
		<input id="em-test-to" name="to" type="email" maxlength="254" autocomplete="email" required></div>
	<div class="em-actions"><button type="submit" class="btn">Send a test</button></div>
	<p class="test-outcome" role="status" aria-live="polite"></p>
</form>
${ctx.user.role === 'agency_admin' ? html`<section class="card em-inbound" aria-labelledby="em-in-h">
	<h2 id="em-in-h">Mail received</h2>
	<p>The server's mail transfer agent (Postfix, say) hands each message for a sender's address to
		<code>${settings.inbound_url}</code>, proved by the server's inbound key; the README shows the
		transport. <span class="em-key-state">${settings.inbound_key_set ? 'A key is made.' : 'No key is made yet, so no mail is taken.'}</span></p>
	<p class="em-key" role="status" aria-live="polite"></p>
	<button type="button" class="btn" data-key>${settings.inbound_key_set ? 'Make a new key' : 'Make the key'}</button>
</section>` : null}`);
	const form = view.querySelector('.em-form');
	const f = form.elements;
	const test = view.querySelector('.em-test');

	function fill() {
		f.from_name.value = settings.from_name || '';
		f.from_address.value = settings.from_address || '';
		f.reply_to.value = settings.reply_to || '';
	}
	fill();

	form.addEventListener('submit', async (e) => {
		e.preventDefault();
		ui.clearErrors(form);
		const body = { from_name: f.from_name.value.trim() || null, from_address: f.from_address.value.trim(),
			reply_to: f.reply_to.value.trim() || null };
		try {
			settings = await api.put('/api/email/settings', body);
		} catch (err) {
			if (!ctx.signal.aborted)
				ui.formErrors(form, err);
			return;
		}
		fill();
		ui.toast('Saved. Mail that waited for a sender is on its way.', { kind: 'success' });
	});

	/* The key is shown once: the server keeps only its hash. */
	const keyButton = view.querySelector('[data-key]');
	keyButton?.addEventListener('click', async () => {
		const shown = view.querySelector('.em-key');
		if (settings.inbound_key_set && !await ui.confirm(shown,
			'Make a new key? The MTA\'s old one stops working.', 'Make a new key'))
			return;
		try {
			const made = await api.post('/api/email/inbound-key', {});
			settings.inbound_key_set = true;
			view.querySelector('.em-key-state').textContent = 'A key is made.';
			shown.replaceChildren(html`Copy it now, it is not shown again: <code class="em-secret">${made.key}</code>`);
			keyButton.textContent = 'Make a new key';
		} catch (err) {
			if (!ctx.signal.aborted)
				ui.toast(err.message, { kind: 'error' });
		}
	});

	ui.testSending(test, api, '/api/email/tests', 'relay', ctx.signal);
}

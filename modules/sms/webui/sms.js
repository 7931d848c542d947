// SPDX-License-Identifier: MIT
/*
 * sms.js: the SMS page (/app/channels/sms, reached from Channels), for
 * the sub-account's admins: the Twilio account its texts go out with.
 * The account SID, and the auth token, which is written and never shown
 * again (the server says only that one is set; left empty, it is kept);
 * texts go from a number or from a messaging service, one of the two.
 * Saving sends what waited for the account; removing it makes texts wait.
 * A test text shows whether the account works, in the provider's words
 * when it does not.
 */

export default async function page(view, ctx) {
	const { html, api, ui } = ctx;
	let [settings] = await Promise.all([api.get('/api/sms/settings'),
		ui.stylesheet(new URL('./sms.css', import.meta.url))]);

	ctx.title('SMS');
	view.append(html`
<p class="crumbs"><a href="${ctx.href('/channels')}">Channels</a></p>
<div class="page-head"><h1>SMS</h1></div>
<p class="muted sms-intro">Texts go out through this sub-account's own Twilio account. The account SID and
	auth token are on the first page of the Twilio console.</p>
<form class="card sms-form" novalidate aria-label="Twilio account">
	<div class="field"><label for="sms-sid">Account SID</label>
		<input id="sms-sid" name="account_sid" maxlength="64" autocomplete="off" spellcheck="false" required
			placeholder="AC…"></div>
	<div class="field"><label for="sms-token">Auth token</label>
		<input id="sms-token" name="auth_token" type="password" maxlength="128" autocomplete="new-password"
			spellcheck="false" aria-describedby="sms-token-note">
		<p id="sms-token-note" class="muted sms-note"></p></div>
	<fieldset class="segmented sms-from"><legend>Send from</legend>
		<label><input type="radio" name="from" value="number"><span>A number</span></label>
		<label><input type="radio" name="from" value="service"><span>A messaging service</span></label>
	</fieldset>
	<div class="field" data-from="number"><label for="sms-number">Sending number</label>
		<input id="sms-number" name="from_number" type="tel" maxlength="40" autocomplete="off"
			placeholder="+15550102000"></div>
	<div class="field" data-from="service"><label for="sms-service">Messaging service SID</label>
		<input id="sms-service" name="messaging_service_sid" maxlength="64" autocomplete="off" spellcheck="false"
			placeholder="MG…"></div>
	<div class="sms-actions"><button type="submit" class="btn btn-primary">Save</button>
		<button type="button" class="btn btn-danger" data-remove>Remove account</button></div>
	<div class="sms-confirm"></div>
</form>
<form class="card sms-test" novalidate aria-label="Send a test text">
	<h2>Send a test text</h2>
	<div class="field"><label for="sms-test-to">To</label>
		<input id="sms-test-to" name="to" type="tel" maxlength="40" autocomplete="tel" required
			placeholder="+15550102000"></div>
	<div class="sms-actions"><button type="submit" class="btn">Send a test text</button></div>
	<p class="test-outcome" role="status" aria-live="polite"></p>
</form>
<section class="card sms-hook" aria-labelledby="sms-hook-h">
	<h2 id="sms-hook-h">Texts received</h2>
	${settings.inbound_url
		? html`<p>In the Twilio console, set the number's webhook for “A message comes in” to this address
			(HTTP POST):</p><p><code class="sms-url">${settings.inbound_url}</code></p>`
		: html`<p class="muted">Replies and delivery reports need the server's public address: the server's
			operator sets public_url.</p>`}
</section>`);
	const form = view.querySelector('.sms-form');
	const f = form.elements;

	function showFrom() {
		const from = f.from.value || 'number';
		for (const el of form.querySelectorAll('[data-from]'))
			el.hidden = el.dataset.from !== from;
	}

	function fill() {
		f.account_sid.value = settings.account_sid || '';
		f.auth_token.value = '';
		f.auth_token.required = !settings.auth_token_set;
		form.querySelector('#sms-token-note').textContent = settings.auth_token_set
			? 'A token is set. Leave this empty to keep it, or type a new one.'
			: 'Written once: it is never shown again.';
		f.from_number.value = settings.from_number || '';
		f.messaging_service_sid.value = settings.messaging_service_sid || '';
		f.from.value = settings.messaging_service_sid ? 'service' : 'number';
		form.querySelector('[data-remove]').hidden = !settings.account_sid;
		showFrom();
	}
	fill();
	form.querySelector('.sms-from').addEventListener('change', showFrom);

	form.addEventListener('submit', async (e) => {
		e.preventDefault();
		ui.clearErrors(form);
		const byNumber = f.from.value !== 'service';
		const body = {
			account_sid: f.account_sid.value.trim(),
			from_number: byNumber ? f.from_number.value.trim() : null,
			messaging_service_sid: byNumber ? null : f.messaging_service_sid.value.trim(),
		};
		if (f.auth_token.value)
			body.auth_token = f.auth_token.value.trim();
		try {
			settings = await api.put('/api/sms/settings', body);
		} catch (err) {
			if (!ctx.signal.aborted)
				ui.formErrors(form, err);
			return;
		}
		fill();
		ui.toast('Saved. Texts that waited for the account are on their way.', { kind: 'success' });
	});

	ui.testSending(view.querySelector('.sms-test'), api, '/api/sms/tests', 'provider', ctx.signal);

	form.querySelector('[data-remove]').addEventListener('click', async () => {
		if (!await ui.confirm(form.querySelector('.sms-confirm'),
			'Remove the Twilio account? Texts wait until another is set.', 'Remove account'))
			return;
		try {
			await api.del('/api/sms/settings');
			settings = await api.get('/api/sms/settings');
		} catch (err) {
			if (!ctx.signal.aborted)
				ui.toast(err.message, { kind: 'error' });
			return;
		}
		fill();
		ui.toast('The Twilio account was removed.', { kind: 'success' });
	});
}

// SPDX-License-Identifier: MIT
/*
 * settings-account.js: Settings' "Your account" section (settings.js):
 * the password changed, with the current one (every other device is then
 * signed out), and the devices signed in as the person, each signed out
 * with one button, or all but this one. What a device is comes from the
 * browser's own description, as it signed in; the address is the one it
 * came from. Given the page's state `s` and the section's element.
 */

/* "Chrome on macOS", from a User-Agent; what it does not know, less. */
export function deviceName(ua) {
	if (!ua)
		return 'A browser';
	const browser = [[/Edg\//, 'Edge'], [/OPR\//, 'Opera'], [/Firefox\//, 'Firefox'], [/Chrom(e|ium)\//, 'Chrome'],
		[/Safari\//, 'Safari']].find((x) => x[0].test(ua));
	const system = [[/iPhone|iPad/, 'iOS'], [/Android/, 'Android'], [/Windows/, 'Windows'], [/Mac OS X/, 'macOS'],
		[/CrOS/, 'ChromeOS'], [/Linux/, 'Linux']].find((x) => x[0].test(ua));
	if (browser && system)
		return browser[1] + ' on ' + system[1];
	return browser ? browser[1] : system ? system[1] : ua.slice(0, 60);
}

export async function account(s, part) {
	const { ctx } = s;
	const { html } = ctx;
	const sessions = (await ctx.api.get('/api/auth/sessions')).data || [];
	const others = sessions.filter((x) => !x.current).length;
	part.append(html`<h2 tabindex="-1">Your account</h2>
<p class="muted">${'Signed in as ' + ctx.user.name + ' (' + ctx.user.email + ').'}</p>
<form class="card s-form" novalidate aria-label="Change your password" autocomplete="on">
<input type="text" name="username" autocomplete="username" value="${ctx.user.email}" hidden>
<div class="field"><label for="s-pw-now">Current password</label>
	<input id="s-pw-now" name="current_password" type="password" autocomplete="current-password" required></div>
<div class="field"><label for="s-pw-new">New password</label>
	<input id="s-pw-new" name="new_password" type="password" autocomplete="new-password" minlength="8" required
		aria-describedby="s-pw-hint"></div>
<p id="s-pw-hint" class="muted s-hint">At least 8 characters. Your other devices are signed out when it changes.</p>
<button type="submit" class="btn btn-primary">Change password</button>
</form>
<h3 class="s-sub">Where you are signed in</h3>
<table class="table s-table s-sessions s-cards"><thead><tr><th scope="col">Device</th><th scope="col">Address</th>
<th scope="col">Signed in</th><th scope="col">Last active</th><th scope="col"><span class="visually-hidden">Sign out</span></th></tr></thead>
<tbody>${sessions.map((x) => html`<tr><td>${deviceName(x.user_agent)}${x.current ? html` <span class="muted">(this device)</span>` : null}</td>
<td data-label="Address">${x.client || 'Not known'}</td>
<td data-label="Signed in">${ctx.format.moment(x.created_at)}</td>
<td data-label="Last active">${ctx.format.when(x.active_at)}</td>
<td>${x.current ? null : html`<button type="button" class="btn btn-small" data-end="${x.id}">Sign out<span class="visually-hidden">${' ' + deviceName(x.user_agent) + ', ' + (x.client || '')}</span></button>`}</td></tr>`)}</tbody></table>
${others > 1 ? html`<button type="button" class="btn" data-end-others>Sign out every other device</button>` : null}`);
	changing(s, part.querySelector('form'));
	part.addEventListener('click', (e) => ending(s, e));
}

/* The password form sent: refused beside its field, or changed. */
function changing(s, form) {
	const { ctx } = s;
	const { ui } = ctx;
	form.addEventListener('submit', async (e) => {
		e.preventDefault();
		ui.clearErrors(form);
		const f = form.elements;
		if (!f.current_password.value)
			return ui.formErrors(form, { fields: { current_password: 'type the password you sign in with now' } });
		if (f.new_password.value.length < 8)
			return ui.formErrors(form, { fields: { new_password: 'at least 8 characters' } });
		if (form.getAttribute('aria-busy') === 'true')
			return null;
		form.setAttribute('aria-busy', 'true');
		try {
			await ctx.api.post('/api/auth/password', { current_password: f.current_password.value,
				new_password: f.new_password.value });
		} catch (err) {
			return ctx.signal.aborted ? null : ui.formErrors(form, err);
		} finally {
			form.removeAttribute('aria-busy');
		}
		if (ctx.signal.aborted)
			return null;
		ui.toast('Password changed. Your other devices are signed out.', { kind: 'success' });
		return s.open('account').catch(() => {});
	});
}

/* A device signed out, or every other one. */
async function ending(s, e) {
	const { ctx } = s;
	const b = e.target.closest('[data-end], [data-end-others]');
	if (!b)
		return;
	b.disabled = true;
	try {
		await ctx.api.del('/api/auth/sessions' + (b.dataset.end ? '/' + b.dataset.end : ''));
	} catch (err) {
		b.disabled = false;
		if (!ctx.signal.aborted)
			ctx.ui.toast('Not signed out: ' + err.message, { kind: 'error' });
		return;
	}
	if (ctx.signal.aborted)
		return;
	ctx.ui.toast(b.dataset.end ? 'That device is signed out.' : 'Every other device is signed out.', { kind: 'success' });
	await s.open('account', true).catch(() => {});
}

// SPDX-License-Identifier: MIT
/*
 * settings-links.js: a one-time link an admin was just given in People
 * (an invitation, a password reset; core/admin/links.c): the server's
 * sentence saying whether it was e-mailed or nothing was, and the link to
 * copy and hand over. It is shown this once: the server keeps only a hash.
 * When it is being e-mailed, the list of people is asked again until the
 * mail has left or failed, and the sentence says which.
 */

const SETTLED = ['sent', 'failed'];

/* The box for `made` ({id, link, expires_at, emailed, message}) of
 * person `user`, headed `title`, put after `where`; its input selected. */
export function showLink(ctx, where, title, made, user) {
	const { html, ui } = ctx;
	const box = html`<div class="s-new-token s-link" role="status">
<p><strong>${title}</strong> <span class="s-link-said">${made.message}</span></p>
<p><label for="s-link-value">The link</label>
<span class="s-link-row"><input id="s-link-value" readonly class="s-token-value" value="${made.link}">
<button type="button" class="btn" data-copy>Copy link</button></span></p>
<p class="muted">${'It works once, until ' + ctx.format.day(made.expires_at) + ' ' + ctx.format.time(made.expires_at) + '.'}</p>
</div>`.firstElementChild;
	where.after(box);
	const input = box.querySelector('input');
	box.querySelector('[data-copy]').addEventListener('click', async () => {
		input.select();
		try {
			await navigator.clipboard.writeText(input.value);
			ui.toast('Link copied.', { kind: 'success' });
		} catch (e) {
			ui.toast('Selected: copy it with Ctrl+C (⌘C).', { kind: 'info' });
		}
	});
	input.focus();
	input.select();
	if (made.emailed)
		followMail(ctx, box.querySelector('.s-link-said'), made, user);
	return box;
}

/* Says how link `made`'s e-mail ended, once it has (a few seconds). */
async function followMail(ctx, said, made, user) {
	for (let i = 0; i < 20 && said.isConnected && !ctx.signal.aborted; i++) {
		await new Promise((resolve) => setTimeout(resolve, 500 + i * 250));
		let list;
		try {
			list = await ctx.api.get('/api/admin/users');
		} catch (e) {
			return;
		}
		const k = ((list.data || []).find((u) => u.id === user) || {}).link;
		if (!k || k.id !== made.id || !SETTLED.includes(k.mail))
			continue;
		said.textContent = k.mail === 'sent' ? 'It was e-mailed to them.'
			: 'Nothing was e-mailed (' + k.mail_error + '): hand this link over yourself.';
		return;
	}
}

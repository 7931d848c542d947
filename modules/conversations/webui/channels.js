// SPDX-License-Identifier: MIT
/*
 * channels.js: the Channels page (/app/channels), for the sub-account's
 * admins: each channel messages go out on, whether this server has a
 * module that delivers it, and a link to that module's settings (its own
 * page, /app/channels/NAME). Channels no module delivers come after
 * those one does, so the ones to set up come first; past SMS and e-mail,
 * they are only named. A provider module ships its settings at
 * /channels/NAME, NAME its channel.
 */

export default async function page(view, ctx) {
	const { html, api, ui } = ctx;
	const [channels] = await Promise.all([api.get('/api/channels').then((r) => r.data),
		ui.stylesheet(new URL('./channels.css', import.meta.url))]);
	/* SMS and e-mail, which every sub-account uses, get a card even with
	 * no provider; other channels only once a module delivers them. */
	const carded = channels.filter((c) => c.provider || c.channel === 'sms' || c.channel === 'email');
	const ordered = carded.filter((c) => c.provider).concat(carded.filter((c) => !c.provider));
	const others = channels.filter((c) => !carded.includes(c)).map((c) => c.label);
	const upper = (s) => s.charAt(0).toUpperCase() + s.slice(1);

	ctx.title('Channels');
	view.append(html`
<div class="page-head"><h1>Channels</h1></div>
<p class="muted ch-intro">How this sub-account's messages reach its contacts. A channel is delivered by a module of
	this server; each sub-account brings its own account with the provider.</p>
<ul class="ch-list">${ordered.map((c) => html`<li class="card ch-item">
	<h2>${upper(c.label)}</h2>
	${c.provider
		? html`<p>Delivered by the <strong>${c.provider}</strong> module.</p>
			<a class="btn" href="${ctx.href('/channels/' + c.channel)}">Set up ${c.label}</a>`
		: html`<p class="muted">${'No ' + c.label + ' provider is set up on this server, so messages on this channel'
			+ ' wait. The server\'s operator enables a module that delivers it.'}</p>`}
</li>`)}</ul>
${others.length ? html`<p class="muted ch-others">${'Not delivered on this server: ' + others.join(', ') + '.'}</p>` : null}`);
}

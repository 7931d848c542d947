// SPDX-License-Identifier: MIT
// A test page: the first contacts of the sub-account, each a link to its
// record page. It uses only what ctx gives, as a module's page must.
export default async function page(view, ctx) {
	const rows = await ctx.api.list('/api/contacts', { limit: 25, sort: 'name' }).next();
	ctx.title('People');
	view.append(ctx.html`<div class="page-head"><h1>People</h1></div>
		<p class="muted">Contacts of ${ctx.location ? ctx.location.name : 'no sub-account'}</p>
		<ul class="people">${rows.map((c) => ctx.html`<li><a href="/app/people/${c.id}">${
			[c.first_name, c.last_name].filter(Boolean).join(' ')}</a></li>`)}</ul>`);
}

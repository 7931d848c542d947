// SPDX-License-Identifier: MIT
// A test page for a path with a parameter: /people/:id.
export default async function page(view, ctx) {
	const c = await ctx.api.get('/api/contacts/' + encodeURIComponent(ctx.params.id));
	const name = [c.first_name, c.last_name].filter(Boolean).join(' ');
	ctx.title(name);
	view.append(ctx.html`<h1>${name}</h1>
		<p>${c.email || 'No e-mail'}</p>
		<p><a href="/app/people">All people</a></p>`);
}

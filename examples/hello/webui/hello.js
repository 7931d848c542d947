// SPDX-License-Identifier: MIT
// hello.js: the hello module's page. It greets the signed-in user with
// what GET /api/hello/NAME answers (?name= in the URL greets someone
// else). Everything it gets from the server goes in as text: ctx.html
// escapes each value, so a name like <b>Ada</b> shows those characters.

export default async function page(view, ctx) {
	ctx.title('Hello');
	const name = ctx.query.get('name') || ctx.user.name;
	view.append(ctx.html`<h1>Hello</h1><p aria-live="polite"></p>`);
	const line = view.querySelector('p');
	try {
		const answer = await ctx.api.get('/api/hello/' + encodeURIComponent(name));
		line.textContent = answer.message;
	} catch (err) {
		line.textContent = 'No greeting: ' + err.message;
	}
}

// SPDX-License-Identifier: MIT
// A test page with nothing to load.
export default function page(view, ctx) {
	ctx.title('Notes');
	view.append(ctx.html`<h1>Notes</h1><p>Signed in as ${ctx.user.name}.</p>`);
}

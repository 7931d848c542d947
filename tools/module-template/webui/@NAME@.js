// SPDX-License-Identifier: MIT
// @NAME@.js: the @NAME@ module's page (made by hyperlevel new-module): the
// sub-account's notes, newest first, and a form to add one. Built into the
// web folder's modules/@NAME@/ by `make`; the server finds it through the
// module's pages (GET /api/pages) and loads it when /@NAME@ opens. What the
// server sends goes in as text: ctx.html escapes every value.

export default async function page(view, ctx) {
	ctx.title('@TITLE@');
	await ctx.ui.stylesheet(new URL('./@NAME@.css', import.meta.url));
	view.classList.add('@NAME@-page');
	view.append(ctx.html`<div class="page-head"><h1>@TITLE@</h1></div>
<form class="card" novalidate>
	<div class="field"><label for="@NAME@-body">Note</label>
		<textarea id="@NAME@-body" name="body" rows="3" maxlength="2000" required></textarea></div>
	<button type="submit" class="btn btn-primary">Add note</button>
</form>
<ul class="@NAME@-notes" aria-label="Notes"></ul>`);
	const form = view.querySelector('form');
	const list = view.querySelector('ul');

	async function show() {
		const answer = await ctx.api.get('/api/@NAME@/notes');
		list.replaceChildren();
		for (const note of answer.data)
			list.append(ctx.html`<li><p>${note.body}</p><p class="muted">${ctx.format.moment(note.created_at)}</p></li>`);
		if (!answer.data.length)
			list.append(ctx.html`<li class="muted">No notes yet.</li>`);
	}

	form.addEventListener('submit', async (event) => {
		event.preventDefault();
		try {
			await ctx.api.post('/api/@NAME@/notes', { body: form.elements.body.value.trim() });
			form.reset();
			ctx.ui.clearErrors(form);
			ctx.ui.toast('Note added.');
			await show();
		} catch (e) {
			ctx.ui.formErrors(form, e);
		}
	});
	await show();
}

// SPDX-License-Identifier: MIT
// A test page with a form: the server's 422 goes next to the field it
// names; a contact made is announced and opened.
export default function page(view, ctx) {
	ctx.title('New person');
	view.append(ctx.html`<h1>New person</h1>
		<form class="card" novalidate>
			<div class="field"><label for="np-first">First name</label>
				<input id="np-first" name="first_name" autocomplete="off"></div>
			<div class="field"><label for="np-email">E-mail</label>
				<input id="np-email" name="email" type="email" autocomplete="off"></div>
			<button type="submit" class="btn btn-primary">Create</button>
		</form>`);
	const form = view.querySelector('form');
	form.addEventListener('submit', async (event) => {
		event.preventDefault();
		ctx.ui.clearErrors(form);
		const body = { first_name: form.elements.first_name.value };
		if (form.elements.email.value)
			body.email = form.elements.email.value;
		try {
			const c = await ctx.api.post('/api/contacts', body);
			ctx.ui.toast('Contact created', { kind: 'success' });
			ctx.navigate('/people/' + c.id);
		} catch (e) {
			ctx.ui.formErrors(form, e);
		}
	});
}

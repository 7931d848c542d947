// SPDX-License-Identifier: MIT
/*
 * fields.js: the custom fields page (/app/contacts/fields), for the
 * sub-account's admins: the fields its contacts have beside their own
 * (a name, a key the API and CSV files use, a type: text, number, date,
 * a choice of options, a checkbox), in the order contact forms show
 * them. A field is added, renamed (and a choice's options changed), moved
 * up or down, and deleted after asking, since its values go with it.
 *
 * Each change is saved at once and the list drawn again from the server.
 * Every name is put in as text (ctx.html, textContent).
 */

const TYPES = [['text', 'Text'], ['number', 'Number'], ['date', 'Date'], ['select', 'Choice of options'],
	['checkbox', 'Checkbox']];
const typeName = (t) => (TYPES.find((x) => x[0] === t) || [t, t])[1];

/* "Monthly budget" -> "monthly_budget": a key as the API wants one. */
function keyOf(name) {
	const key = name.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '')
		.replace(/[^a-z0-9]+/g, '_').replace(/^[^a-z]+|_+$/g, '');
	return key.slice(0, 64);
}

/* Options typed one per line as the API's array (an option may hold a
 * comma: "1,000 to 5,000"). */
function optionsOf(text) {
	return text.split('\n').map((o) => o.trim()).filter(Boolean);
}

/* Field `f`, the i-th of `count`, as a form to change it. */
function row(html, f, i, count) {
	const id = 'f-' + f.id;
	return html`<li class="card f-field" data-field="${f.id}">
<form class="f-edit" novalidate aria-label="${'Field ' + f.name}">
	<div class="field"><label for="${id + '-name'}">Name</label>
		<input id="${id + '-name'}" name="name" value="${f.name}" maxlength="100" required autocomplete="off"></div>
	<p class="f-meta"><span class="muted">Key</span> <code>${f.key}</code> · ${typeName(f.type)}</p>
	${f.type === 'select' ? html`<div class="field f-options-edit"><label for="${id + '-options'}">Options, one per line</label>
		<textarea id="${id + '-options'}" name="options" rows="3"></textarea></div>` : null}
	<div class="f-actions">
		<button type="submit" class="btn btn-small">Save<span class="visually-hidden">${' ' + f.name}</span></button>
		<button type="button" class="btn btn-small btn-quiet" data-move="-1" disabled="${i === 0}"
			aria-label="${'Move ' + f.name + ' up'}">Up</button>
		<button type="button" class="btn btn-small btn-quiet" data-move="1" disabled="${i === count - 1}"
			aria-label="${'Move ' + f.name + ' down'}">Down</button>
		<button type="button" class="btn btn-small btn-danger" data-delete
			aria-label="${'Delete ' + f.name}">Delete</button>
	</div>
</form></li>`;
}

export default async function page(view, ctx) {
	const { html, api, ui } = ctx;
	const at = ctx.href;
	let [list] = await Promise.all([api.get('/api/custom-fields', { limit: 1000 }),
		ui.stylesheet(new URL('./contacts.css', import.meta.url))]);

	ctx.title('Custom fields');
	view.classList.add('fields-page');
	view.append(html`
<p class="crumbs"><a href="${at('/contacts')}">Contacts</a></p>
<div class="page-head"><h1>Custom fields</h1></div>
<p class="muted f-intro">What your contacts have beside a name, e-mail and phone. Each field shows on every
	contact's page and form, in this order; its key names it in the API and in CSV files.</p>
<form class="card f-new" novalidate aria-label="Add a field">
	<div class="field"><label for="f-name">Name</label><input id="f-name" name="name" maxlength="100" required autocomplete="off"></div>
	<div class="field"><label for="f-key">Key</label><input id="f-key" name="key" maxlength="64" required autocomplete="off"
		spellcheck="false" pattern="[a-z][a-z0-9_]*"></div>
	<div class="field"><label for="f-type">Type</label><select id="f-type" name="type">
		${TYPES.map((t) => html`<option value="${t[0]}">${t[1]}</option>`)}</select></div>
	<div class="field f-options" hidden><label for="f-options">Options, one per line</label>
		<textarea id="f-options" name="options" rows="3"></textarea></div>
	<div class="f-actions"><button type="submit" class="btn btn-primary">Add field</button></div>
</form>
<div class="f-confirm"></div>
<ul class="f-list"></ul>`);
	const add = view.querySelector('.f-new');
	const listEl = view.querySelector('.f-list');
	let keyTyped = false;

	function draw(focus) {
		listEl.textContent = '';
		if (!list.data.length)
			listEl.append(html`<li class="muted f-none">No custom fields yet.</li>`);
		listEl.append(html`${list.data.map((f, i) => row(html, f, i, list.data.length))}`);
		/* a textarea's text is its value, set here (the template cannot) */
		for (const f of list.data) {
			const box = listEl.querySelector('[data-field="' + f.id + '"] textarea');
			if (box)
				box.value = (f.options || []).join('\n');
		}
		/* the first of the selectors (one or a list) that finds something */
		const target = [].concat(focus || []).map((f) => view.querySelector(f)).find(Boolean);
		if (target)
			target.focus();
	}

	async function reload(focus) {
		list = await api.get('/api/custom-fields', { limit: 1000 });
		if (!ctx.signal.aborted)
			draw(focus);
	}

	/* Runs a change; on success says `done` and draws the list again. */
	async function save(work, done, focus, form) {
		try {
			await work();
		} catch (e) {
			if (ctx.signal.aborted)
				return;
			if (form)
				ui.formErrors(form, e);
			else
				ui.toast(e.message, { kind: 'error' });
			return;
		}
		ui.toast(done, { kind: 'success' });
		await reload(focus);
	}

	add.elements.name.addEventListener('input', () => {
		if (!keyTyped)
			add.elements.key.value = keyOf(add.elements.name.value);
	});
	add.elements.key.addEventListener('input', () => { keyTyped = !!add.elements.key.value; });
	add.elements.type.addEventListener('change', () => {
		add.querySelector('.f-options').hidden = add.elements.type.value !== 'select';
	});
	add.addEventListener('submit', (e) => {
		e.preventDefault();
		ui.clearErrors(add);
		const f = add.elements;
		const field = { name: f.name.value.trim(), key: f.key.value.trim(), type: f.type.value,
			position: list.data.reduce((most, x) => Math.max(most, x.position + 1), 0) };
		if (field.type === 'select')
			field.options = optionsOf(f.options.value);
		save(() => api.post('/api/custom-fields', field), 'Field “' + field.name + '” added.', '#f-name', add)
			.then(() => {
				if (!add.querySelector('.field-error, .form-error')) {
					add.reset();
					keyTyped = false;
					add.querySelector('.f-options').hidden = true;
				}
			});
	});

	listEl.addEventListener('submit', (e) => {
		e.preventDefault();
		const form = e.target;
		const id = form.closest('[data-field]').dataset.field;
		ui.clearErrors(form);
		const change = { name: form.elements.name.value.trim() };
		if (form.elements.options)
			change.options = optionsOf(form.elements.options.value);
		save(() => api.patch('/api/custom-fields/' + id, change), 'Saved.', '#f-' + id + '-name', form);
	});

	listEl.addEventListener('click', async (e) => {
		const b = e.target.closest('button[data-move], button[data-delete]');
		if (!b)
			return;
		const id = Number(b.closest('[data-field]').dataset.field);
		const f = list.data.find((x) => x.id === id);
		if (b.hasAttribute('data-delete')) {
			const yes = await ui.confirm(view.querySelector('.f-confirm'), 'Delete the field ' + f.name +
				' and every contact\u2019s value of it?', 'Delete field');
			if (yes)
				save(() => api.del('/api/custom-fields/' + id), 'Field “' + f.name + '” deleted.', '#f-name');
			return;
		}
		const by = Number(b.dataset.move);
		const order = list.data.slice();
		const at = order.indexOf(f);
		order.splice(at + by, 0, order.splice(at, 1)[0]);
		save(() => ui.renumber(order, (x, position) => api.patch('/api/custom-fields/' + x.id, { position })),
			'Order saved.', ['[data-field="' + id + '"] [data-move="' + by + '"]:not([disabled])',
			'[data-field="' + id + '"] [data-move="' + -by + '"]']);
	});

	draw();
}

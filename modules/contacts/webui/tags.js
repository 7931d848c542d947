// SPDX-License-Identifier: MIT
/*
 * tags.js: the tags page (/app/contacts/tags), for the sub-account's
 * admins: every tag with the number of contacts carrying it. A tag is
 * renamed, merged into another (its contacts get the other one, and it
 * goes: "patient" and "Patients" made one), or deleted after asking (it
 * comes off every contact).
 *
 * Each change is saved at once and the list drawn again from the server.
 * Every name is put in as text (ctx.html, textContent).
 */

/* Tag `t` as a form to rename, merge or delete it; `all` the others. */
function row(ctx, t, all) {
	const { html } = ctx;
	const id = 't-' + t.id;
	const count = ctx.format.number(Number(t.contacts || 0));
	return html`<li class="card t-tag" data-tag="${String(t.id)}">
<form class="t-edit" novalidate aria-label="${'Tag ' + t.name}">
	<div class="field"><label for="${id + '-name'}">Name <span class="muted">${'· ' + count + (Number(t.contacts) === 1 ? ' contact' : ' contacts')}</span></label>
		<input id="${id + '-name'}" name="name" value="${t.name}" maxlength="64" required autocomplete="off"></div>
	<div class="field"><label for="${id + '-into'}">Merge into</label>
		<select id="${id + '-into'}" name="into"><option value="">Choose a tag</option>
		${all.filter((o) => o.id !== t.id).map((o) => html`<option value="${String(o.id)}">${o.name}</option>`)}</select></div>
	<div class="f-actions">
		<button type="submit" class="btn btn-small">Rename<span class="visually-hidden">${' ' + t.name}</span></button>
		<button type="button" class="btn btn-small" data-merge aria-label="${'Merge ' + t.name}">Merge</button>
		<button type="button" class="btn btn-small btn-danger" data-delete aria-label="${'Delete ' + t.name}">Delete</button>
	</div>
</form><div class="t-confirm"></div></li>`;
}

export default async function page(view, ctx) {
	const { html, api, ui } = ctx;
	let [list] = await Promise.all([api.get('/api/tags'),
		ui.stylesheet(new URL('./contacts.css', import.meta.url))]);

	ctx.title('Tags');
	view.append(html`
<p class="crumbs"><a href="${ctx.href('/contacts')}">Contacts</a></p>
<div class="page-head"><h1>Tags</h1></div>
<p class="muted f-intro">The tags of this sub-account's contacts. Rename one, merge two that mean the same
	(the contacts of the first get the second), or delete one: it comes off every contact.</p>
<ul class="f-list t-list"></ul>`);
	const listEl = view.querySelector('.f-list');

	function draw(focus) {
		listEl.textContent = '';
		if (!list.data.length)
			listEl.append(html`<li class="muted f-none">No tags yet. Tag contacts from their page, the list or an import.</li>`);
		listEl.append(html`${list.data.map((t) => row(ctx, t, list.data))}`);
		const target = focus && view.querySelector(focus);
		if (target)
			target.focus();
	}

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
		list = await api.get('/api/tags');
		if (!ctx.signal.aborted)
			draw(focus);
	}

	listEl.addEventListener('submit', (e) => {
		e.preventDefault();
		const form = e.target;
		const id = form.closest('[data-tag]').dataset.tag;
		ui.clearErrors(form);
		const name = form.elements.name.value.trim();
		save(() => api.patch('/api/tags/' + id, { name }), 'Renamed to “' + name + '”.', '#t-' + id + '-name', form);
	});

	listEl.addEventListener('click', async (e) => {
		const b = e.target.closest('button[data-merge], button[data-delete]');
		if (!b)
			return;
		const form = b.closest('form');
		const id = Number(b.closest('[data-tag]').dataset.tag);
		const t = list.data.find((x) => x.id === id);
		ui.clearErrors(form);
		if (b.hasAttribute('data-merge')) {
			const into = list.data.find((x) => String(x.id) === form.elements.into.value);
			if (!into) {
				ui.formErrors(form, { fields: { into: 'choose the tag to merge it into' } });
				return;
			}
			save(() => api.post('/api/tags/' + id + '/merge', { into: into.id }),
				'“' + t.name + '” merged into “' + into.name + '”.', '#t-' + into.id + '-name', form);
			return;
		}
		const yes = await ui.confirm(b.closest('[data-tag]').querySelector('.t-confirm'), 'Delete the tag ' + t.name +
			' from ' + ctx.format.number(Number(t.contacts || 0)) + ' contacts?', 'Delete tag');
		if (yes)
			save(() => api.del('/api/tags/' + id), 'Tag “' + t.name + '” deleted.');
	});

	draw();
}

// SPDX-License-Identifier: MIT
/*
 * record.js: a contact's page, /app/contacts/:id. Its name and details,
 * custom fields, tags (add, remove), notes (list, add, delete) and the
 * activity other modules report; Edit turns the details into the form of
 * form.js, Delete asks in place and goes back to the list.
 *
 * A contact that does not exist (or is another sub-account's) makes the
 * page function throw the API's 404, and the shell says "Not found".
 * Loaded by contacts.js; gets its helpers as `lib`.
 */

const NOTES_PAGE = 20;

const KINDS = {
	message: 'Messages', conversation: 'Conversations', task: 'Tasks',
	opportunity: 'Deals', invoice: 'Invoices', appointment: 'Appointments',
};

export default async function record(view, ctx, lib) {
	const { html, api, ui } = ctx;
	const id = ctx.params.id;
	const path = '/api/contacts/' + encodeURIComponent(id);
	const [contact, fieldList] = await Promise.all([
		api.get(path),
		api.get('/api/custom-fields', { limit: 1000 }).catch(() => null),
	]);
	const fields = (fieldList && fieldList.data) || [];
	let c = contact;
	let left = false;
	let notes = api.list(path + '/notes', { limit: NOTES_PAGE });
	const firstNotes = await notes.next().catch(() => null);

	view.classList.add('contacts', 'c-record');
	view.append(html`
<nav class="crumbs" aria-label="Breadcrumb"><a href="${ctx.href('/contacts')}">Contacts</a></nav>
<div class="page-head r-head">
	<span class="avatar avatar-lg" aria-hidden="true"></span>
	<div class="r-title"><h1></h1><p class="r-lead muted"></p></div>
	<div class="c-actions">
		<button type="button" class="btn" data-edit>Edit</button>
		<button type="button" class="btn btn-danger" data-delete>Delete</button>
	</div>
</div>
<div class="r-confirm"></div>
<div class="r-grid">
	<div class="r-main">
		<section class="card" aria-labelledby="r-details-h">
			<h2 id="r-details-h">Details</h2>
			<div class="r-details"></div>
		</section>
		<section class="card" aria-labelledby="r-notes-h">
			<h2 id="r-notes-h">Notes</h2>
			<form class="r-note-form">
				<div class="field">
					<label for="r-note">New note</label>
					<textarea id="r-note" name="body" rows="3" maxlength="10000"></textarea>
				</div>
				<button type="submit" class="btn btn-primary">Add note</button>
			</form>
			<ul class="r-notes"></ul>
			<p class="r-notes-more"><button type="button" class="btn" data-older hidden>Show older notes</button></p>
		</section>
	</div>
	<div class="r-side">
		<section class="card" aria-labelledby="r-tags-h">
			<h2 id="r-tags-h">Tags</h2>
			<ul class="r-tags" aria-label="Tags of this contact"></ul>
			<form class="r-tag-form">
				<label for="r-tag">Add a tag</label>
				<div class="r-inline">
					<input id="r-tag" name="tag" list="r-tag-names" autocomplete="off" maxlength="64">
					<datalist id="r-tag-names"></datalist>
					<button type="submit" class="btn">Add</button>
				</div>
			</form>
		</section>
		<section class="card" aria-labelledby="r-activity-h">
			<h2 id="r-activity-h">Activity</h2>
			<div class="r-activity"></div>
		</section>
	</div>
</div>`);

	const el = {
		avatar: view.querySelector('.avatar'),
		h1: view.querySelector('h1'),
		lead: view.querySelector('.r-lead'),
		edit: view.querySelector('[data-edit]'),
		del: view.querySelector('[data-delete]'),
		confirm: view.querySelector('.r-confirm'),
		details: view.querySelector('.r-details'),
		noteForm: view.querySelector('.r-note-form'),
		notes: view.querySelector('.r-notes'),
		older: view.querySelector('[data-older]'),
		tags: view.querySelector('.r-tags'),
		tagForm: view.querySelector('.r-tag-form'),
		tagNames: view.querySelector('#r-tag-names'),
		activity: view.querySelector('.r-activity'),
	};

	/* ---- the head and the details ---- */
	function head() {
		const name = lib.fullName(c);
		ctx.title(name);
		el.h1.textContent = name;
		el.avatar.textContent = lib.initials(c);
		el.lead.textContent = [c.company_name, c.email].filter(Boolean).join(' · ');
	}

	function fieldValue(f, v) {
		if (v == null || v === '')
			return null;
		if (f.type === 'checkbox')
			return v ? 'Yes' : 'No';
		if (f.type === 'date')
			return ctx.format.day(v) || v;
		if (f.type === 'number' && typeof v === 'number')
			return ctx.format.number(v);
		return String(v);
	}

	function details() {
		const none = html`<span class="muted">Not set</span>`;
		const row = (label, value) => html`<div class="r-row"><dt>${label}</dt><dd>${value == null || value === '' ? none.cloneNode(true) : value}</dd></div>`;
		const custom = c.custom_fields || {};
		el.details.textContent = '';
		el.details.append(html`<dl class="r-dl">
			${row('E-mail', c.email ? html`<a href="${'mailto:' + c.email}">${c.email}</a>` : null)}
			${row('Phone', c.phone ? html`<a href="${'tel:' + c.phone.replace(/[^\d+]/g, '')}">${c.phone}</a>` : null)}
			${row('First name', c.first_name)}
			${row('Last name', c.last_name)}
			${row('Company', c.company_name)}
			${row('Source', c.source)}
			${row('Health score', c.health_score == null ? null : String(c.health_score) + ' of 100')}
			${row('Created', ctx.format.moment(c.created_at))}
			${row('Updated', ctx.format.moment(c.updated_at))}
		</dl>
		${fields.length ? html`<h3 class="r-sub">Custom fields</h3><dl class="r-dl">
			${fields.map((f) => row(f.name, fieldValue(f, custom[f.key])))}</dl>` : null}`);
	}

	/* ---- editing ---- */
	let editing = false;
	async function edit() {
		if (editing)
			return;
		editing = true;
		el.edit.disabled = true;
		let form;
		try {
			form = await import('./form.js');
		} catch (err) {
			editing = false;
			el.edit.disabled = false;
			ui.toast('The form could not be loaded: ' + err.message, { kind: 'error' });
			return;
		}
		if (left)
			return;
		const f = form.contactForm(ctx, c, fields, 'Save changes');
		f.setAttribute('aria-label', 'Edit ' + lib.fullName(c));
		el.details.textContent = '';
		el.details.append(f);
		const stop = () => {
			editing = false;
			el.edit.disabled = false;
			details();
			el.edit.focus();
		};
		f.querySelector('[data-cancel]').addEventListener('click', stop);
		f.addEventListener('keydown', (e) => {
			if (e.key === 'Escape')
				stop();
		});
		f.addEventListener('submit', async (e) => {
			e.preventDefault();
			const body = form.formBody(f, c, fields);
			if (!Object.keys(body).length)
				return stop();
			const saved = await form.submit(ctx, f, (b) => api.patch(path, b), body);
			if (!saved || left)
				return;
			c = saved;
			head();
			stop();
			ui.toast('Changes saved.', { kind: 'success' });
		});
		f.querySelector('input').focus();
	}
	el.edit.addEventListener('click', edit);

	/* ---- deleting ---- */
	el.del.addEventListener('click', async () => {
		const yes = await ctx.ui.confirm(el.confirm, 'Delete ' + lib.fullName(c) +
			'? Their notes and tags go with them.', 'Delete contact');
		if (!yes || left)
			return;
		try {
			await api.del(path);
		} catch (e) {
			ui.toast('The contact could not be deleted: ' + e.message, { kind: 'error' });
			return;
		}
		ui.toast(lib.fullName(c) + ' was deleted.', { kind: 'success' });
		ctx.navigate(ctx.href('/contacts'));
	});

	/* ---- tags ---- */
	function tags() {
		el.tags.textContent = '';
		if (!(c.tags || []).length) {
			el.tags.append(html`<li class="muted">No tags yet.</li>`);
			return;
		}
		for (const t of c.tags) {
			const remove = html`<button type="button" class="tag-remove" data-tag="${t.name}"><span aria-hidden="true">×</span><span class="visually-hidden">${'Remove tag ' + t.name}</span></button>`;
			const li = document.createElement('li');
			li.append(lib.chip(ctx, t, remove));
			el.tags.append(li);
		}
	}

	async function reloadContact() {
		c = await api.get(path);
		if (!left) {
			tags();
			head();
		}
	}

	el.tags.addEventListener('click', async (e) => {
		const b = e.target.closest && e.target.closest('[data-tag]');
		if (!b)
			return;
		b.disabled = true;
		try {
			await api.del(path + '/tags/' + encodeURIComponent(b.dataset.tag));
		} catch (err) {
			b.disabled = false;
			ui.toast('The tag could not be removed: ' + err.message, { kind: 'error' });
			return;
		}
		try {
			await reloadContact();
			el.tagForm.elements.namedItem('tag').focus();
		} catch (err) {
			ui.toast('The tag was removed, but the contact could not be read again: ' + err.message,
				{ kind: 'error' });
		}
	});

	el.tagForm.addEventListener('submit', async (e) => {
		e.preventDefault();
		const input = el.tagForm.elements.namedItem('tag');
		const name = input.value.trim();
		if (!name) {
			input.focus();
			return;
		}
		ui.clearErrors(el.tagForm);
		try {
			await api.post(path + '/tags', { tags: [name] });
			input.value = '';
			await reloadContact();
		} catch (err) {
			if (err.status === 422)
				err.fields = { tag: err.fields.tags || err.message };
			ui.formErrors(el.tagForm, err);
		}
	});

	api.get('/api/tags', { limit: 1000 }).then((answer) => {
		if (left || !answer)
			return;
		el.tagNames.append(html`${(answer.data || []).map((t) => html`<option value="${t.name}"></option>`)}`);
	}, () => {});

	/* ---- notes ---- */
	function note(n) {
		const li = html`<li class="r-note" data-id="${n.id}">
			<p class="r-note-body"></p>
			<div class="r-note-meta"><span class="muted">${ctx.format.moment(n.created_at)}${n.author_id && ctx.user && n.author_id === ctx.user.id ? ' · you' : ''}</span>
				<button type="button" class="btn btn-quiet btn-small" data-delete-note>Delete note</button></div>
			<div class="r-note-confirm"></div>
		</li>`.firstElementChild;
		li.querySelector('.r-note-body').textContent = n.body;
		return li;
	}

	function showNotes(rows, append) {
		if (!append)
			el.notes.textContent = '';
		el.notes.append(html`${rows.map(note)}`);
		if (!el.notes.children.length)
			el.notes.append(html`<li class="muted r-notes-none">No notes yet. Write down what was said or what comes next.</li>`);
		el.older.hidden = notes.done;
	}

	el.older.addEventListener('click', async () => {
		el.older.disabled = true;
		try {
			showNotes(await notes.next(), true);
		} catch (e) {
			ui.toast('Older notes could not be loaded: ' + e.message, { kind: 'error' });
		}
		el.older.disabled = false;
	});

	el.noteForm.addEventListener('submit', async (e) => {
		e.preventDefault();
		const area = el.noteForm.elements.namedItem('body');
		if (!area.value.trim()) {
			area.focus();
			return;
		}
		const button = el.noteForm.querySelector('button');
		button.disabled = true;
		ui.clearErrors(el.noteForm);
		try {
			const n = await api.post(path + '/notes', { body: area.value });
			area.value = '';
			const none = el.notes.querySelector('.r-notes-none');
			if (none)
				none.remove();
			el.notes.prepend(note(n));
		} catch (err) {
			ui.formErrors(el.noteForm, err);
		}
		button.disabled = false;
	});

	el.notes.addEventListener('click', async (e) => {
		const b = e.target.closest && e.target.closest('[data-delete-note]');
		if (!b)
			return;
		const li = b.closest('li');
		const yes = await ctx.ui.confirm(li.querySelector('.r-note-confirm'), 'Delete this note?', 'Delete');
		if (!yes || left)
			return;
		try {
			await api.del(path + '/notes/' + encodeURIComponent(li.dataset.id));
		} catch (err) {
			ui.toast('The note could not be deleted: ' + err.message, { kind: 'error' });
			return;
		}
		li.remove();
		if (!el.notes.children.length)
			showNotes([], true);
		el.noteForm.elements.namedItem('body').focus();
	});

	/* ---- activity ---- */
	function activity() {
		const counts = c.activity || {};
		const kinds = Object.keys(counts).filter((k) => counts[k] > 0);
		el.activity.textContent = '';
		el.activity.append(html`
			${kinds.length ? html`<ul class="r-counts">${kinds.map((k) => html`<li><span class="r-count-n">${ctx.format.number(Number(counts[k]))}</span> ${KINDS[k] || k}</li>`)}</ul>`
		: html`<p class="muted">No messages, tasks, deals or invoices yet.</p>`}
			<dl class="r-dl r-dl-tight">
				<div class="r-row"><dt>Last activity</dt><dd>${c.last_activity_at ? ctx.format.moment(c.last_activity_at) : 'None yet'}</dd></div>
				<div class="r-row"><dt>Notes</dt><dd>${String(c.notes_count || 0)}</dd></div>
			</dl>`);
	}

	head();
	details();
	tags();
	activity();
	if (firstNotes)
		showNotes(firstNotes, false);
	else
		el.notes.append(html`<li class="muted">The notes could not be loaded.</li>`);
	return () => {
		left = true;
	};
}

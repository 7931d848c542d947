// SPDX-License-Identifier: MIT
/*
 * record-notes.js: a contact's tags and notes on its page (record.js,
 * whose state `r` is passed in). Tags: shown as chips, each removed with
 * its button, one added by name (the sub-account's tags offered as it is
 * typed). Notes: newest first, older ones a page at a time (ctx.ui.paged
 * over the notes' pager), one added at the top, one deleted after asking;
 * "@" offers the people to mention (mentions.js).
 */
import { mentions } from './mentions.js';

/* ---- tags ---- */

function drawTags(r) {
	const { ctx, lib, el } = r;
	el.tags.textContent = '';
	if (!(r.c.tags || []).length) {
		el.tags.append(ctx.html`<li class="muted">No tags yet.</li>`);
		return;
	}
	for (const t of r.c.tags) {
		const remove = ctx.html`<button type="button" class="tag-remove" data-tag="${t.name}"><span aria-hidden="true">×</span><span class="visually-hidden">${'Remove tag ' + t.name}</span></button>`;
		const li = document.createElement('li');
		li.append(lib.chip(ctx, t, remove));
		el.tags.append(li);
	}
}

async function reloadContact(r) {
	r.c = await r.ctx.api.get(r.path);
	if (!r.left) {
		drawTags(r);
		r.head();
	}
}

async function removeTag(r, b) {
	const { ctx, el } = r;
	b.disabled = true;
	try {
		await ctx.api.del(r.path + '/tags/' + encodeURIComponent(b.dataset.tag));
	} catch (err) {
		b.disabled = false;
		ctx.ui.toast('The tag could not be removed: ' + err.message, { kind: 'error' });
		return;
	}
	try {
		await reloadContact(r);
		el.tagForm.elements.namedItem('tag').focus();
	} catch (err) {
		ctx.ui.toast('The tag was removed, but the contact could not be read again: ' + err.message,
			{ kind: 'error' });
	}
}

async function addTag(r) {
	const { ctx, el } = r;
	const input = el.tagForm.elements.namedItem('tag');
	const name = input.value.trim();
	if (!name) {
		input.focus();
		return;
	}
	ctx.ui.clearErrors(el.tagForm);
	try {
		await ctx.api.post(r.path + '/tags', { tags: [name] });
		input.value = '';
		await reloadContact(r);
	} catch (err) {
		if (err.status === 422)
			err.fields = { tag: err.fields.tags || err.message };
		ctx.ui.formErrors(el.tagForm, err);
	}
}

export function tags(r) {
	const { ctx, el } = r;
	drawTags(r);
	el.tags.addEventListener('click', (e) => {
		const b = e.target.closest && e.target.closest('[data-tag]');
		if (b)
			removeTag(r, b);
	});
	el.tagForm.addEventListener('submit', (e) => {
		e.preventDefault();
		addTag(r);
	});
	ctx.api.get('/api/tags', { limit: 1000 }).then((answer) => {
		if (r.left || !answer)
			return;
		el.tagNames.append(ctx.html`${(answer.data || []).map((t) => ctx.html`<option value="${t.name}"></option>`)}`);
	}, () => {});
}

/* ---- notes ---- */

function note(ctx, n) {
	const mine = n.author_id && ctx.user && n.author_id === ctx.user.id;
	const li = ctx.html`<li class="r-note" data-id="${n.id}">
		<p class="r-note-body"></p>
		<div class="r-note-meta"><span class="muted">${ctx.format.moment(n.created_at)}${mine ? ' · you' : ''}</span>
			<button type="button" class="btn btn-quiet btn-small" data-delete-note>Delete note</button></div>
		<div class="r-note-confirm"></div>
	</li>`.firstElementChild;
	li.querySelector('.r-note-body').textContent = n.body;
	return li;
}

function showNotes(r, rows) {
	const { ctx, el } = r;
	el.notes.append(ctx.html`${rows.map((n) => note(ctx, n))}`);
	if (!el.notes.children.length)
		el.notes.append(ctx.html`<li class="muted r-notes-none">No notes yet. Write down what was said or what comes next.</li>`);
}

async function addNote(r) {
	const { ctx, el } = r;
	const area = el.noteForm.elements.namedItem('body');
	if (!area.value.trim()) {
		area.focus();
		return;
	}
	const button = el.noteForm.querySelector('button');
	button.disabled = true;
	ctx.ui.clearErrors(el.noteForm);
	try {
		const n = await ctx.api.post(r.path + '/notes', { body: area.value });
		area.value = '';
		const none = el.notes.querySelector('.r-notes-none');
		if (none)
			none.remove();
		el.notes.prepend(note(ctx, n));
	} catch (err) {
		ctx.ui.formErrors(el.noteForm, err);
	}
	button.disabled = false;
}

async function deleteNote(r, b) {
	const { ctx, el } = r;
	const li = b.closest('li');
	const yes = await ctx.ui.confirm(li.querySelector('.r-note-confirm'), 'Delete this note?', 'Delete');
	if (!yes || r.left)
		return;
	try {
		await ctx.api.del(r.path + '/notes/' + encodeURIComponent(li.dataset.id));
	} catch (err) {
		ctx.ui.toast('The note could not be deleted: ' + err.message, { kind: 'error' });
		return;
	}
	li.remove();
	if (!el.notes.children.length)
		showNotes(r, []);
	el.noteForm.elements.namedItem('body').focus();
}

/* The notes: `first` the first page of `pager` (null: it failed). */
export function notes(r, pager, first) {
	const { ctx, el } = r;
	el.noteForm.addEventListener('submit', (e) => {
		e.preventDefault();
		addNote(r);
	});
	mentions(ctx, el.noteForm.elements.namedItem('body'));
	el.notes.addEventListener('click', (e) => {
		const b = e.target.closest && e.target.closest('[data-delete-note]');
		if (b)
			deleteNote(r, b);
	});
	if (!first) {
		el.notes.append(ctx.html`<li class="muted">The notes could not be loaded.</li>`);
		return;
	}
	const pages = ctx.ui.paged({
		more: el.older, what: 'The older notes', signal: ctx.signal, scroll: false,
		open: () => pager,
		draw: (rows) => showNotes(r, rows),
	});
	pages.begin(pager, first);
}

// SPDX-License-Identifier: MIT
/*
 * saved-replies.js: /app/saved-replies, the words a sub-account's team
 * sends again and again, inserted in a reply from the composer
 * (inbox-thread.js). Everyone reads the list; the sub-account's admins
 * add one, change it in place and delete it (asked first). Merge fields
 * are inserted from a list (merge-fields.js) and checked by the server
 * when a reply is saved; a refusal is shown beside its field. The list
 * follows changes made elsewhere (saved_reply.*). The page's state `s`:
 * {ctx, view, admin, replies (as last read), el}.
 */
import { FIELDS, fieldPicker } from './merge-fields.js';

export default async function savedRepliesPage(view, ctx) {
	const [answer] = await Promise.all([ctx.api.get('/api/saved-replies'),
		ctx.ui.stylesheet(new URL('./inbox.css', import.meta.url))]);
	const s = { ctx, view, admin: /admin$/.test(ctx.user.role), replies: answer.data || [] };
	ctx.title('Saved replies');
	view.classList.add('replies-page');
	s.el = frame(s);
	if (s.admin)
		editing(s, s.el.newForm, null);
	view.addEventListener('click', (e) => clicked(s, e));
	ctx.onLive(['saved_reply.*'], () => reload(s));
	draw(s);
}

function frame(s) {
	const { ctx, view, admin } = s;
	const { html } = ctx;
	view.append(html`
<p class="crumbs"><a href="${ctx.href('/conversations')}">Conversations</a></p>
<div class="page-head"><h1>Saved replies</h1></div>
<p class="muted r-intro">Pick one in a conversation's reply box to put its words in your reply. Fields such as
	{{contact.first_name|there}} are filled with each contact's own details when the message is sent
	(“there” when the contact has no first name).</p>
${admin ? html`<section class="card r-new" aria-labelledby="r-new-h"><h2 id="r-new-h">New saved reply</h2>
	${form(ctx, 'r-new', null)}</section>` : html`<p class="muted">Your sub-account's admins keep this list.</p>`}
<h2 class="r-list-h" tabindex="-1">Your team’s replies</h2>
<ul class="r-list"></ul>`);
	return { newForm: view.querySelector('.r-new form'), list: view.querySelector('.r-list') };
}

/* A reply's form (`r` null: a new one), its ids prefixed by `id`. */
function form(ctx, id, r) {
	const { html } = ctx;
	const f = html`<form class="r-form" novalidate aria-label="${r ? 'Edit ' + r.name : null}">
	<div class="field"><label for="${id + '-name'}">Name</label>
		<input id="${id + '-name'}" name="name" maxlength="100" required autocomplete="off"
			value="${r ? r.name : ''}" placeholder="Appointment confirmed"></div>
	<div class="field"><label for="${id + '-subject'}">E-mail subject <span class="muted">(optional)</span></label>
		<input id="${id + '-subject'}" name="subject" maxlength="300" autocomplete="off" value="${r && r.subject ? r.subject : ''}"></div>
	<div class="field"><label for="${id + '-body'}">Words</label>
		<textarea id="${id + '-body'}" name="body" rows="4" maxlength="10000" required></textarea></div>
	<div class="r-actions">
		<label class="i-pick"><span class="i-pick-word">Insert</span> <select name="field"><option value="">a field…</option>${FIELDS.map(([k, label]) =>
			html`<option value="${k}">${label}</option>`)}</select></label>
		<button type="submit" class="btn btn-primary">${r ? 'Save changes' : 'Add saved reply'}</button>
		${r ? html`<button type="button" class="btn" data-cancel>Cancel</button>` : null}
	</div>
</form>`.firstElementChild;
	f.elements.body.value = r ? r.body : '';
	return f;
}

function item(s, r) {
	const { ctx, admin } = s;
	const { html } = ctx;
	return html`<li class="card r-item" data-reply="${String(r.id)}" aria-labelledby="${'r-h-' + r.id}">
	<div class="r-head"><h3 id="${'r-h-' + r.id}">${r.name}</h3>
		${admin ? html`<button type="button" class="btn btn-small" data-edit>Edit<span class="visually-hidden">${' ' + r.name}</span></button>
		<button type="button" class="btn btn-small btn-danger" data-delete>Delete<span class="visually-hidden">${' ' + r.name}</span></button>` : null}</div>
	${r.subject ? html`<p class="r-subject"><span class="muted">Subject:</span> ${r.subject}</p>` : null}
	<p class="r-body">${r.body}</p>
	<div class="r-confirm"></div>
</li>`;
}

/* The list drawn again; a reply being changed keeps its form and what is
 * typed in it, but reply `done` (just saved, or its change cancelled). */
function draw(s, done) {
	const { ctx, el, replies } = s;
	const open = new Map(Array.from(el.list.querySelectorAll('[data-reply]'))
		.filter((li) => li.querySelector('.r-form') && li.dataset.reply !== String(done))
		.map((li) => [li.dataset.reply, li]));
	el.list.textContent = '';
	el.list.append(...replies.map((r) => open.get(String(r.id)) || item(s, r)));
	if (!replies.length)
		el.list.append(ctx.html`<li class="muted">No saved replies yet.${s.admin ? ' Add the first one above.' : ''}</li>`);
}

async function reload(s) {
	try {
		s.replies = (await s.ctx.api.get('/api/saved-replies')).data || [];
	} catch (e) {
		return;
	}
	if (!s.ctx.signal.aborted)
		draw(s);
}

/* `f` sent: a reply added, or reply `r` changed; drawn again from the
 * server's list. */
function editing(s, f, r) {
	const { ctx } = s;
	fieldPicker(f.elements.field, f.elements.body);
	f.addEventListener('submit', async (e) => {
		e.preventDefault();
		ctx.ui.clearErrors(f);
		const body = { name: f.elements.name.value.trim(), subject: f.elements.subject.value.trim() || null,
			body: f.elements.body.value };
		if (!body.name || !body.body.trim()) {
			ctx.ui.formErrors(f, { fields: Object.assign(body.name ? {} : { name: 'a name is needed' },
				body.body.trim() ? {} : { body: 'write the words to send' }) });
			return;
		}
		if (f.getAttribute('aria-busy') === 'true')
			return;
		f.setAttribute('aria-busy', 'true');
		try {
			if (r)
				await ctx.api.patch('/api/saved-replies/' + r.id, body);
			else
				await ctx.api.post('/api/saved-replies', body);
			s.replies = (await ctx.api.get('/api/saved-replies')).data || [];
		} catch (err) {
			if (!ctx.signal.aborted)
				ctx.ui.formErrors(f, err);
			return;
		} finally {
			f.removeAttribute('aria-busy');
		}
		if (!r)
			f.reset();
		draw(s, r && r.id);
		ctx.ui.toast(r ? 'Saved reply changed.' : 'Saved reply “' + body.name + '” added.', { kind: 'success' });
		const again = r && s.el.list.querySelector('[data-reply="' + r.id + '"] [data-edit]');
		(again || f.elements.name).focus();
	});
}

/* Edit opens the reply's form in its place; Cancel puts it back; Delete
 * asks first. */
async function clicked(s, e) {
	const { ctx } = s;
	const b = e.target.closest('button');
	const li = b && b.closest('[data-reply]');
	if (!li || b.closest('.confirm'))
		return;
	const r = s.replies.find((x) => String(x.id) === li.dataset.reply);
	if (b.hasAttribute('data-edit') && r) {
		const f = form(ctx, 'r-' + r.id, r);
		li.replaceChildren(f);
		li.removeAttribute('aria-labelledby'); /* its heading is gone; the form is named */
		editing(s, f, r);
		f.elements.name.focus();
	} else if (b.hasAttribute('data-cancel')) {
		draw(s, li.dataset.reply);
		const again = s.el.list.querySelector('[data-reply="' + li.dataset.reply + '"] [data-edit]');
		if (again)
			again.focus();
	} else if (b.hasAttribute('data-delete') && r &&
		await ctx.ui.confirm(li.querySelector('.r-confirm'), 'Delete the saved reply ' + r.name + '?', 'Delete')) {
		try {
			await ctx.api.del('/api/saved-replies/' + r.id);
			s.replies = s.replies.filter((x) => x !== r);
		} catch (err) {
			if (!ctx.signal.aborted)
				ctx.ui.toast('The saved reply could not be deleted: ' + err.message, { kind: 'error' });
			return;
		}
		draw(s);
		ctx.ui.toast('Saved reply deleted.', { kind: 'success' });
		(s.el.newForm ? s.el.newForm.elements.name : s.view.querySelector('.r-list-h')).focus();
	}
}

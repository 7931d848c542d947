// SPDX-License-Identifier: MIT
/*
 * deal.js: a deal's page (/app/opportunities/:id) and the form of a new
 * one (/app/opportunities/new), opened by board.js, whose helpers come as
 * `lib`.
 *
 * The page shows the deal's facts and what can be done with it: move it
 * to another stage, mark it won, lost or abandoned (with a reason), reopen
 * it, edit its name, value, owner and contact, delete it. The server's
 * answer is the truth after each change; a refusal shows next to the
 * field it names. A deal's contact is picked by typing part of a name; a
 * new deal's starts as the contact of ?contact= (a contact's "New deal").
 * Below: its notes, its own tasks and its history (deal-notes.js).
 */
import { dealMore } from './deal-notes.js';

const MAX_CENTS = 1e15; /* the largest value the server takes */

function statusLabel(lib, status) {
	const s = lib.STATUSES.find((x) => x[0] === status);
	return s ? s[1] : status;
}

/* The fields a deal's form shares, new or edited. */
function fieldsOf(ctx, d, users) {
	const { html } = ctx;
	return html`
<div class="field"><label for="d-name">Name</label>
	<input id="d-name" name="name" required maxlength="200" autocomplete="off" value="${d.name || ''}"></div>
<div class="d-form-grid">
	<div class="field"><label for="d-value">Value</label>
		<input id="d-value" name="value_cents" inputmode="decimal" autocomplete="off"
			value="${d.value_cents ? ctx.format.amount(d.value_cents) : ''}" placeholder="0"></div>
	<div class="field"><label for="d-owner">Owner</label>
		<select id="d-owner" name="owner_id"><option value="">No owner</option>
			${Array.from(users.values()).map((u) => html`<option value="${u.id}"
				selected="${u.id === d.owner_id}">${u.name}</option>`)}
			${d.owner_id && !users.has(d.owner_id) /* gone from the list (disabled), still the owner */
				? html`<option value="${d.owner_id}" selected>${'User ' + d.owner_id}</option>` : ''}</select></div>
</div>`;
}

/* The name, value and owner the form holds, or null after putting an
 * error next to the value. */
function readFields(ctx, form) {
	const value = form.elements.value_cents.value.trim();
	const body = {
		name: form.elements.name.value.trim(),
		value_cents: value ? ctx.format.minor(value) : 0,
		owner_id: form.elements.owner_id.value ? Number(form.elements.owner_id.value) : null,
	};
	if (isNaN(body.value_cents) || body.value_cents > MAX_CENTS) {
		ctx.ui.formErrors(form, { fields: { value_cents: isNaN(body.value_cents)
			? 'an amount, like 1500 or 1500.50' : 'at most ' + ctx.format.money(MAX_CENTS) } });
		return null;
	}
	return body;
}

/* What the deal's page knows: s = {ctx, lib, view, path, d (the deal as
 * the server last said), pipelines, users, boardHref}. */
export default async function deal(view, ctx, lib) {
	const { api } = ctx;
	const path = '/api/opportunities/' + ctx.params.id;
	const [d, pipelines, users] = await Promise.all([api.get(path), api.get('/api/pipelines'), people(ctx)]);
	const s = { ctx, lib, view, path, d, pipelines, users,
		boardHref: ctx.href('/opportunities?pipeline=' + d.pipeline_id) };
	view.classList.add('deal-page');
	render(s);
	s.more = dealMore(s);
	view.append(s.more);
}

/* The people by id; none when they could not be had. */
async function people(ctx) {
	return (await ctx.ui.people(ctx.api)) || new Map();
}

function stagesOf(s, pipelineId) {
	const p = (s.pipelines.data || []).find((x) => x.id === pipelineId);
	return p ? p.stages || [] : [];
}

function render(s) {
	const { ctx, view, d } = s;
	ctx.title(d.name);
	view.textContent = '';
	view.append(ctx.html`
<p class="crumbs"><a href="${s.boardHref}">Opportunities</a></p>
<div class="page-head">
	<h1 tabindex="-1">${d.name}</h1>
	<span class="${'d-status d-status-' + d.status}">${statusLabel(s.lib, d.status)}</span>
	<div class="d-actions">
		<button type="button" class="btn" data-edit aria-expanded="false" aria-controls="d-edit">Edit</button>
		<button type="button" class="btn btn-danger" data-delete>Delete</button>
	</div>
</div>
<div class="form-error" role="alert" data-confirm hidden>
	<p>Delete “${d.name}” for good?</p>
	<p class="d-actions"><button type="button" class="btn btn-danger" data-yes>Delete deal</button>
		<button type="button" class="btn" data-no>Keep it</button></p>
</div>
<form class="d-form card" id="d-edit" hidden aria-label="Edit deal" novalidate>
	${fieldsOf(ctx, d, s.users)}
	<div class="field"><label for="d-contact">Contact</label>
		<input id="d-contact" name="contact_id" type="search" autocomplete="off" placeholder="Type a name"></div>
	<div class="d-form-actions"><button type="submit" class="btn btn-primary">Save changes</button>
		<button type="button" class="btn" data-cancel>Cancel</button></div>
</form>
<div class="d-grid">${facts(s)}${progress(s)}</div>`);
	if (s.more) /* kept: its notes, tasks and history are not the change's */
		view.append(s.more);
	wireEdit(s);
	wireDelete(s);
	wireProgress(s);
}

function facts(s) {
	const { ctx, d } = s;
	const { html } = ctx;
	const f = ctx.format;
	const owner = d.owner_id ? s.users.get(d.owner_id) : null;
	const pipeline = (s.pipelines.data || []).find((x) => x.id === d.pipeline_id);
	return html`<section class="card" aria-labelledby="d-facts-h">
		<h2 id="d-facts-h">Details</h2>
		<dl class="d-facts">
			<dt>Value</dt><dd>${f.money(d.value_cents)}</dd>
			<dt>Pipeline</dt><dd>${pipeline ? pipeline.name : ''}</dd>
			<dt>Stage</dt><dd>${d.stage_name}</dd>
			<dt>Contact</dt><dd>${d.contact_id ? html`<a href="${ctx.href('/contacts/' + d.contact_id)}">${d.contact_name || 'Contact ' + d.contact_id}</a>` : 'None'}</dd>
			<dt>Owner</dt><dd>${owner ? owner.name : d.owner_id ? 'User ' + d.owner_id : 'None'}</dd>
			<dt>Created</dt><dd>${f.day(d.created_at)}</dd>
			${d.closed_at ? html`<dt>Closed</dt><dd>${f.day(d.closed_at)}</dd>` : ''}
			${d.lost_reason ? html`<dt>Reason</dt><dd>${d.lost_reason}</dd>` : ''}
		</dl>
	</section>`;
}

function progress(s) {
	const { ctx, d } = s;
	const { html } = ctx;
	return html`<section class="card" aria-labelledby="d-progress-h">
		<h2 id="d-progress-h">Progress</h2>
		${d.status === 'open' ? html`<form class="d-move" novalidate><div class="field"><label for="d-stage">Stage</label>
			<select id="d-stage" name="stage_id">${stagesOf(s, d.pipeline_id).map((st) => html`<option value="${st.id}"
				selected="${st.id === d.stage_id}">${st.name}</option>`)}</select></div>
			<button type="submit" class="btn">Move</button></form>
		<div class="d-actions">
			<button type="button" class="btn btn-primary" data-status="won">Mark won</button>
			<button type="button" class="btn" data-status="lost">Mark lost</button>
			<button type="button" class="btn" data-status="abandoned">Abandon</button>
		</div>
		<form class="d-close" hidden novalidate>
			<div class="field"><label for="d-reason">Why?</label>
				<input id="d-reason" name="lost_reason" maxlength="500" autocomplete="off"></div>
			<div class="d-actions"><button type="submit" class="btn btn-primary" data-close-confirm></button>
				<button type="button" class="btn" data-close-cancel>Cancel</button></div>
		</form>` : html`<p class="muted">${'This deal is ' + statusLabel(s.lib, d.status).toLowerCase() + '.'}</p>
		<div class="d-actions"><button type="button" class="btn" data-status="open">Reopen</button></div>`}
	</section>`;
}

/* The deal changed by `body`; drawn again and `what` said, or the refusal. */
async function change(s, body, what) {
	const { ctx } = s;
	try {
		s.d = await ctx.api.patch(s.path, body);
		render(s);
		s.view.querySelector('h1').focus();
		ctx.ui.toast(what, { kind: 'success' });
		return true;
	} catch (e) {
		if (!ctx.signal.aborted)
			ctx.ui.toast('The deal could not be changed: ' + e.message, { kind: 'error' });
		return false;
	}
}

/* Its name, value, owner and contact, edited in place. */
function wireEdit(s) {
	const { ctx, view, d } = s;
	const { ui } = ctx;
	const q = (sel) => view.querySelector(sel);
	const edit = q('#d-edit');
	const chosen = ui.pickContact(edit.elements.contact_id, ctx.api,
		d.contact_id ? { id: d.contact_id, first_name: d.contact_name } : null);
	q('[data-edit]').addEventListener('click', (e) => {
		edit.hidden = !edit.hidden;
		e.currentTarget.setAttribute('aria-expanded', String(!edit.hidden));
		if (!edit.hidden)
			edit.elements.name.focus();
	});
	q('[data-cancel]').addEventListener('click', () => {
		edit.hidden = true;
		q('[data-edit]').setAttribute('aria-expanded', 'false');
		q('[data-edit]').focus();
	});
	edit.addEventListener('submit', async (e) => {
		e.preventDefault();
		ui.clearErrors(edit);
		const body = readFields(ctx, edit);
		if (!body)
			return;
		body.contact_id = chosen();
		if (body.contact_id === undefined) {
			ui.formErrors(edit, { fields: { contact_id: 'choose a contact from the list as you type' } });
			return;
		}
		for (const k of Object.keys(body)) { /* what changed only */
			if (body[k] === s.d[k])
				delete body[k];
		}
		try {
			s.d = await ctx.api.patch(s.path, body);
		} catch (err) {
			if (!ctx.signal.aborted)
				ui.formErrors(edit, err);
			return;
		}
		render(s);
		view.querySelector('h1').focus();
		ui.toast('Changes saved.', { kind: 'success' });
	});
}

function wireDelete(s) {
	const { ctx, view } = s;
	const q = (sel) => view.querySelector(sel);
	const confirm = q('[data-confirm]');
	q('[data-delete]').addEventListener('click', () => {
		confirm.hidden = false;
		q('[data-yes]').focus();
	});
	q('[data-no]').addEventListener('click', () => {
		confirm.hidden = true;
		q('[data-delete]').focus();
	});
	q('[data-yes]').addEventListener('click', async () => {
		try {
			await ctx.api.del(s.path);
		} catch (e) {
			if (!ctx.signal.aborted)
				ctx.ui.toast('The deal could not be deleted: ' + e.message, { kind: 'error' });
			return;
		}
		ctx.ui.toast('Deal “' + s.d.name + '” deleted.', { kind: 'success' });
		ctx.navigate(s.boardHref);
	});
}

/* Moved to another stage; won, lost or abandoned (with a reason); reopened. */
function wireProgress(s) {
	const { view } = s;
	const move = view.querySelector('.d-move');
	if (move) {
		move.addEventListener('submit', async (e) => {
			e.preventDefault();
			const stage = move.elements.stage_id;
			const name = stage.options[stage.selectedIndex].textContent;
			if (Number(stage.value) !== s.d.stage_id &&
			    !await change(s, { stage_id: Number(stage.value) }, 'Moved to ' + name + '.'))
				stage.value = String(s.d.stage_id);
		});
	}
	const close = view.querySelector('.d-close');
	let closing = null;
	for (const b of view.querySelectorAll('[data-status]')) {
		b.addEventListener('click', () => {
			const status = b.dataset.status;
			if (status === 'won' || status === 'open') {
				change(s, { status }, status === 'won' ? 'Marked won.' : 'Reopened.');
				return;
			}
			closing = status;
			close.hidden = false;
			close.querySelector('[data-close-confirm]').textContent =
				status === 'lost' ? 'Mark lost' : 'Abandon deal';
			close.elements.lost_reason.focus();
		});
	}
	if (!close)
		return;
	close.addEventListener('submit', (e) => {
		e.preventDefault();
		const reason = close.elements.lost_reason.value.trim();
		change(s, reason ? { status: closing, lost_reason: reason } : { status: closing },
			closing === 'lost' ? 'Marked lost.' : 'Abandoned.');
	});
	close.querySelector('[data-close-cancel]').addEventListener('click', () => {
		close.hidden = true;
		view.querySelector('[data-status="' + closing + '"]').focus();
	});
}

/* /app/opportunities/new?pipeline=: a deal's name, value, stage, contact
 * and owner; made open, last in its stage. */
export async function newDeal(view, ctx) {
	const { html, api, ui } = ctx;
	const [pipelines, users, about] = await Promise.all([api.get('/api/pipelines'), people(ctx),
		ui.contactAsked(api, ctx.query)]);
	const wanted = Number(ctx.query.get('pipeline'));
	const pipeline = (pipelines.data || []).find((p) => p.id === wanted) || (pipelines.data || [])[0];
	const boardHref = ctx.href('/opportunities' + (pipeline ? '?pipeline=' + pipeline.id : ''));
	ctx.title('New deal');
	view.classList.add('deal-page');
	view.append(html`
<p class="crumbs"><a href="${boardHref}">Opportunities</a></p>
<div class="page-head"><h1>New deal</h1></div>
<form class="d-form card" novalidate>
	${fieldsOf(ctx, { owner_id: ctx.user.id }, users)}
	<div class="d-form-grid">
		<div class="field"><label for="d-stage">Stage</label>
			<select id="d-stage" name="stage_id">${(pipeline ? pipeline.stages || [] : []).map((s) =>
				html`<option value="${s.id}">${s.name}</option>`)}</select></div>
		<div class="field"><label for="d-contact">Contact</label>
			<input id="d-contact" name="contact_id" type="search" autocomplete="off"
				placeholder="Type a name"></div>
	</div>
	<div class="d-form-actions"><button type="submit" class="btn btn-primary">Create deal</button>
		<a class="btn" href="${boardHref}">Cancel</a></div>
</form>`);
	const form = view.querySelector('form');
	const contact = form.elements.contact_id;
	const chosen = ui.pickContact(contact, api, about);

	form.addEventListener('submit', async (e) => {
		e.preventDefault();
		ui.clearErrors(form);
		const body = readFields(ctx, form);
		if (!body)
			return;
		if (!body.name) {
			ui.formErrors(form, { fields: { name: 'a deal needs a name' } });
			return;
		}
		body.stage_id = Number(form.elements.stage_id.value) || undefined;
		const who = chosen();
		if (who === undefined) {
			ui.formErrors(form, { fields: { contact_id: 'choose a contact from the list as you type' } });
			return;
		}
		if (who)
			body.contact_id = who;
		if (body.owner_id === null)
			delete body.owner_id;
		let made;
		try {
			made = await api.post('/api/opportunities', body);
		} catch (err) {
			if (!ctx.signal.aborted)
				ui.formErrors(form, err);
			return;
		}
		ui.toast('Deal “' + made.name + '” created.', { kind: 'success' });
		ctx.navigate(ctx.href('/opportunities/' + made.id));
	});
}

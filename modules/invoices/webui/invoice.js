// SPDX-License-Identifier: MIT
/*
 * invoice.js: an invoice (/app/invoices/:id) and a draft's form
 * (/app/invoices/new, and a draft's "Edit"), opened by invoices.js, whose
 * helpers come as `lib`.
 *
 * The invoice: the business it comes from (with the agency's logo), the
 * client and their address, its lines, totals, notes, terms and
 * payments; a draft is edited, e-mailed to the client ("Send", with the
 * link to its public page; it is sent once the mail has left), marked as
 * sent by hand or deleted; a sent one takes a payment (part of the
 * balance or all of it), is e-mailed again or voided; any is printed (the
 * shell's print styles leave the sheet alone on the paper) or downloaded
 * as a PDF of the same, and has its public page, the client's view,
 * whose link can be copied. The form shows each line's amount and the totals
 * as they are typed, with the server's rules (an amount is quantity ×
 * unit price − discount; its tax rounded half up to the cent, per line);
 * once saved, the server's figures are the ones shown. The form is
 * invoice-form.js.
 */

const METHODS = [['card', 'Card'], ['bank_transfer', 'Bank transfer'], ['cash', 'Cash'], ['check', 'Check'],
	['other', 'Other']];

/* The invoice's page; s = {ctx, lib, view, path, inv (as the server
 * last said)}. */
export default async function invoice(view, ctx, lib) {
	const path = '/api/invoices/' + ctx.params.id;
	const s = { ctx, lib, view, path, inv: await ctx.api.get(path) };
	view.classList.add('invoice-page');
	following(s);
	render(s);
}

function render(s) {
	const { ctx, view, inv } = s;
	ctx.title(inv.number || 'Draft invoice');
	view.textContent = '';
	view.append(sheet(s));
	wire(s);
}

/* The invoice as it is shown (and printed), with what can be done to it. */
function sheet(s) {
	const { ctx, lib, inv } = s;
	const { html } = ctx;
	const f = ctx.format;
	const m = f.money;
	const status = inv.status;
	const open = status === 'sent' || status === 'partially_paid';
	const b = inv.business || {};
	return html`
<p class="crumbs no-print"><a href="${ctx.href('/invoices')}">Invoices</a></p>
<div class="page-head">
	<h1 tabindex="-1">${inv.number || 'Draft invoice'}</h1>
	${lib.badge(ctx, inv)}
	<div class="v-actions no-print">
		${status !== 'void' ? html`<button type="button" class="btn${status === 'draft' ? ' btn-primary' : ''}" data-email>${status === 'draft' ? 'Send' : 'Send again'}</button>` : ''}
		${status === 'draft' ? html`<a class="btn" href="${ctx.href('/invoices/new?draft=' + inv.id)}">Edit</a>
			<button type="button" class="btn" data-send>Mark as sent</button>
			<button type="button" class="btn btn-danger" data-delete>Delete</button>` : ''}
		${open || status === 'draft' ? html`<button type="button" class="btn" data-void>Void</button>` : ''}
		<button type="button" class="btn" data-print>Print</button>
		<a class="btn" href="${ctx.api.url(s.path + '/pdf', { location_id: ctx.location ? ctx.location.id : null })}" download>PDF</a>
	</div>
</div>
${mailLine(s)}
<div class="card v-sheet">
	<header class="v-from">
		<div><p class="v-from-name">${b.name || ''}</p>
			${b.address ? html`<p class="v-pre">${b.address}</p>` : ''}
			${b.email ? html`<p>${b.email}</p>` : ''}${b.phone ? html`<p>${b.phone}</p>` : ''}
			${b.tax_id ? html`<p>${'Tax ID: ' + b.tax_id}</p>` : ''}</div>
		${b.logo_url ? html`<img class="v-logo" src="${b.logo_url}" alt="${b.name || 'Logo'}">` : ''}
	</header>
	<dl class="v-facts">
		<dt>Bill to</dt><dd>${inv.contact_id ? html`<a href="${ctx.href('/contacts/' + inv.contact_id)}">${inv.contact_name || 'Contact ' + inv.contact_id}</a>` : '—'}
			${inv.client_address ? html`<span class="v-pre v-address">${inv.client_address}</span>` : ''}</dd>
		<dt>Issued</dt><dd>${f.day(inv.issued_at) || 'Not yet'}</dd>
		<dt>Due</dt><dd>${f.day(inv.due_at) || '—'}</dd>
	</dl>
	<div class="v-lines-wrap" tabindex="0" role="region" aria-label="Lines"><table class="table v-lines">
		<caption class="visually-hidden">Lines</caption>
		<thead><tr><th scope="col">Description</th><th scope="col" class="v-num">Qty</th>
			<th scope="col" class="v-num">Unit price</th><th scope="col" class="v-num">Discount</th>
			<th scope="col" class="v-num">Tax</th><th scope="col" class="v-num">Amount</th></tr></thead>
		<tbody>${(inv.items || []).map((l) => html`<tr><td>${l.description}</td>
			<td class="v-num">${l.quantity}</td><td class="v-num">${m(l.unit_price_cents)}</td>
			<td class="v-num">${l.discount_cents ? m(l.discount_cents) : ''}</td>
			<td class="v-num">${l.tax_rate_bp ? (l.tax_rate_bp / 100) + ' %' : ''}</td>
			<td class="v-num">${m(l.amount_cents)}</td></tr>`)}</tbody>
	</table></div>
	<dl class="v-totals">
		<dt>Subtotal</dt><dd>${m(inv.subtotal_cents)}</dd>
		<dt>Tax</dt><dd>${m(inv.tax_cents)}</dd>
		<dt class="v-total">Total</dt><dd class="v-total">${m(inv.total_cents)}</dd>
		<dt>Paid</dt><dd>${m(inv.paid_cents)}</dd>
		<dt class="v-balance">Balance due</dt><dd class="v-balance">${status === 'void' ? 'Nothing: it is void'
			: status === 'draft' ? 'Nothing until it is sent' : m(inv.balance_cents)}</dd>
	</dl>
	${inv.notes ? html`<h2 class="v-sub">Notes</h2><p class="v-pre">${inv.notes}</p>` : ''}
	${inv.terms ? html`<h2 class="v-sub">Terms</h2><p class="v-pre">${inv.terms}</p>` : ''}
</div>
<section class="card v-payments" aria-labelledby="v-pay-h">
	<h2 id="v-pay-h">Payments</h2>
	${(inv.payments || []).length ? html`<ul class="v-pay-list">${inv.payments.map((p) => html`<li>
		<span>${f.day(p.paid_at)}</span><span>${(METHODS.find((x) => x[0] === p.method) || [p.method, p.method])[1]}</span>
		<span class="v-num">${m(p.amount_cents)}</span></li>`)}</ul>` : html`<p class="muted">No payments yet.</p>`}
	${open ? html`<form class="v-pay no-print" novalidate aria-label="Record a payment">
		<div class="field"><label for="v-amount">Amount</label>
			<input id="v-amount" name="amount_cents" inputmode="decimal" autocomplete="off" value="${f.amount(inv.balance_cents)}"></div>
		<div class="field"><label for="v-method">Method</label>
			<select id="v-method" name="method">${METHODS.map((x) => html`<option value="${x[0]}">${x[1]}</option>`)}</select></div>
		<button type="submit" class="btn btn-primary">Record payment</button>
	</form>` : ''}
</section>
<div class="no-print" data-confirm></div>`;
}

/* What became of its last mail, and the client's view of it, with its
 * link to copy. */
function mailLine(s) {
	const { ctx, inv } = s;
	const { html } = ctx;
	const mail = inv.mail;
	const said = !mail ? '' : mail.state === 'sent' ? 'E-mailed to ' + mail.to + ' on ' + ctx.format.day(mail.at) + '.'
		: mail.state === 'failed' ? 'Not e-mailed to ' + mail.to + ': ' + (mail.reason || 'it could not be sent') + '.'
			: 'Being e-mailed to ' + mail.to + '…';
	return html`<div class="v-share no-print">
	${said ? html`<p class="${mail.state === 'failed' ? 'v-mail-failed' : 'muted'}" role="status">${said}</p>` : ''}
	${inv.view_url ? html`<p><a href="${inv.view_url}" target="_blank" rel="noopener">The client's view</a>
		<button type="button" class="btn btn-small" data-copy>Copy link</button></p>` : ''}
</div>`;
}

/* The public page's address, whole, as the client opens it. */
function publicLink(s) {
	return new URL(s.inv.view_url, window.location.href).href;
}

async function copyLink(s) {
	const link = publicLink(s);
	try {
		await navigator.clipboard.writeText(link);
		s.ctx.ui.toast('Link copied: ' + link, { kind: 'success' });
	} catch (e) {
		s.ctx.ui.toast('Copy this link: ' + link, { kind: 'info' });
	}
}

/* "Send": e-mailed to the contact. Without a provider nothing leaves,
 * and the notice says so, with the link to hand over. */
async function email(s) {
	const { ctx } = s;
	try {
		s.inv = await ctx.api.post(s.path + '/email', {});
	} catch (e) {
		if (ctx.signal.aborted)
			return;
		/* nothing left: said plainly, with the link to hand over */
		const why = e.fields && e.fields.to ? 'Nothing was e-mailed: ' + e.fields.to + '.' : e.message;
		const link = s.inv.view_url && e.status < 500 ? ' Its link: ' + publicLink(s) : '';
		ctx.ui.toast(why + link, { kind: 'error' });
		return;
	}
	render(s);
	ctx.ui.toast('Sending to ' + s.inv.mail.to + '. It is marked sent once the mail has left.', { kind: 'success' });
}

/* `work` (a request answering the invoice); drawn again and `done` said,
 * or the refusal. */
async function act(s, work, done) {
	const { ctx } = s;
	try {
		s.inv = await work();
	} catch (e) {
		if (!ctx.signal.aborted)
			ctx.ui.toast('The invoice could not be changed: ' + e.message, { kind: 'error' });
		return false;
	}
	render(s);
	s.view.querySelector('h1').focus();
	ctx.ui.toast(done, { kind: 'success' });
	return true;
}

/* Asks before `work` (voiding, deleting) with the question and the
 * button's words. */
async function confirmFirst(s, question, yes, work) {
	if (await s.ctx.ui.confirm(s.view.querySelector('[data-confirm]'), question, yes))
		work();
}

function wire(s) {
	const { ctx, view, path } = s;
	const { api, ui } = ctx;
	const on = (sel, fn) => {
		const b = view.querySelector(sel);
		if (b)
			b.addEventListener('click', fn);
	};
	on('[data-print]', () => window.print());
	on('[data-copy]', () => copyLink(s));
	on('[data-email]', () => email(s));
	/* The person hands it over themselves: nothing is e-mailed. */
	on('[data-send]', () => act(s, () => api.post(path + '/send'),
		'Marked as sent. Nothing was e-mailed: copy its link or print it for the client.'));
	on('[data-void]', () => confirmFirst(s, 'Void ' + (s.inv.number || 'this draft') + '? It stays on file, marked void.',
		'Void invoice', () => act(s, () => api.post(path + '/void'), 'Voided.')));
	on('[data-delete]', () => confirmFirst(s, 'Delete this draft for good?', 'Delete draft', async () => {
		try {
			await api.del(path);
		} catch (e) {
			if (!ctx.signal.aborted)
				ui.toast('The draft could not be deleted: ' + e.message, { kind: 'error' });
			return;
		}
		ui.toast('Draft deleted.', { kind: 'success' });
		ctx.navigate(ctx.href('/invoices'));
	}));
	const pay = view.querySelector('.v-pay');
	if (pay) {
		pay.addEventListener('submit', async (e) => {
			e.preventDefault();
			ui.clearErrors(pay);
			const amount = ctx.format.minor(pay.elements.amount_cents.value);
			if (!(amount > 0)) {
				ui.formErrors(pay, { fields: { amount_cents: 'an amount, like 250 or 250.50' } });
				return;
			}
			try {
				await api.post(path + '/payments', { amount_cents: amount, method: pay.elements.method.value });
			} catch (err) {
				if (!ctx.signal.aborted)
					ui.formErrors(pay, err);
				return;
			}
			await act(s, () => api.get(path), 'Payment of ' + ctx.format.money(amount) + ' recorded.');
		});
	}
}

/* Changed elsewhere (a payment recorded, the invoice sent): drawn again
 * as it is now, once nobody is typing in it. */
function following(s) {
	const { ctx, view, path } = s;
	const redraw = ctx.ui.whenFree(view, async (busy) => {
		let now;
		try {
			now = await ctx.api.get(path);
		} catch (e) {
			return; /* deleted, or the next change asks again */
		}
		if (ctx.signal.aborted || JSON.stringify(now) === JSON.stringify(s.inv))
			return;
		if (busy())
			return false;
		const had = view.contains(document.activeElement);
		s.inv = now;
		render(s);
		if (had)
			view.querySelector('h1').focus({ preventScroll: true });
	}, ctx.signal);
	ctx.onLive(['invoice.*'], (events) => {
		if (events.some((e) => e.type === 'reload' || e.id === s.inv.id))
			redraw();
	});
}

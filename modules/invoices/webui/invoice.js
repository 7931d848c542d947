// SPDX-License-Identifier: MIT
/*
 * invoice.js: an invoice (/app/invoices/:id) and a draft's form
 * (/app/invoices/new, and a draft's "Edit"), opened by invoices.js, whose
 * helpers come as `lib`.
 *
 * The invoice: its lines, totals and payments; a draft is edited, sent or
 * deleted; a sent one takes a payment (part of the balance or all of it)
 * or is voided; any is printed (the shell's print styles leave the page
 * alone on the paper). The form shows each line's amount and the totals
 * as they are typed, with the server's rules (an amount is quantity ×
 * unit price − discount; its tax rounded half up to the cent, per line);
 * once saved, the server's figures are the ones shown.
 */

const METHODS = [['card', 'Card'], ['bank_transfer', 'Bank transfer'], ['cash', 'Cash'], ['check', 'Check'],
	['other', 'Other']];

const units = (c) => (c / 100).toFixed(2);

/* The tax rate "7.5" (%) as basis points; NaN when it is not one. */
function basisPoints(text) {
	const t = String(text).trim();
	if (!t)
		return 0;
	if (!/^\d{1,3}(\.\d{0,2})?$/.test(t) || Number(t) > 100)
		return NaN;
	return Math.round(Number(t) * 100);
}

/* A line's amount and tax as the server computes them (money.c). */
function lineFigures(l) {
	const amount = l.quantity * l.unit_price_cents - l.discount_cents;
	return { amount, tax: Math.floor((amount * l.tax_rate_bp + 5000) / 10000) };
}

export default async function invoice(view, ctx, lib) {
	const { html, api, ui } = ctx;
	const path = '/api/invoices/' + ctx.params.id;
	let inv = await api.get(path);
	view.classList.add('invoice-page');

	function render() {
		ctx.title(inv.number || 'Draft invoice');
		const m = (c) => lib.money(c, inv.currency);
		const status = inv.status;
		const open = status === 'sent' || status === 'partially_paid';
		view.textContent = '';
		view.append(html`
<p class="crumbs no-print"><a href="${lib.appHref(ctx, '/invoices')}">Invoices</a></p>
<div class="page-head">
	<h1 tabindex="-1">${inv.number || 'Draft invoice'}</h1>
	${lib.badge(ctx, inv)}
	<div class="v-actions no-print">
		${status === 'draft' ? html`<a class="btn" href="${lib.appHref(ctx, '/invoices/new?draft=' + inv.id)}">Edit</a>
			<button type="button" class="btn btn-primary" data-send>Send</button>
			<button type="button" class="btn btn-danger" data-delete>Delete</button>` : ''}
		${open || status === 'draft' ? html`<button type="button" class="btn" data-void>Void</button>` : ''}
		<button type="button" class="btn" data-print>Print</button>
	</div>
</div>
<div class="card v-sheet">
	<dl class="v-facts">
		<dt>Bill to</dt><dd>${inv.contact_id ? html`<a href="${lib.appHref(ctx, '/contacts/' + inv.contact_id)}">${inv.contact_name || 'Contact ' + inv.contact_id}</a>` : '—'}</dd>
		<dt>Issued</dt><dd>${lib.day(inv.issued_at) || 'Not yet'}</dd>
		<dt>Due</dt><dd>${lib.day(inv.due_at) || '—'}</dd>
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
		<dt class="v-balance">Balance due</dt><dd class="v-balance">${m(inv.balance_cents)}</dd>
	</dl>
</div>
<section class="card v-payments" aria-labelledby="v-pay-h">
	<h2 id="v-pay-h">Payments</h2>
	${(inv.payments || []).length ? html`<ul class="v-pay-list">${inv.payments.map((p) => html`<li>
		<span>${lib.day(p.paid_at)}</span><span>${(METHODS.find((x) => x[0] === p.method) || [p.method, p.method])[1]}</span>
		<span class="v-num">${m(p.amount_cents)}</span></li>`)}</ul>` : html`<p class="muted">No payments yet.</p>`}
	${open ? html`<form class="v-pay no-print" novalidate aria-label="Record a payment">
		<div class="field"><label for="v-amount">Amount</label>
			<input id="v-amount" name="amount_cents" inputmode="decimal" autocomplete="off" value="${units(inv.balance_cents)}"></div>
		<div class="field"><label for="v-method">Method</label>
			<select id="v-method" name="method">${METHODS.map((x) => html`<option value="${x[0]}">${x[1]}</option>`)}</select></div>
		<button type="submit" class="btn btn-primary">Record payment</button>
	</form>` : ''}
</section>
<div class="no-print" data-confirm></div>`);
		wire();
	}

	async function act(work, done) {
		try {
			inv = await work();
		} catch (e) {
			if (!ctx.signal.aborted)
				ui.toast('The invoice could not be changed: ' + e.message, { kind: 'error' });
			return false;
		}
		render();
		view.querySelector('h1').focus();
		ui.toast(done, { kind: 'success' });
		return true;
	}

	/* Asks before `work` (voiding, deleting) with the question and the
	 * button's words. */
	async function confirmFirst(question, yes, work) {
		if (await ui.confirm(view.querySelector('[data-confirm]'), question, yes))
			work();
	}

	function wire() {
		const on = (sel, fn) => {
			const b = view.querySelector(sel);
			if (b)
				b.addEventListener('click', fn);
		};
		on('[data-print]', () => window.print());
		on('[data-send]', () => act(() => api.post(path + '/send'), 'Sent.'));
		on('[data-void]', () => confirmFirst('Void ' + (inv.number || 'this draft') + '? It stays on file, marked void.',
			'Void invoice', () => act(() => api.post(path + '/void'), 'Voided.')));
		on('[data-delete]', () => confirmFirst('Delete this draft for good?', 'Delete draft', async () => {
			try {
				await api.del(path);
			} catch (e) {
				if (!ctx.signal.aborted)
					ui.toast('The draft could not be deleted: ' + e.message, { kind: 'error' });
				return;
			}
			ui.toast('Draft deleted.', { kind: 'success' });
			ctx.navigate(lib.appHref(ctx, '/invoices'));
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
				await act(() => api.get(path), 'Payment of ' + lib.money(amount, inv.currency) + ' recorded.');
			});
		}
	}

	/* Changed elsewhere (a payment recorded, the invoice sent): drawn
	 * again as it is now, once nobody is typing in it. */
	const redraw = ui.whenFree(view, async (busy) => {
		let now;
		try {
			now = await api.get(path);
		} catch (e) {
			return; /* deleted, or the next change asks again */
		}
		if (ctx.signal.aborted || JSON.stringify(now) === JSON.stringify(inv))
			return;
		if (busy())
			return false;
		const had = view.contains(document.activeElement);
		inv = now;
		render();
		if (had)
			view.querySelector('h1').focus({ preventScroll: true });
	}, ctx.signal);
	ctx.onLive(['invoice.*'], (events) => {
		if (events.some((e) => e.type === 'reload' || e.id === inv.id))
			redraw();
	});

	render();
}

/* /app/invoices/new (?draft=ID edits that draft): the contact, the due
 * date and the lines, with the figures as they are typed. */
export async function newInvoice(view, ctx, lib) {
	const { html, api, ui } = ctx;
	const draftId = /^[1-9]\d{0,17}$/.test(ctx.query.get('draft') || '') ? ctx.query.get('draft') : null;
	const draft = draftId ? await api.get('/api/invoices/' + draftId) : null;
	if (draft && draft.status !== 'draft') {
		ctx.navigate(lib.appHref(ctx, '/invoices/' + draft.id));
		return;
	}
	const currency = draft ? draft.currency : 'USD';
	ctx.title(draft ? 'Edit ' + (draft.number || 'draft') : 'New invoice');
	view.classList.add('invoice-page');
	view.append(html`
<p class="crumbs"><a href="${lib.appHref(ctx, draft ? '/invoices/' + draft.id : '/invoices')}">${draft ? 'The invoice' : 'Invoices'}</a></p>
<div class="page-head"><h1>${draft ? 'Edit draft' : 'New invoice'}</h1></div>
<form class="card v-form" novalidate aria-label="Invoice">
	<div class="v-form-grid">
		<div class="field"><label for="v-contact">Bill to</label>
			<input id="v-contact" name="contact_id" type="search" autocomplete="off" placeholder="Type a contact's name"
				value="${draft && draft.contact_name ? draft.contact_name : ''}"></div>
		<div class="field"><label for="v-due">Due</label>
			<input id="v-due" name="due_at" type="date"></div>
	</div>
	<table class="table v-edit-lines">
		<caption class="visually-hidden">Lines</caption>
		<thead><tr><th scope="col" id="v-h-desc">Description</th><th scope="col" id="v-h-qty">Qty</th>
			<th scope="col" id="v-h-price">Unit price</th><th scope="col" id="v-h-disc">Discount</th>
			<th scope="col" id="v-h-tax">Tax %</th><th scope="col" class="v-num">Amount</th>
			<th scope="col"><span class="visually-hidden">Remove</span></th></tr></thead>
		<tbody></tbody>
	</table>
	<p><button type="button" class="btn" data-add-line>Add a line</button></p>
	<dl class="v-totals" aria-live="polite">
		<dt>Subtotal</dt><dd data-subtotal></dd><dt>Tax</dt><dd data-tax></dd>
		<dt class="v-total">Total</dt><dd class="v-total" data-total></dd>
	</dl>
	<div class="v-actions"><button type="submit" class="btn btn-primary">${draft ? 'Save draft' : 'Create draft'}</button>
		<a class="btn" href="${lib.appHref(ctx, draft ? '/invoices/' + draft.id : '/invoices')}">Cancel</a></div>
</form>`);
	const form = view.querySelector('form');
	const body = form.querySelector('tbody');
	if (draft && draft.due_at)
		form.elements.due_at.value = draft.due_at.slice(0, 10);
	const known = draft && draft.contact_id ? { label: draft.contact_name, value: draft.contact_id } : null;
	const chosen = ui.suggest(form.elements.contact_id, async (q) => {
		const answer = await api.get('/api/contacts', { q, limit: 8 });
		return (answer.data || []).map((c) => {
			const name = [c.first_name, c.last_name].filter(Boolean).join(' ') || c.email || 'Contact ' + c.id;
			return { label: c.email ? name + ' (' + c.email + ')' : name, value: c.id };
		});
	});
	let lineSeq = 0;

	function addLine(l) {
		const n = ++lineSeq;
		const tr = html`<tr class="v-line">
			<td data-label="Description"><input name="${'items[' + n + '].description'}" aria-labelledby="v-h-desc" maxlength="500" value="${l.description || ''}"></td>
			<td data-label="Qty"><input name="${'items[' + n + '].quantity'}" aria-labelledby="v-h-qty" inputmode="numeric" value="${String(l.quantity || 1)}"></td>
			<td data-label="Unit price"><input name="${'items[' + n + '].unit_price_cents'}" aria-labelledby="v-h-price" inputmode="decimal" value="${l.unit_price_cents ? units(l.unit_price_cents) : ''}"></td>
			<td data-label="Discount"><input name="${'items[' + n + '].discount_cents'}" aria-labelledby="v-h-disc" inputmode="decimal" value="${l.discount_cents ? units(l.discount_cents) : ''}"></td>
			<td data-label="Tax %"><input name="${'items[' + n + '].tax_rate_bp'}" aria-labelledby="v-h-tax" inputmode="decimal" value="${l.tax_rate_bp ? String(l.tax_rate_bp / 100) : ''}"></td>
			<td class="v-num" data-amount></td>
			<td><button type="button" class="btn btn-small btn-quiet" data-remove>Remove<span class="visually-hidden"> this line</span></button></td>
		</tr>`.firstElementChild;
		body.append(tr);
		return tr;
	}

	/* The lines as the API takes them, and whether each reads as numbers. */
	function lines() {
		return Array.from(body.querySelectorAll('.v-line'), (tr) => {
			const f = (k) => tr.querySelector('[name$=".' + k + '"]');
			const qty = f('quantity').value.trim();
			return {
				tr,
				description: f('description').value.trim(),
				quantity: /^\d+$/.test(qty) ? Number(qty) : NaN,
				unit_price_cents: ctx.format.minor(f('unit_price_cents').value || '0'),
				discount_cents: ctx.format.minor(f('discount_cents').value || '0'),
				tax_rate_bp: basisPoints(f('tax_rate_bp').value),
			};
		});
	}

	function refigure() {
		let sub = 0;
		let tax = 0;
		let ok = true;
		for (const l of lines()) {
			const good = [l.quantity, l.unit_price_cents, l.discount_cents, l.tax_rate_bp].every((v) => !isNaN(v));
			const f = good ? lineFigures(l) : null;
			l.tr.querySelector('[data-amount]').textContent = f && f.amount >= 0 ? lib.money(f.amount, currency) : '—';
			if (!f || f.amount < 0) {
				ok = false;
				continue;
			}
			sub += f.amount;
			tax += f.tax;
		}
		form.querySelector('[data-subtotal]').textContent = ok ? lib.money(sub, currency) : '—';
		form.querySelector('[data-tax]').textContent = ok ? lib.money(tax, currency) : '—';
		form.querySelector('[data-total]').textContent = ok ? lib.money(sub + tax, currency) : '—';
	}

	for (const l of (draft && draft.items && draft.items.length ? draft.items : [{}]))
		addLine(l);
	refigure();
	form.addEventListener('input', refigure);
	form.addEventListener('click', (e) => {
		if (e.target.closest('[data-add-line]')) {
			addLine({}).querySelector('input').focus();
			refigure();
		} else if (e.target.closest('[data-remove]')) {
			const tr = e.target.closest('tr');
			const next = tr.nextElementSibling || tr.previousElementSibling;
			tr.remove();
			refigure();
			(next ? next.querySelector('input') : form.querySelector('[data-add-line]')).focus();
		}
	});

	form.addEventListener('submit', async (e) => {
		e.preventDefault();
		ui.clearErrors(form);
		let contact = chosen();
		if (contact === undefined && known && form.elements.contact_id.value.trim() === known.label)
			contact = known.value;
		if (contact === undefined) {
			ui.formErrors(form, { fields: { contact_id: 'choose a contact from the list as you type' } });
			return;
		}
		const items = lines().map((l, i) => {
			const bad = (k) => isNaN(l[k]);
			const name = (k) => l.tr.querySelector('[name$=".' + k + '"]').name;
			for (const k of ['quantity', 'unit_price_cents', 'discount_cents', 'tax_rate_bp']) {
				if (bad(k))
					return { error: [name(k), k === 'quantity' ? 'a whole number' : k === 'tax_rate_bp'
						? 'a percentage, like 7.5' : 'an amount, like 250 or 250.50'], i };
			}
			return { description: l.description, quantity: l.quantity, unit_price_cents: l.unit_price_cents,
				discount_cents: l.discount_cents, tax_rate_bp: l.tax_rate_bp };
		});
		const wrong = items.find((x) => x.error);
		if (wrong) {
			ui.formErrors(form, { fields: { [wrong.error[0]]: wrong.error[1] } });
			return;
		}
		const invoiceBody = { items };
		if (contact)
			invoiceBody.contact_id = contact;
		if (form.elements.due_at.value)
			invoiceBody.due_at = new Date(form.elements.due_at.value + 'T12:00:00Z').toISOString();
		let saved;
		try {
			saved = draft ? await api.patch('/api/invoices/' + draft.id, invoiceBody)
				: await api.post('/api/invoices', invoiceBody);
		} catch (err) {
			if (ctx.signal.aborted)
				return;
			/* the server names a line as items[2].quantity: the form's
			 * own names count from 1, in the same order */
			if (err.fields) {
				const names = Array.from(body.querySelectorAll('.v-line'), (tr) => tr.querySelector('input').name.replace(/\.description$/, ''));
				for (const k of Object.keys(err.fields)) {
					const m = /^items\[(\d+)\](\..+)$/.exec(k);
					if (m && names[Number(m[1])]) {
						err.fields[names[Number(m[1])] + m[2]] = err.fields[k];
						delete err.fields[k];
					}
				}
			}
			ui.formErrors(form, err);
			return;
		}
		ui.toast(draft ? 'Draft saved.' : 'Draft created.', { kind: 'success' });
		ctx.navigate(lib.appHref(ctx, '/invoices/' + saved.id));
	});
}

// SPDX-License-Identifier: MIT
/*
 * invoice-form.js: a draft invoice's form, new (/app/invoices/new) or a
 * draft edited (?draft=ID), opened by invoices.js. The contact is picked
 * by typing part of a name, the due date and the lines typed, then the
 * client's address, notes and terms (a new one starts with the
 * sub-account's notes and terms, and the address the contact's last
 * invoice had, filled by the server when left empty); each line's
 * amount and the totals show as they are typed, with the server's rules
 * (an amount is quantity × unit price − discount; its tax rounded half up
 * to the cent, per line). A refusal shows by the field it names, a line's
 * by that line's.
 *
 * The form's state `v`: {ctx, form, body (the lines' tbody), draft (the
 * draft edited, or null), chosen (the contact picker), known (the
 * draft's contact), lineSeq}.
 */

/* The tax rate "7.5" (%) as basis points; NaN when it is not one. */
function basisPoints(text) {
	const t = String(text).trim();
	if (!t)
		return 0;
	if (!/^\d{1,3}(\.\d{0,2})?$/.test(t) || Number(t) > 100)
		return NaN;
	return Math.round(Number(t) * 100);
}

/* A line's amount and tax as the server computes them (money.c): the
 * quantity in thousandths, the product rounded half up to a cent. */
function lineFigures(l) {
	const milli = Math.round(l.quantity * 1000);
	const amount = Math.floor((milli * l.unit_price_cents + 500) / 1000) - l.discount_cents;
	return { amount, tax: Math.floor((amount * l.tax_rate_bp + 5000) / 10000) };
}

export async function newInvoice(view, ctx) {
	const { api, ui } = ctx;
	const draftId = /^[1-9]\d{0,17}$/.test(ctx.query.get('draft') || '') ? ctx.query.get('draft') : null;
	const [draft, defaults] = await Promise.all([draftId ? api.get('/api/invoices/' + draftId) : null,
		draftId ? null : api.get('/api/invoice-settings')]);
	/* a contact's "New invoice": billed to them */
	const about = draft ? null : await ui.contactAsked(api, ctx.query);
	if (draft && draft.status !== 'draft') {
		ctx.navigate(ctx.href('/invoices/' + draft.id));
		return;
	}
	ctx.title(draft ? 'Edit ' + (draft.number || 'draft') : 'New invoice');
	view.classList.add('invoice-page');
	view.append(frame(ctx, draft));
	const form = view.querySelector('form');
	const v = {
		ctx, form, draft, body: form.querySelector('tbody'), lineSeq: 0,
		known: draft && draft.contact_id ? { label: draft.contact_name, value: draft.contact_id } : null,
		chosen: ui.pickContact(form.elements.contact_id, api, about),
	};
	if (draft && draft.due_at)
		form.elements.due_at.value = ctx.format.dayKey(draft.due_at);
	for (const k of ['client_address', 'notes', 'terms']) /* html.js puts no value in a textarea */
		form.elements[k].value = (draft || defaults)[k] || '';
	for (const l of (draft && draft.items && draft.items.length ? draft.items : [{}]))
		addLine(v, l);
	refigure(v);
	form.addEventListener('input', () => refigure(v));
	form.addEventListener('click', (e) => {
		if (e.target.closest('[data-add-line]')) {
			addLine(v, {}).querySelector('input').focus();
			refigure(v);
		} else if (e.target.closest('[data-remove]')) {
			const tr = e.target.closest('tr');
			const next = tr.nextElementSibling || tr.previousElementSibling;
			tr.remove();
			refigure(v);
			(next ? next.querySelector('input') : form.querySelector('[data-add-line]')).focus();
		}
	});
	form.addEventListener('submit', (e) => {
		e.preventDefault();
		submit(v);
	});
}

function frame(ctx, draft) {
	const back = ctx.href(draft ? '/invoices/' + draft.id : '/invoices');
	return ctx.html`
<p class="crumbs"><a href="${back}">${draft ? 'The invoice' : 'Invoices'}</a></p>
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
	<div class="v-form-grid v-printed">
		<div class="field"><label for="v-address">Client's address</label>
			<textarea id="v-address" name="client_address" rows="3" maxlength="500"
				aria-describedby="v-address-hint"></textarea>
			<small id="v-address-hint" class="muted">${draft ? 'As it is printed.' : 'Left empty: the one on their last invoice.'}</small></div>
		<div class="field"><label for="v-notes">Notes</label>
			<textarea id="v-notes" name="notes" rows="3" maxlength="2000"></textarea></div>
		<div class="field"><label for="v-terms">Terms</label>
			<textarea id="v-terms" name="terms" rows="3" maxlength="2000"></textarea></div>
	</div>
	<div class="v-actions"><button type="submit" class="btn btn-primary">${draft ? 'Save draft' : 'Create draft'}</button>
		<a class="btn" href="${back}">Cancel</a></div>
</form>`;
}

function addLine(v, l) {
	const n = ++v.lineSeq;
	const amount = v.ctx.format.amount;
	const name = (k) => 'items[' + n + '].' + k;
	const tr = v.ctx.html`<tr class="v-line">
		<td data-label="Description"><input name="${name('description')}" aria-labelledby="v-h-desc" maxlength="500" value="${l.description || ''}"></td>
		<td data-label="Qty"><input name="${name('quantity')}" aria-labelledby="v-h-qty" inputmode="decimal" value="${String(l.quantity || 1)}"></td>
		<td data-label="Unit price"><input name="${name('unit_price_cents')}" aria-labelledby="v-h-price" inputmode="decimal" value="${l.unit_price_cents ? amount(l.unit_price_cents) : ''}"></td>
		<td data-label="Discount"><input name="${name('discount_cents')}" aria-labelledby="v-h-disc" inputmode="decimal" value="${l.discount_cents ? amount(l.discount_cents) : ''}"></td>
		<td data-label="Tax %"><input name="${name('tax_rate_bp')}" aria-labelledby="v-h-tax" inputmode="decimal" value="${l.tax_rate_bp ? String(l.tax_rate_bp / 100) : ''}"></td>
		<td class="v-num" data-amount></td>
		<td><button type="button" class="btn btn-small btn-quiet" data-remove>Remove<span class="visually-hidden"> this line</span></button></td>
	</tr>`.firstElementChild;
	v.body.append(tr);
	return tr;
}

/* The lines as the API takes them, and whether each reads as numbers. */
function lines(v) {
	const minor = v.ctx.format.minor;
	return Array.from(v.body.querySelectorAll('.v-line'), (tr) => {
		const f = (k) => tr.querySelector('[name$=".' + k + '"]');
		const qty = f('quantity').value.trim();
		return {
			tr,
			description: f('description').value.trim(),
			quantity: /^\d{1,10}(\.\d{1,3})?$/.test(qty) && Number(qty) > 0 ? Number(qty) : NaN,
			unit_price_cents: minor(f('unit_price_cents').value || '0'),
			discount_cents: minor(f('discount_cents').value || '0'),
			tax_rate_bp: basisPoints(f('tax_rate_bp').value),
		};
	});
}

/* Each line's amount and the totals, as typed so far. */
function refigure(v) {
	const money = v.ctx.format.money;
	let sub = 0;
	let tax = 0;
	let ok = true;
	for (const l of lines(v)) {
		const good = [l.quantity, l.unit_price_cents, l.discount_cents, l.tax_rate_bp].every((x) => !isNaN(x));
		const f = good ? lineFigures(l) : null;
		l.tr.querySelector('[data-amount]').textContent = f && f.amount >= 0 ? money(f.amount) : '—';
		if (!f || f.amount < 0) {
			ok = false;
			continue;
		}
		sub += f.amount;
		tax += f.tax;
	}
	v.form.querySelector('[data-subtotal]').textContent = ok ? money(sub) : '—';
	v.form.querySelector('[data-tax]').textContent = ok ? money(tax) : '—';
	v.form.querySelector('[data-total]').textContent = ok ? money(sub + tax) : '—';
}

/* The lines as the API takes them, or {error: [field, what]} for the
 * first that does not read as numbers. */
function items(v) {
	const all = lines(v).map((l) => {
		const name = (k) => l.tr.querySelector('[name$=".' + k + '"]').name;
		for (const k of ['quantity', 'unit_price_cents', 'discount_cents', 'tax_rate_bp']) {
			if (isNaN(l[k]))
				return { error: [name(k), k === 'quantity' ? 'a number, like 2 or 1.5 (3 decimals at most)' : k === 'tax_rate_bp'
					? 'a percentage, like 7.5' : 'an amount, like 250 or 250.50'] };
		}
		return { description: l.description, quantity: l.quantity, unit_price_cents: l.unit_price_cents,
			discount_cents: l.discount_cents, tax_rate_bp: l.tax_rate_bp };
	});
	return all.find((x) => x.error) || all;
}

/* The server names a line as items[2].quantity: the form's own names
 * count from 1, in the same order. */
function byLine(v, err) {
	if (!err.fields)
		return;
	const names = Array.from(v.body.querySelectorAll('.v-line'), (tr) => tr.querySelector('input').name.replace(/\.description$/, ''));
	for (const k of Object.keys(err.fields)) {
		const m = /^items\[(\d+)\](\..+)$/.exec(k);
		if (m && names[Number(m[1])]) {
			err.fields[names[Number(m[1])] + m[2]] = err.fields[k];
			delete err.fields[k];
		}
	}
}

async function submit(v) {
	const { ctx, form, draft } = v;
	const { api, ui } = ctx;
	ui.clearErrors(form);
	let contact = v.chosen();
	if (contact === undefined && v.known && form.elements.contact_id.value.trim() === v.known.label)
		contact = v.known.value;
	if (contact === undefined) {
		ui.formErrors(form, { fields: { contact_id: 'choose a contact from the list as you type' } });
		return;
	}
	const list = items(v);
	if (list.error) {
		ui.formErrors(form, { fields: { [list.error[0]]: list.error[1] } });
		return;
	}
	const invoiceBody = { items: list, notes: form.elements.notes.value.trim(),
		terms: form.elements.terms.value.trim() };
	const address = form.elements.client_address.value.trim();
	if (address || draft)
		invoiceBody.client_address = address;
	if (contact)
		invoiceBody.contact_id = contact;
	if (form.elements.due_at.value) /* a day: the server takes it as the sub-account's */
		invoiceBody.due_at = form.elements.due_at.value;
	let saved;
	try {
		saved = draft ? await api.patch('/api/invoices/' + draft.id, invoiceBody)
			: await api.post('/api/invoices', invoiceBody);
	} catch (err) {
		if (ctx.signal.aborted)
			return;
		byLine(v, err);
		ui.formErrors(form, err);
		return;
	}
	ui.toast(draft ? 'Draft saved.' : 'Draft created.', { kind: 'success' });
	ctx.navigate(ctx.href('/invoices/' + saved.id));
}

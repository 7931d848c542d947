/* SPDX-License-Identifier: MIT */
/*
 * record.c: GET /api/invoices/:id, one invoice with its contact's name,
 * its lines in position order and its payments in the order they were
 * made, the business it comes from (INVOICE_BUSINESS), the address of
 * its public page and its last mail, in one statement; for an "assigned only" caller, one of their
 * contacts' (INVOICE_MINE), else 404.
 */
#include "invoices.h"

int invoices_reply_record(struct hl_req *req, int status, int64_t id)
{
	return hl_reply_record(req, status, id, "invoice",
		"SELECT i.id, i.number, i.contact_id," INVOICE_CONTACT_NAME ", i.status, i.currency,"
		" i.subtotal_cents, i.tax_cents, i.total_cents, i.paid_cents,"
		" iif(i.status IN ('sent', 'partially_paid'), i.total_cents - i.paid_cents, 0)"
		" AS balance_cents, i.issued_at, i.due_at, i.paid_at,"
		" i.created_at, i.updated_at, c.email AS contact_email, i.client_address, i.notes,"
		" i.terms, " INVOICE_BUSINESS " AS json_business, '/i/' || i.view_key AS view_url,"
		" (SELECT json_object('state', m.state, 'to', m.to_address, 'reason', m.reason,"
		"   'at', coalesce(m.sent_at, m.created_at)) FROM invoice_mails m"
		"  WHERE m.invoice_id = i.id ORDER BY m.id DESC LIMIT 1) AS json_mail,"
		" (SELECT json_group_array(json_object('id', l.id, 'position', l.position,"
		"   'description', l.description, 'quantity', l.quantity,"
		"   'unit_price_cents', l.unit_price_cents, 'discount_cents', l.discount_cents,"
		"   'tax_rate_bp', l.tax_rate_bp, 'amount_cents', l.amount_cents,"
		"   'tax_cents', l.tax_cents))"
		"  FROM (SELECT * FROM invoice_items WHERE invoice_id = i.id ORDER BY position) l)"
		"  AS json_items,"
		" (SELECT json_group_array(json_object('id', p.id, 'amount_cents', p.amount_cents,"
		"   'method', p.method, 'paid_at', p.paid_at, 'created_at', p.created_at))"
		"  FROM (SELECT * FROM payments WHERE invoice_id = i.id ORDER BY paid_at, id) p)"
		"  AS json_payments"
		" FROM invoices i LEFT JOIN contacts c ON c.id = i.contact_id" INVOICE_BUSINESS_JOIN
		" WHERE i.id = :id AND i.location_id = :location" INVOICE_MINE);
}

int invoices_record(struct hl_req *req)
{
	int64_t id;
	int rc = hl_param_id(req, "id", &id);
	return rc ? rc : invoices_reply_record(req, 200, id);
}

/* SPDX-License-Identifier: MIT */
/*
 * status.c: an invoice's life after its draft. The states and the
 * functions that move between them:
 *
 *   draft ──send──> sent ──payment──> partially_paid ──payment──> paid
 *                     └───────────── payment (the whole balance) ──┘
 *   draft, sent, partially_paid ──void──> void
 *
 * paid and void are final. A payment is at most the balance due (more is
 * 422); on a draft, a void or a paid invoice it is 409.
 */
#include "invoices.h"

#include <string.h>

static const char *const payment_keys[] = { "amount_cents", "method", "paid_at", NULL };
static const char *const methods[] = { "card", "bank_transfer", "cash", "check", "other", NULL };

/* Load invoice :id for a status change: 0, HL_EINVAL after answering
 * 404, HL_EDB. */
static int load(struct hl_req *req, struct invoice_state *s)
{
	int64_t id;
	int rc = hl_param_id(req, "id", &id);
	return rc ? rc : invoice_state_load(req, id, s);
}

/* Set the status and paid_cents; `issue`: issued now; `paid_at`, when
 * not NULL: the invoice's paid_at. */
static int set_status(struct hl_req *req, const struct invoice_state *s, const char *status,
		      int issue, const char *paid_at)
{
	sqlite3_stmt *st = hl_scoped_write(req,
		"UPDATE invoices SET status = :status, paid_cents = :paid_cents,"
		" issued_at = CASE WHEN :issue THEN strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
		"  ELSE issued_at END,"
		" paid_at = coalesce(:paid_at, paid_at),"
		" updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
		" WHERE id = :id AND location_id = :location");
	hl_bind_int(st, ":id", s->id);
	hl_bind_text(st, ":status", status);
	hl_bind_int(st, ":paid_cents", s->paid_cents);
	hl_bind_int(st, ":issue", issue);
	hl_bind_text(st, ":paid_at", paid_at);
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

static int finish(struct hl_req *req, const struct invoice_state *s, const char *event)
{
	int rc = invoice_publish(req, event, s->id, s->contact_id);
	return rc ? rc : invoices_reply_record(req, 200, s->id);
}

/* POST /api/invoices/:id/send: a draft is issued now ("Mark as sent":
 * the person hands it over themselves; mail.c e-mails it). */
int invoices_send(struct hl_req *req)
{
	struct invoice_state s;
	int rc = load(req, &s);
	if (rc)
		return rc;
	if (strcmp(s.status, "draft"))
		return invoice_refuse(req, s.status, "only a draft can be sent");
	rc = set_status(req, &s, "sent", 1, NULL);
	if (!rc && !invoice_view_key(req, s.id))
		rc = HL_EDB;
	return rc ? rc : finish(req, &s, "invoice.sent");
}

/* POST /api/invoices/:id/void: anything not paid (or void already). */
int invoices_void(struct hl_req *req)
{
	struct invoice_state s;
	int rc = load(req, &s);
	if (rc)
		return rc;
	if (!strcmp(s.status, "paid") || !strcmp(s.status, "void"))
		return invoice_refuse(req, s.status, "a paid or void invoice cannot be voided");
	rc = set_status(req, &s, "void", 0, NULL);
	return rc ? rc : finish(req, &s, "invoice.voided");
}

/* The body of a payment; answers 422 itself (HL_EINVAL). */
static int read_payment(struct hl_req *req, int64_t *amount, const char **method,
			const char **paid_at)
{
	int rc = hl_fields_only(req, 0, payment_keys);
	if (!rc && (rc = hl_field_int(req, 0, "amount_cents", 1, MONEY_MAX, amount)) >= 0 &&
	    rc != HL_FIELD_SET) /* absent or null: a payment needs an amount */
		return hl_reply_invalid(req, "amount_cents", "an integer from 1 to 10000000000000");
	if (rc >= 0)
		rc = hl_field_text(req, 0, "method", 20, method);
	int known = 0;
	for (const char *const *m = methods; rc >= 0 && *method && *m && !known; m++)
		known = !strcmp(*m, *method);
	if (rc >= 0 && !known)
		return hl_reply_invalid(req, "method",
					"one of card, bank_transfer, cash, check, other");
	if (rc >= 0)
		rc = hl_field_time(req, 0, "paid_at", paid_at);
	return rc < 0 ? rc : 0;
}

/* Insert the payment; *paid_at becomes the time stored (now when NULL). */
static int payment_insert(struct hl_req *req, int64_t id, int64_t amount, const char *method,
			  const char **paid_at)
{
	sqlite3_stmt *st = hl_scoped_write(req,
		"INSERT INTO payments (location_id, invoice_id, amount_cents, method, paid_at)"
		" VALUES (:location, :invoice_id, :amount_cents, :method,"
		"  coalesce(:paid_at, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')))"
		" RETURNING paid_at");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":invoice_id", id);
	hl_bind_int(st, ":amount_cents", amount);
	hl_bind_text(st, ":method", method);
	hl_bind_text(st, ":paid_at", *paid_at);
	if (sqlite3_step(st) != SQLITE_ROW)
		return HL_EDB;
	*paid_at = hl_sprintf(req, "%s", (const char *)sqlite3_column_text(st, 0));
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

/* POST /api/invoices/:id/payments: part of the balance moves a sent
 * invoice to partially_paid, the rest of it to paid (its paid_at: the
 * last payment's). 201 with the invoice. */
int invoices_pay(struct hl_req *req)
{
	struct invoice_state s;
	int64_t amount;
	const char *method, *paid_at;
	int rc = read_payment(req, &amount, &method, &paid_at);
	if (!rc)
		rc = load(req, &s);
	if (rc)
		return rc;
	if (strcmp(s.status, "sent") && strcmp(s.status, "partially_paid"))
		return invoice_refuse(req, s.status, "payments are recorded on sent invoices only");
	if (amount > s.total_cents - s.paid_cents)
		return hl_reply_invalid(req, "amount_cents", "more than the balance due, %lld",
					(long long)(s.total_cents - s.paid_cents));
	if ((rc = payment_insert(req, s.id, amount, method, &paid_at)))
		return rc;
	s.paid_cents += amount;
	int paid = s.paid_cents == s.total_cents;
	if ((rc = set_status(req, &s, paid ? "paid" : "partially_paid", 0, paid ? paid_at : NULL)) ||
	    (rc = invoice_publish(req, "invoice.payment_recorded", s.id, s.contact_id)))
		return rc;
	if (paid && (rc = invoice_publish(req, "invoice.paid", s.id, s.contact_id)))
		return rc;
	return invoices_reply_record(req, 201, s.id);
}

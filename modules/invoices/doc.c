/* SPDX-License-Identifier: MIT */
/*
 * doc.c: an invoice as its printouts show it (the public page, view.c,
 * and the PDF, pdf.c), read by its view key in two statements: the
 * invoice with its business and client, then its lines. Dates are the
 * days of the sub-account's zone; amounts stay in minor units.
 */
#include "invoices.h"

#include <string.h>

/* The business's detail `c`: the sub-account's when it names one, else
 * the agency's (INVOICE_BUSINESS). */
#define FROM(c) " iif(s.business_name <> '', s." c ", a." c "),"

#define DOC_SQL \
	"SELECT i.id, i.location_id, i.number, i.status, i.currency, i.subtotal_cents," \
	" i.tax_cents, i.total_cents, i.paid_cents," \
	" iif(i.status IN ('sent', 'partially_paid'), i.total_cents - i.paid_cents, 0)," \
	" date(local_day(unixepoch(i.issued_at), lo.timezone) * 86400, 'unixepoch')," \
	" date(local_day(unixepoch(i.due_at), lo.timezone) * 86400, 'unixepoch')," \
	" trim(c.first_name || ' ' || c.last_name), c.email, i.client_address, i.notes, i.terms," \
	" iif(s.business_name <> '', s.business_name, a.name)," \
	FROM("address") FROM("email") FROM("phone") FROM("tax_id") \
	" iif(s.business_name <> '', sl.key, g.key), lo.country," \
	" iif(s.business_name <> '', sl.content_type, g.content_type)," \
	" iif(s.business_name <> '', sl.content, g.content)" \
	" FROM invoices i LEFT JOIN contacts c ON c.id = i.contact_id" INVOICE_BUSINESS_JOIN

static const char *col(struct hl_req *req, sqlite3_stmt *st, int i)
{
	const char *v = (const char *)sqlite3_column_text(st, i);
	return v ? hl_sprintf(req, "%s", v) : "";
}

static int read_lines(struct hl_req *req, struct invoice_doc *d)
{
	sqlite3_stmt *st = hl_stmt_scoped(hl_read(req), d->location, "SELECT description,"
		" CAST(quantity AS TEXT), unit_price_cents, discount_cents, tax_rate_bp, amount_cents,"
		" count(*) OVER () FROM invoice_items WHERE invoice_id = :id"
		" AND location_id = :location ORDER BY position");
	hl_bind_int(st, ":id", d->id);
	if (!st)
		return HL_EDB;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!d->lines)
			d->lines = hl_alloc(req, sizeof(*d->lines) * (size_t)sqlite3_column_int(st, 6));
		struct invoice_doc_line *l = &d->lines[d->nlines++];
		l->description = col(req, st, 0);
		l->quantity = col(req, st, 1);
		l->unit_price_cents = sqlite3_column_int64(st, 2);
		l->discount_cents = sqlite3_column_int64(st, 3);
		l->tax_rate_bp = sqlite3_column_int64(st, 4);
		l->amount_cents = sqlite3_column_int64(st, 5);
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : HL_EDB;
}

/* The row of `st` (DOC_SQL) into `d`, then its lines. */
static int read_doc(struct hl_req *req, sqlite3_stmt *st, struct invoice_doc *d)
{
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(st);
		return rc == SQLITE_DONE ? HL_ENOENT : HL_EDB;
	}
	d->id = sqlite3_column_int64(st, 0);
	d->location = sqlite3_column_int64(st, 1);
	d->number = col(req, st, 2);
	d->status = col(req, st, 3);
	d->currency = col(req, st, 4);
	for (int i = 0; i < 5; i++)
		d->cents[i] = sqlite3_column_int64(st, 5 + i);
	for (int i = 0; i < DOC_TEXTS; i++)
		d->texts[i] = col(req, st, 10 + i);
	d->letter = !strcmp(col(req, st, 10 + DOC_TEXTS), "US") ||
		    !strcmp(col(req, st, 10 + DOC_TEXTS), "CA");
	d->logo_type = col(req, st, 11 + DOC_TEXTS);
	d->logo_len = (size_t)sqlite3_column_bytes(st, 12 + DOC_TEXTS);
	if (d->logo_len) {
		void *logo = hl_alloc(req, d->logo_len);
		memcpy(logo, sqlite3_column_blob(st, 12 + DOC_TEXTS), d->logo_len);
		d->logo = logo;
	}
	sqlite3_reset(st);
	return read_lines(req, d);
}

int invoice_doc_load(struct hl_req *req, const char *key, struct invoice_doc *d)
{
	memset(d, 0, sizeof(*d));
	if (!key || strlen(key) != 32 || strspn(key, "0123456789abcdef") != 32)
		return HL_ENOENT;
	sqlite3_stmt *st = hl_stmt(hl_read(req), DOC_SQL " WHERE i.view_key = :key");
	hl_bind_text(st, ":key", key);
	return st ? read_doc(req, st, d) : HL_EDB;
}

int invoice_doc_load_id(struct hl_req *req, int64_t id, struct invoice_doc *d)
{
	memset(d, 0, sizeof(*d));
	sqlite3_stmt *st = hl_scoped_read(req, DOC_SQL " WHERE i.id = :id AND i.location_id = :location"
					  INVOICE_MINE);
	hl_bind_int(st, ":id", id);
	hl_bind_int(st, ":me", hl_assigned_user(req));
	return st ? read_doc(req, st, d) : HL_EDB;
}

const char *invoice_status_words(const char *status)
{
	return !strcmp(status, "paid") ? "Paid" : !strcmp(status, "void") ? "Void"
		: !strcmp(status, "partially_paid") ? "Partly paid" : !strcmp(status, "draft") ? "Draft"
		: "Awaiting payment";
}

/* SPDX-License-Identifier: MIT */
/*
 * list.c: GET /api/invoices, newest first (created_at, then id), with the
 * contact's name, filtered by status (or "overdue": sent or partially
 * paid and past due) and the issue date, in keyset pages.
 *
 * Each combination of filters is one SQL text, prepared once per
 * connection, whose plan walks an index in the list's order: (location,
 * created_at, id) or, with a status, (location, status, created_at, id).
 * The cursor is the last row's created_at and id as a JSON array, in hex:
 * opaque to clients, read back by SQLite. ?q keeps the invoices whose
 * number or contact's name holds it, accents and case aside (the
 * header's search), checked along that walk.
 */
#include "invoices.h"

#include <ctype.h>
#include <string.h>

static const char *const statuses[] = {
	"draft", "sent", "paid", "partially_paid", "void", "overdue", NULL,
};

struct filters {
	const char *status, *after, *before, *cursor;
	const char *q; /* in the number or the contact's name, or NULL */
	int64_t limit, count;
};

static int bad(struct hl_req *req, const char *message)
{
	hl_reply_error(req, 400, "bad_request", "%s", message);
	return HL_EINVAL;
}

/* The query's filters: 0, or HL_EINVAL after answering 400. */
static int read_filters(struct hl_req *req, struct filters *f)
{
	memset(f, 0, sizeof(*f));
	if (hl_query_int(req, "limit", 50, 1, 1000, &f->limit) ||
	    hl_query_int(req, "count", 0, 0, 1, &f->count))
		return HL_EINVAL;
	if ((f->status = hl_query(req, "status"))) {
		const char *const *s = statuses;
		while (*s && strcmp(*s, f->status))
			s++;
		if (!*s)
			return bad(req, "status is one of draft, sent, paid, partially_paid, void,"
				   " overdue");
	}
	if (hl_query_time(req, "issued_after", &f->after) ||
	    hl_query_time(req, "issued_before", &f->before))
		return HL_EINVAL;
	f->q = hl_query(req, "q");
	if (f->q && (!*f->q || hl_text_length(f->q) > 200))
		return bad(req, "q is 1 to 200 characters");
	return hl_query_keyset(req, "cursor", "si", &f->cursor);
}

/* " FROM ... WHERE ...": the location's invoices that pass the filters.
 * Overdue is two statuses, each an index range in created_at order. */
static const char *where(struct hl_req *req, const struct filters *f)
{
	const char *status = !f->status ? ""
		: !strcmp(f->status, "overdue")
		? " AND i.status IN ('sent', 'partially_paid')"
		  " AND i.due_at < strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
		: " AND i.status = :status";
	return hl_sprintf(req, " FROM invoices i LEFT JOIN contacts c ON c.id = i.contact_id"
			  " WHERE i.location_id = :location" INVOICE_MINE "%s%s%s%s", status,
			  f->q ? " AND (instr(fold(i.number), fold(:q))"
				 " OR instr(fold(c.first_name || ' ' || c.last_name), fold(:q)))" : "",
			  f->after ? " AND i.issued_at >= :after" : "",
			  f->before ? " AND i.issued_at < :before" : "");
}

/* The filters' parameters that the statement has (hl_bind_* skips the
 * others), and the caller's, :me. */
static void bind(struct hl_req *req, sqlite3_stmt *st, const struct filters *f)
{
	hl_bind_int(st, ":me", hl_assigned_user(req));
	hl_bind_text(st, ":status", f->status);
	hl_bind_text(st, ":after", f->after);
	hl_bind_text(st, ":before", f->before);
	hl_bind_text(st, ":cursor", f->cursor);
	hl_bind_text(st, ":q", f->q);
	hl_bind_int(st, ":limit", f->limit + 1);
}

/* The invoices that pass the filters, all pages: the count, or HL_EDB. */
static int64_t count(struct hl_req *req, const struct filters *f)
{
	sqlite3_stmt *st = hl_scoped_read(req, hl_sprintf(req, "SELECT count(*)%s", where(req, f)));
	if (!st)
		return HL_EDB;
	bind(req, st, f);
	int64_t n;
	return hl_step_int(st, &n) < 0 ? HL_EDB : n;
}

int invoices_list(struct hl_req *req)
{
	struct filters f;
	int64_t total = -1;
	int rc = read_filters(req, &f);
	if (rc)
		return rc;
	if (f.count && (total = count(req, &f)) < 0)
		return HL_EDB;
	sqlite3_stmt *st = hl_scoped_read(req, hl_sprintf(req,
		"SELECT i.id, i.number, i.contact_id," INVOICE_CONTACT_NAME ", i.status, i.currency,"
		" i.subtotal_cents, i.tax_cents, i.total_cents, i.paid_cents, i.issued_at, i.due_at,"
		" i.paid_at, i.created_at, i.updated_at, hex(json_array(i.created_at, i.id)) AS _cursor"
		"%s%s ORDER BY i.created_at DESC, i.id DESC LIMIT :limit", where(req, &f),
		f.cursor ? " AND (i.created_at, i.id) < (json_extract(:cursor, '$[0]'),"
			   " json_extract(:cursor, '$[1]'))" : ""));
	if (!st)
		return HL_EDB;
	bind(req, st, &f);
	return hl_reply_page_total(req, st, f.limit, 15, total);
}

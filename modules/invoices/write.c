/* SPDX-License-Identifier: MIT */
/*
 * write.c: creating invoices, and changing or deleting them while they
 * are drafts (anything else is 409: a sent invoice is a document the
 * customer has). The body is checked member by member (422 naming it,
 * unknown members refused); the server computes every amount (money.c).
 * Every write publishes an event.
 */
#include "invoices.h"

#include <string.h>

static const char *const invoice_keys[] = { "contact_id", "currency", "due_at", "items", NULL };

/* What a create or change says; a member whose bit is clear is left. */
struct invoice_input {
	int64_t contact_id;   /* 0: none */
	const char *currency; /* three capital letters */
	const char *due_at;   /* stored form, or NULL */
	struct line *lines;
	int nlines;
	struct totals totals;
	unsigned given;       /* GIVEN_* */
};
enum { GIVEN_CONTACT = 1, GIVEN_CURRENCY = 2, GIVEN_DUE = 4, GIVEN_ITEMS = 8 };

static int is_currency(const char *s)
{
	return strlen(s) == 3 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'A' && s[1] <= 'Z' &&
	       s[2] >= 'A' && s[2] <= 'Z';
}

static int refuse(struct hl_req *req, const char *message)
{
	hl_reply_error(req, 422, "validation", "%s", message);
	return HL_EINVAL;
}

/* contact_id: a live contact of this location, or null for none. */
static int read_contact(struct hl_req *req, struct invoice_input *in)
{
	int rc = hl_field_int(req, 0, "contact_id", 1, INT64_MAX, &in->contact_id);
	if (rc <= HL_FIELD_ABSENT)
		return rc;
	in->given |= GIVEN_CONTACT;
	int ok = in->contact_id ? invoice_contact_ok(req, in->contact_id) : 1;
	return ok < 0 ? ok : ok ? 0 : refuse(req, "contact_id: no contact of this location");
}

/* The body; answers 422 itself (HL_EINVAL). `whole`: a new invoice. */
static int read_input(struct hl_req *req, struct invoice_input *in, int whole)
{
	memset(in, 0, sizeof(*in));
	int rc = hl_fields_only(req, 0, invoice_keys);
	if (!rc)
		rc = read_contact(req, in);
	if (rc >= 0 && (rc = hl_field_text(req, 0, "currency", 3, &in->currency)) > HL_FIELD_ABSENT) {
		if (!in->currency || !is_currency(in->currency))
			return refuse(req, "currency: three capital letters (ISO 4217), USD");
		in->given |= GIVEN_CURRENCY;
	}
	if (rc >= 0 && (rc = hl_field_time(req, 0, "due_at", &in->due_at)) > HL_FIELD_ABSENT)
		in->given |= GIVEN_DUE;
	if (rc < 0)
		return rc;
	int items = hl_body_find(req, 0, "items");
	if (items < 0 && !whole)
		return 0;
	in->given |= GIVEN_ITEMS;
	return lines_read(req, items, &in->lines, &in->nlines, &in->totals);
}

static int step_done(sqlite3_stmt *st)
{
	return st && sqlite3_step(st) == SQLITE_DONE ? 0 : HL_EDB;
}

static int64_t insert(struct hl_req *req, const struct invoice_input *in, const char *number)
{
	sqlite3_stmt *st = hl_scoped_write(req,
		"INSERT INTO invoices (location_id, number, contact_id, currency, due_at)"
		" VALUES (:location, ?2, ?3, ?4, ?5)");
	if (!st)
		return HL_EDB;
	sqlite3_bind_text(st, 2, number, -1, SQLITE_STATIC);
	if (in->contact_id)
		sqlite3_bind_int64(st, 3, in->contact_id);
	sqlite3_bind_text(st, 4, in->currency ? in->currency : "USD", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, in->due_at, -1, SQLITE_STATIC);
	if (step_done(st))
		return HL_EDB;
	return sqlite3_last_insert_rowid(hl_sqlite(hl_write_begin(req)));
}

/* POST /api/invoices: a draft with the next number of the location. */
int invoices_create(struct hl_req *req)
{
	struct invoice_input in;
	int rc = read_input(req, &in, 1);
	if (rc)
		return rc == HL_EINVAL ? 0 : rc;
	const char *number = hl_write_begin(req) ? invoice_number_next(req) : NULL;
	int64_t id = number ? insert(req, &in, number) : HL_EDB;
	if (id < 0)
		return (int)id;
	if ((rc = lines_store(req, id, in.lines, in.nlines, &in.totals)) ||
	    (rc = invoice_publish(req, "invoice.created", id, in.contact_id)))
		return rc;
	return invoices_reply_record(req, 201, id);
}

/* The invoice's own members that `in` gives; its lines are lines_store's. */
static int update(struct hl_req *req, int64_t id, const struct invoice_input *in)
{
	sqlite3_stmt *st = hl_scoped_write(req,
		"UPDATE invoices SET"
		" contact_id = CASE WHEN ?3 THEN ?4 ELSE contact_id END,"
		" currency = CASE WHEN ?5 THEN ?6 ELSE currency END,"
		" due_at = CASE WHEN ?7 THEN ?8 ELSE due_at END,"
		" updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
		" WHERE id = ?2 AND location_id = :location");
	if (!st)
		return HL_EDB;
	sqlite3_bind_int64(st, 2, id);
	sqlite3_bind_int(st, 3, !!(in->given & GIVEN_CONTACT));
	if (in->contact_id)
		sqlite3_bind_int64(st, 4, in->contact_id);
	sqlite3_bind_int(st, 5, !!(in->given & GIVEN_CURRENCY));
	sqlite3_bind_text(st, 6, in->currency, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 7, !!(in->given & GIVEN_DUE));
	sqlite3_bind_text(st, 8, in->due_at, -1, SQLITE_STATIC);
	int rc = step_done(st);
	if (!rc && in->given & GIVEN_ITEMS)
		rc = lines_store(req, id, in->lines, in->nlines, &in->totals);
	return rc;
}

/* PATCH /api/invoices/:id: a draft's contact, currency, due date or lines
 * (the lines are replaced whole). */
int invoices_change(struct hl_req *req)
{
	int64_t id;
	struct invoice_state s;
	struct invoice_input in;
	if (hl_param_id(req, "id", &id))
		return 0;
	int rc = read_input(req, &in, 0);
	if (!rc)
		rc = invoice_state_load(req, id, &s);
	if (rc)
		return rc == HL_EINVAL || rc == HL_ENOENT ? 0 : rc;
	if (strcmp(s.status, "draft"))
		return invoice_refuse(req, s.status, "only a draft can be changed");
	if ((rc = update(req, id, &in)) ||
	    (rc = invoice_publish(req, "invoice.updated", id,
				  in.given & GIVEN_CONTACT ? in.contact_id : s.contact_id)))
		return rc;
	return invoices_reply_record(req, 200, id);
}

/* DELETE /api/invoices/:id: a draft, with its lines; 204. */
int invoices_delete(struct hl_req *req)
{
	int64_t id;
	struct invoice_state s;
	if (hl_param_id(req, "id", &id))
		return 0;
	int rc = invoice_state_load(req, id, &s);
	if (rc)
		return rc == HL_ENOENT ? 0 : rc;
	if (strcmp(s.status, "draft"))
		return invoice_refuse(req, s.status, "only a draft can be deleted (void it instead)");
	sqlite3_stmt *st = hl_scoped_write(req, "DELETE FROM invoice_items"
					   " WHERE invoice_id = ?2 AND location_id = :location");
	if (st)
		sqlite3_bind_int64(st, 2, id);
	rc = step_done(st);
	st = rc ? NULL : hl_scoped_write(req, "DELETE FROM invoices"
					 " WHERE id = ?2 AND location_id = :location");
	if (st)
		sqlite3_bind_int64(st, 2, id);
	if ((rc = step_done(st)) || (rc = invoice_publish(req, "invoice.deleted", id, s.contact_id)))
		return rc;
	return hl_reply_raw(req, 204, "application/json", "", 0);
}

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

static const char *const invoice_keys[] = { "contact_id", "currency", "due_at", "items",
					    "client_address", "notes", "terms", NULL };

/* What a create or change says; a member whose bit is clear is left. */
struct invoice_input {
	int64_t contact_id;   /* 0: none */
	const char *currency; /* three capital letters */
	const char *due_at;   /* stored form, or NULL */
	/* what the printout says beside the lines; NULL: absent ("" clears) */
	const char *client_address, *notes, *terms;
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

/* contact_id: a live contact of this location, or null for none; for a
 * caller who sees only what is assigned to them, one of their own, given
 * with a new invoice and never taken away (the invoice would be theirs
 * no more: INVOICE_MINE). */
static int read_contact(struct hl_req *req, struct invoice_input *in, int whole)
{
	int rc = hl_field_int(req, 0, "contact_id", 1, INT64_MAX, &in->contact_id);
	int mine_only = hl_assigned_only(req);
	if (rc < 0)
		return rc;
	if (mine_only && (rc == HL_FIELD_NULL || (rc == HL_FIELD_ABSENT && whole)))
		return hl_reply_invalid(req, "contact_id", "one of your contacts: you see the"
					" invoices of your own contacts");
	if (rc == HL_FIELD_ABSENT)
		return 0;
	in->given |= GIVEN_CONTACT;
	int ok = in->contact_id ? invoice_contact_ok(req, in->contact_id) : 1;
	if (ok < 0)
		return ok;
	return ok ? 0 : hl_reply_invalid(req, "contact_id", mine_only ? "not one of your contacts"
					 : "no contact of this sub-account");
}

/* Text member `key` of at most `max` characters into *out: "" for null,
 * NULL when absent. */
static int printed_text(struct hl_req *req, const char *key, size_t max, const char **out)
{
	int rc = hl_field_text(req, 0, key, max, out);
	if (rc == HL_FIELD_NULL)
		*out = "";
	return rc < 0 ? rc : 0;
}

static int read_printed(struct hl_req *req, struct invoice_input *in)
{
	int rc = printed_text(req, "client_address", ADDRESS_MAX, &in->client_address);
	if (!rc)
		rc = printed_text(req, "notes", NOTE_MAX, &in->notes);
	if (!rc)
		rc = printed_text(req, "terms", NOTE_MAX, &in->terms);
	return rc;
}

/* The body; answers 422 itself (HL_EINVAL). `whole`: a new invoice. */
static int read_input(struct hl_req *req, struct invoice_input *in, int whole)
{
	memset(in, 0, sizeof(*in));
	int rc = hl_fields_only(req, 0, invoice_keys);
	if (!rc)
		rc = read_contact(req, in, whole);
	if (rc >= 0 && (rc = hl_field_text(req, 0, "currency", 3, &in->currency)) > HL_FIELD_ABSENT) {
		if (!in->currency || !is_currency(in->currency))
			return hl_reply_invalid(req, "currency",
						"three capital letters (ISO 4217), USD");
		in->given |= GIVEN_CURRENCY;
	}
	if (rc >= 0 && (rc = hl_field_time(req, 0, "due_at", &in->due_at)) > HL_FIELD_ABSENT)
		in->given |= GIVEN_DUE;
	if (rc >= 0)
		rc = read_printed(req, in);
	if (rc < 0)
		return rc;
	int items = hl_body_find(req, 0, "items");
	if (items < 0 && !whole)
		return 0;
	in->given |= GIVEN_ITEMS;
	return lines_read(req, items, &in->lines, &in->nlines, &in->totals);
}

static int64_t insert(struct hl_req *req, const struct invoice_input *in, const char *number)
{
	sqlite3_stmt *st = hl_scoped_write(req,
		"INSERT INTO invoices (location_id, number, contact_id, currency, due_at,"
		" client_address, notes, terms)"
		" VALUES (:location, :number, :contact_id, :currency, :due_at,"
		/* the address the contact's last invoice went to */
		" coalesce(:client_address, (SELECT client_address FROM invoices"
		"  WHERE location_id = :location AND contact_id = :contact_id AND client_address <> ''"
		"  ORDER BY id DESC LIMIT 1), ''),"
		/* the sub-account's defaults */
		" coalesce(:notes, (SELECT notes FROM invoice_settings WHERE location_id = :location), ''),"
		" coalesce(:terms, (SELECT terms FROM invoice_settings WHERE location_id = :location), ''))");
	if (!st)
		return HL_EDB;
	hl_bind_text(st, ":number", number);
	if (in->contact_id) /* else NULL: no contact */
		hl_bind_int(st, ":contact_id", in->contact_id);
	hl_bind_text(st, ":currency", in->currency ? in->currency : "USD");
	hl_bind_text(st, ":due_at", in->due_at);
	hl_bind_text(st, ":client_address", in->client_address);
	hl_bind_text(st, ":notes", in->notes);
	hl_bind_text(st, ":terms", in->terms);
	return hl_step_last_id(st);
}

/* POST /api/invoices: a draft with the next number of the location. */
int invoices_create(struct hl_req *req)
{
	struct invoice_input in;
	int rc = read_input(req, &in, 1);
	if (rc)
		return rc;
	const char *number = hl_write_begin(req) ? invoice_number_next(req) : NULL;
	int64_t id = number ? insert(req, &in, number) : HL_EDB;
	if (id < 0)
		return (int)id;
	if (!invoice_view_key(req, id))
		return HL_EDB;
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
		" contact_id = CASE WHEN :given_contact THEN :contact_id ELSE contact_id END,"
		" currency = CASE WHEN :given_currency THEN :currency ELSE currency END,"
		" due_at = CASE WHEN :given_due THEN :due_at ELSE due_at END,"
		" client_address = coalesce(:client_address, client_address),"
		" notes = coalesce(:notes, notes), terms = coalesce(:terms, terms),"
		" updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
		" WHERE id = :id AND location_id = :location");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":id", id);
	hl_bind_int(st, ":given_contact", !!(in->given & GIVEN_CONTACT));
	if (in->contact_id) /* else NULL: no contact */
		hl_bind_int(st, ":contact_id", in->contact_id);
	hl_bind_int(st, ":given_currency", !!(in->given & GIVEN_CURRENCY));
	hl_bind_text(st, ":currency", in->currency);
	hl_bind_int(st, ":given_due", !!(in->given & GIVEN_DUE));
	hl_bind_text(st, ":due_at", in->due_at);
	hl_bind_text(st, ":client_address", in->client_address);
	hl_bind_text(st, ":notes", in->notes);
	hl_bind_text(st, ":terms", in->terms);
	int rc = hl_step_changes(st) < 0 ? HL_EDB : 0;
	if (!rc && in->given & GIVEN_ITEMS)
		rc = lines_store(req, id, in->lines, in->nlines, &in->totals);
	return rc;
}

/* PATCH /api/invoices/:id: a draft's contact, currency, due date, lines
 * (replaced whole), client's address, notes or terms. */
int invoices_change(struct hl_req *req)
{
	int64_t id;
	struct invoice_state s;
	struct invoice_input in;
	int rc = hl_param_id(req, "id", &id);
	if (!rc)
		rc = read_input(req, &in, 0);
	if (!rc)
		rc = invoice_state_load(req, id, &s);
	if (rc)
		return rc;
	if (strcmp(s.status, "draft"))
		return invoice_refuse(req, s.status, "only a draft can be changed");
	/* the mail says what the draft said when it was queued */
	int64_t mailing = hl_scoped_write_int(req, "SELECT 1 FROM invoice_mails WHERE invoice_id = :id"
		" AND location_id = :location AND state IN ('queued', 'sending') LIMIT 1", id);
	if (mailing < 0)
		return HL_EDB;
	if (mailing)
		return hl_reply_error(req, 409, "conflict", "the invoice is being e-mailed as it is:"
				      " change it once its mail has left or failed");
	if ((rc = update(req, id, &in)) ||
	    (rc = invoice_publish(req, "invoice.updated", id,
				  in.given & GIVEN_CONTACT ? in.contact_id : s.contact_id)))
		return rc;
	return invoices_reply_record(req, 200, id);
}

/* Run the scoped DELETE `sql` with :id bound to `id`: 0, HL_EDB. */
static int delete_where_id(struct hl_req *req, const char *sql, int64_t id)
{
	sqlite3_stmt *st = hl_scoped_write(req, sql);
	hl_bind_int(st, ":id", id);
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

/* DELETE /api/invoices/:id: a draft, with its lines; 204. */
int invoices_delete(struct hl_req *req)
{
	int64_t id;
	struct invoice_state s;
	int rc = hl_param_id(req, "id", &id);
	if (!rc)
		rc = invoice_state_load(req, id, &s);
	if (rc)
		return rc;
	if (strcmp(s.status, "draft"))
		return invoice_refuse(req, s.status, "only a draft can be deleted (void it instead)");
	if ((rc = delete_where_id(req, "DELETE FROM invoice_mails"
				  " WHERE invoice_id = :id AND location_id = :location", id)) ||
	    (rc = delete_where_id(req, "DELETE FROM invoice_items"
				  " WHERE invoice_id = :id AND location_id = :location", id)) ||
	    (rc = delete_where_id(req, "DELETE FROM invoices"
				  " WHERE id = :id AND location_id = :location", id)) ||
	    (rc = invoice_publish(req, "invoice.deleted", id, s.contact_id)))
		return rc;
	return hl_reply_empty(req);
}

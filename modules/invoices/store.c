/* SPDX-License-Identifier: MIT */
/*
 * store.c: what the invoice writers (write.c, status.c) share: the state
 * of an invoice inside the write transaction, the next gap-free number,
 * the check of a contact, the events and the 409 answer.
 */
#include "invoices.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

int invoice_state_load(struct hl_req *req, int64_t id, struct invoice_state *s)
{
	sqlite3_stmt *st = hl_scoped_write(req,
		"SELECT status, coalesce(contact_id, 0), total_cents, paid_cents FROM invoices i"
		" WHERE id = :id AND location_id = :location" INVOICE_MINE);
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":id", id);
	hl_bind_int(st, ":me", hl_assigned_user(req));
	int rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		hl_reply_error(req, 404, "not_found", "no such invoice");
		return HL_EINVAL;
	}
	if (rc != SQLITE_ROW)
		return HL_EDB;
	s->id = id;
	snprintf(s->status, sizeof(s->status), "%s", (const char *)sqlite3_column_text(st, 0));
	s->contact_id = sqlite3_column_int64(st, 1);
	s->total_cents = sqlite3_column_int64(st, 2);
	s->paid_cents = sqlite3_column_int64(st, 3);
	return 0;
}

/* A location's counter starts, on its first create, after the highest
 * number its invoices already have (the seed and imports write invoices
 * without the counter); after that the counter alone decides. Writers are
 * serialised, and the increment commits or rolls back with the invoice. */
const char *invoice_number_next(struct hl_req *req)
{
	sqlite3_stmt *st = hl_scoped_write(req,
		"INSERT INTO invoice_counters (location_id, last) SELECT :location,"
		" (SELECT coalesce(max(CAST(substr(number, 5) AS INTEGER)), 0) FROM invoices"
		"  WHERE location_id = :location)"
		" WHERE NOT EXISTS (SELECT 1 FROM invoice_counters WHERE location_id = :location)");
	if (hl_step_changes(st) < 0)
		return NULL;
	st = hl_scoped_write(req, "UPDATE invoice_counters SET last = last + 1"
			     " WHERE location_id = :location RETURNING last");
	int64_t last;
	if (hl_step_int(st, &last) != 1)
		return NULL;
	return hl_sprintf(req, "INV-%05lld", (long long)last);
}

int invoice_contact_ok(struct hl_req *req, int64_t id)
{
	return (int)hl_scoped_read_int(req, "SELECT 1 FROM contacts WHERE id = :id"
		" AND location_id = :location AND deleted_at IS NULL AND (:me = 0 OR owner_id = :me)", id);
}

/* The contacts module counts events whose data name a contact as that
 * contact's activity (its activity.c). An invoice is its contact's
 * owner's (INVOICE_MINE): they hear of it, and of users who see only
 * what is assigned to them, no one else. */
int invoice_publish(struct hl_req *req, const char *name, int64_t id, int64_t contact_id)
{
	int64_t owner = 0;
	if (contact_id) {
		sqlite3_stmt *st = hl_scoped_write(req, "SELECT coalesce(owner_id, 0) FROM contacts"
						   " WHERE id = :id AND location_id = :location");
		hl_bind_int(st, ":id", contact_id);
		if (hl_step_int(st, &owner) < 0)
			return HL_EDB;
	}
	return hl_publish_assigned(req, name, id, owner, contact_id
		? hl_sprintf(req, "{\"contact_id\":%lld}", (long long)contact_id) : NULL);
}

int invoice_refuse(struct hl_req *req, const char *status, const char *what)
{
	return hl_reply_error(req, 409, "conflict", "the invoice is %s: %s", status, what);
}

/* SPDX-License-Identifier: MIT */
/*
 * store.c: what the invoice writers (write.c, status.c) share: the state
 * of an invoice inside the write transaction, the next gap-free number,
 * the check of a contact and of a date, the events and the 409 answer.
 */
#include "invoices.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

int invoice_state_load(struct hl_req *req, int64_t id, struct invoice_state *s)
{
	sqlite3_stmt *st = hl_scoped_write(req,
		"SELECT status, coalesce(contact_id, 0), total_cents, paid_cents FROM invoices"
		" WHERE id = ?2 AND location_id = :location");
	if (!st)
		return HL_EDB;
	sqlite3_bind_int64(st, 2, id);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		hl_reply_error(req, 404, "not_found", "no such invoice");
		return HL_ENOENT;
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
	if (!st || sqlite3_step(st) != SQLITE_DONE)
		return NULL;
	st = hl_scoped_write(req, "UPDATE invoice_counters SET last = last + 1"
			     " WHERE location_id = :location RETURNING last");
	if (!st || sqlite3_step(st) != SQLITE_ROW)
		return NULL;
	const char *number = hl_sprintf(req, "INV-%05lld", (long long)sqlite3_column_int64(st, 0));
	sqlite3_reset(st); /* finish the UPDATE now (RETURNING runs it on the first step) */
	return number;
}

int invoice_contact_ok(struct hl_req *req, int64_t id)
{
	sqlite3_stmt *st = hl_scoped_read(req, "SELECT 1 FROM contacts WHERE id = ?2"
		" AND location_id = :location AND deleted_at IS NULL AND (:me = 0 OR owner_id = :me)");
	if (!st)
		return HL_EDB;
	sqlite3_bind_int64(st, 2, id);
	hl_bind_int(st, ":me", hl_assigned_user(req));
	int rc = sqlite3_step(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : HL_EDB;
}

/* The contacts module counts events whose data name a contact as that
 * contact's activity (its activity.c). Invoices have no owner: every user
 * of the location sees them, and hears of them. */
int invoice_publish(struct hl_req *req, const char *name, int64_t id, int64_t contact_id)
{
	return hl_publish_assigned(req, name, id, HL_EVERYONE, contact_id
		? hl_sprintf(req, "{\"contact_id\":%lld}", (long long)contact_id) : NULL);
}

int invoice_refuse(struct hl_req *req, const char *status, const char *what)
{
	return hl_reply_error(req, 409, "conflict", "the invoice is %s: %s", status, what);
}

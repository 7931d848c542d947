/* SPDX-License-Identifier: MIT */
/*
 * lookup.c: the service opportunities.get, which other modules call
 * (hl_call) to link a record of theirs to a deal without reading this
 * module's tables: the tasks module, when a task is given a deal.
 *
 *   in:  {"id": 12}
 *   out: {"id": 12, "name": "Retainer", "contact_id": 3 | null}, or {}
 *        when the sub-account has no such deal the caller may see (an
 *        "assigned only" caller sees only the deals they own)
 */
#include "opportunities.h"

#include <string.h>

int opp_get(struct hl_req *req, const char *in, const char **out)
{
	sqlite3_stmt *st = hl_scoped_read(req, "SELECT json_type(:in) = 'object',"
		" (SELECT json_object('id', id, 'name', name, 'contact_id', contact_id)"
		" FROM opportunities WHERE id = json_extract(:in, '$.id') AND location_id = :location"
		" AND (:me = 0 OR owner_id = :me))");
	if (!st)
		return HL_EDB;
	hl_bind_text(st, ":in", in);
	hl_bind_int(st, ":me", hl_assigned_user(req));
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW || !sqlite3_column_int(st, 0)) {
		sqlite3_reset(st);
		return rc == SQLITE_ROW ? HL_EINVAL : HL_EDB;
	}
	const char *deal = (const char *)sqlite3_column_text(st, 1);
	*out = hl_strndup(req, deal ? deal : "{}", deal ? (size_t)sqlite3_column_bytes(st, 1) : 2);
	sqlite3_reset(st);
	return 0;
}

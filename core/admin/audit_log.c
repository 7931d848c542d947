/* SPDX-License-Identifier: MIT */
/*
 * audit_log.c: GET /api/admin/audit, the audit log as agency admins read
 * it. The entries are written by auth/audit.c.
 */
#include "admin/admin.h"
#include "request/request.h"
#include "request/router.h"
#include "server.h"

#include <stdint.h>

/* GET /api/admin/audit?limit=N&cursor=C[&location=L][&user=U]
 * [&action=A][&entity=E]: the agency's entries, newest first; those of
 * one sub-account, one person, one action or one kind of record when
 * asked. The whole agency's unless `location` says otherwise: the
 * browser's current sub-account does not narrow it. */
static int list_audit(struct hl_req *r)
{
	int64_t limit, cursor, user, location;
	if (hl_query_int(r, "limit", 50, 1, 1000, &limit) ||
	    hl_query_int(r, "cursor", INT64_MAX, 1, INT64_MAX, &cursor) ||
	    hl_query_int(r, "location", 0, 1, INT64_MAX, &location) ||
	    hl_query_int(r, "user", 0, 1, INT64_MAX, &user))
		return 0;
	sqlite3_stmt *st = hl_stmt(hl_read(r),
		"SELECT id, at, user_id, location_id, action, entity, entity_id, client FROM audit_log"
		" WHERE agency_id = ?1 AND id < ?2 AND (?3 = 0 OR location_id = ?3)"
		" AND (?5 = 0 OR user_id = ?5) AND (?6 IS NULL OR action = ?6)"
		" AND (?7 IS NULL OR entity = ?7) ORDER BY id DESC LIMIT ?4");
	if (!st)
		return HL_EDB;
	sqlite3_bind_int64(st, 1, r->who.agency_id);
	sqlite3_bind_int64(st, 2, cursor);
	sqlite3_bind_int64(st, 3, location);
	sqlite3_bind_int64(st, 4, limit + 1);
	sqlite3_bind_int64(st, 5, user);
	sqlite3_bind_text(st, 6, hl_query(r, "action"), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, hl_query(r, "entity"), -1, SQLITE_STATIC);
	return hl_reply_page(r, st, limit, 0);
}

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/admin/audit", .handler = list_audit,
	  .access = HL_ACCESS_ADMIN, .flags = HL_ROUTE_NO_LOCATION },
};

int audit_log_register(struct router *rt)
{
	return router_add_table(rt, routes, sizeof(routes) / sizeof(routes[0]), "core");
}

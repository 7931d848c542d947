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
		" WHERE agency_id = :agency AND id < :cursor"
		" AND (:only_location = 0 OR location_id = :only_location)"
		" AND (:user = 0 OR user_id = :user)"
		" AND (:action IS NULL OR action = :action)"
		" AND (:entity IS NULL OR entity = :entity)"
		" ORDER BY id DESC LIMIT :limit");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":agency", r->who.agency_id);
	hl_bind_int(st, ":cursor", cursor);
	hl_bind_int(st, ":only_location", location);
	hl_bind_int(st, ":limit", limit + 1);
	hl_bind_int(st, ":user", user);
	hl_bind_text(st, ":action", hl_query(r, "action"));
	hl_bind_text(st, ":entity", hl_query(r, "entity"));
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

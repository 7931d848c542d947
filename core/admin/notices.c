/* SPDX-License-Identifier: MIT */
/*
 * notices.c: the caller's own notifications, the header's bell: listed
 * newest first with the count of those unread, marked read one by one or
 * all at once. Modules make them (hl_notify, platform/notify.c); nobody
 * reads another's. Only those of sub-accounts the caller may still open
 * are listed or counted: a notification names a record, which stays
 * sealed in its sub-account. An API token sees its owner's.
 */
#include "admin/admin.h"
#include "request/request.h"
#include "request/router.h"

#include <stdint.h>

/* The caller's notifications of the sub-accounts they may open. */
#define MINE " FROM notifications n WHERE n.user_id = :user AND n.location_id IN" \
	" (SELECT location_id FROM location_users WHERE user_id = :user)"

/* A notification as the list gives it; the name of who did it (none for
 * a job's) is said before its text. */
#define COLUMNS "n.id, n.kind, n.text, n.path, n.location_id, n.actor_id," \
	" (SELECT name FROM users WHERE id = n.actor_id) AS actor_name, n.created_at, n.read_at," \
	" hex(json_array(n.id)) AS _cursor"

static int64_t unread_count(struct hl_req *req)
{
	sqlite3_stmt *st = hl_stmt(hl_read(req), "SELECT count(*)" MINE " AND n.read_at IS NULL");
	hl_bind_int(st, ":user", req->who.user_id);
	int64_t n = 0;
	return hl_step_int(st, &n) < 0 ? HL_EDB : n;
}

/* GET /api/notifications: {"unread": N, "data": [{"id", "kind", "text",
 * "path", "location_id", "actor_id", "actor_name", "created_at", "read_at"}],
 * "next_cursor"}, newest first; ?limit (20), ?cursor. */
static int list_notices(struct hl_req *req)
{
	int64_t limit;
	const char *cursor;
	if (hl_query_int(req, "limit", 20, 1, 100, &limit) ||
	    hl_query_keyset(req, "cursor", "i", &cursor))
		return HL_EINVAL;
	int64_t unread = unread_count(req);
	if (unread < 0)
		return HL_EDB;
	sqlite3_stmt *st = hl_stmt(hl_read(req), cursor
		? "SELECT " COLUMNS MINE " AND n.id < json_extract(:cursor, '$[0]')"
		  " ORDER BY n.id DESC LIMIT :limit"
		: "SELECT " COLUMNS MINE " ORDER BY n.id DESC LIMIT :limit");
	hl_bind_int(st, ":user", req->who.user_id);
	hl_bind_text(st, ":cursor", cursor);
	hl_bind_int(st, ":limit", limit + 1);
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	hl_json_key(j, "unread");
	hl_json_int(j, unread);
	int rc = hl_json_page(req, j, st, limit, 9);
	if (rc)
		return rc;
	hl_json_object_end(j);
	return 0;
}

/* POST /api/notifications/:id/read: 204, or 404 for one not the caller's. */
static int read_notice(struct hl_req *req)
{
	int64_t id;
	if (hl_param_id(req, "id", &id))
		return HL_EINVAL;
	sqlite3_stmt *st = hl_stmt(hl_write_begin(req), "UPDATE notifications"
		" SET read_at = coalesce(read_at, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))"
		" WHERE id = :id AND user_id = :user");
	hl_bind_int(st, ":id", id);
	hl_bind_int(st, ":user", req->who.user_id);
	int64_t n = hl_step_changes(st);
	if (n < 0)
		return HL_EDB;
	if (!n)
		return hl_reply_error(req, 404, "not_found", "no such notification"), HL_EINVAL;
	return hl_reply_empty(req);
}

/* POST /api/notifications/read: every one of the caller's read; 204. */
static int read_all_notices(struct hl_req *req)
{
	sqlite3_stmt *st = hl_stmt(hl_write_begin(req), "UPDATE notifications"
		" SET read_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
		" WHERE user_id = :user AND read_at IS NULL");
	hl_bind_int(st, ":user", req->who.user_id);
	if (hl_step_changes(st) < 0)
		return HL_EDB;
	return hl_reply_empty(req);
}

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/notifications", .handler = list_notices,
	  .flags = HL_ROUTE_NO_LOCATION },
	{ .method = "POST", .pattern = "/api/notifications/read", .handler = read_all_notices,
	  .flags = HL_ROUTE_NO_LOCATION },
	{ .method = "POST", .pattern = "/api/notifications/:id/read", .handler = read_notice,
	  .flags = HL_ROUTE_NO_LOCATION },
};

int notices_register(struct router *rt)
{
	return router_add_table(rt, routes, sizeof(routes) / sizeof(routes[0]), "core");
}

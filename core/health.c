/* SPDX-License-Identifier: MIT */
/*
 * health.c: the core's own routes. GET /api/health answers without a
 * session, for load balancers and service managers: 200 when the database
 * answers a read, 503 otherwise.
 */
#include "server.h"

static int health(struct hl_req *req)
{
	struct hl_db *db = hl_read(req);
	sqlite3_stmt *st = db ? hl_stmt(db, "SELECT 1") : NULL;
	int ok = st && sqlite3_step(st) == SQLITE_ROW;
	struct hl_json *j = hl_reply_json(req, ok ? 200 : 503);
	hl_json_object(j);
	hl_json_key(j, "status");
	hl_json_string(j, ok ? "ok" : "database unavailable");
	hl_json_key(j, "version");
	hl_json_string(j, HL_VERSION);
	hl_json_object_end(j);
	return 0;
}

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/health", .handler = health, .access = HL_ACCESS_PUBLIC },
};

int health_register(struct router *r)
{
	return router_add_table(r, routes, sizeof(routes) / sizeof(routes[0]), "core");
}

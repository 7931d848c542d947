/* SPDX-License-Identifier: MIT */
/*
 * health.c: what the server is running. GET /api/health answers without
 * a session, for load balancers and service managers: 200 when the database
 * answers a read, 503 otherwise. GET /api/admin/routes lists every route
 * with its owner and access, for administrators and the security tests.
 */
#include "admin/admin.h"
#include "request/request.h"
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

static const char *access_name(enum hl_access a)
{
	static const char *const names[] = {
		[HL_ACCESS_USER] = "user", [HL_ACCESS_PUBLIC] = "public",
		[HL_ACCESS_LOCATION_ADMIN] = "location_admin", [HL_ACCESS_AGENCY] = "agency",
		[HL_ACCESS_ADMIN] = "admin",
	};
	return a <= HL_ACCESS_ADMIN ? names[a] : "?";
}

static int list_routes(struct hl_req *req)
{
	int n;
	const struct route_entry *const *all = router_entries(req->srv->router, &n);
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	hl_json_key(j, "data");
	hl_json_array(j);
	for (int i = 0; i < n; i++) {
		if (!all[i])
			continue;
		hl_json_object(j);
		hl_json_key(j, "method");
		hl_json_string(j, all[i]->route.method);
		hl_json_key(j, "pattern");
		hl_json_string(j, all[i]->route.pattern);
		hl_json_key(j, "owner");
		hl_json_string(j, all[i]->owner);
		hl_json_key(j, "access");
		hl_json_string(j, access_name(all[i]->route.access));
		hl_json_key(j, "needs_location");
		hl_json_bool(j, !(all[i]->route.flags & HL_ROUTE_NO_LOCATION) &&
				   (all[i]->route.access == HL_ACCESS_USER ||
				    all[i]->route.access == HL_ACCESS_LOCATION_ADMIN));
		hl_json_object_end(j);
	}
	hl_json_array_end(j);
	hl_json_object_end(j);
	return 0;
}

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/health", .handler = health, .access = HL_ACCESS_PUBLIC },
	{ .method = "GET", .pattern = "/api/admin/routes", .handler = list_routes,
	  .access = HL_ACCESS_ADMIN, .flags = HL_ROUTE_NO_LOCATION },
};

int health_register(struct router *r)
{
	return router_add_table(r, routes, sizeof(routes) / sizeof(routes[0]), "core");
}

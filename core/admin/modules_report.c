/* SPDX-License-Identifier: MIT */
/*
 * modules_report.c: GET /api/admin/modules, for administrators: every
 * module the server found, loaded or not, with its version, its state
 * ("loaded", "disabled", "refused" or "found"), its one-line summary, why
 * it is disabled or refused, and the modules it requires:
 *   {"data": [{"name": "invoices", "version": "0.2.0", "state": "loaded",
 *              "summary": "...", "reason": null, "requires": ["contacts"]}]}
 * The same list as `hyperlevel modules`; it only reads the module set,
 * which does not change while the server runs.
 */
#include "admin/admin.h"
#include "platform/module.h"
#include "request/request.h"
#include "server.h"

static int modules_list(struct hl_req *req);

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/admin/modules", .handler = modules_list,
	  .access = HL_ACCESS_ADMIN, .flags = HL_ROUTE_NO_LOCATION },
};

int modules_report_register(struct router *r)
{
	return router_add_table(r, routes, sizeof(routes) / sizeof(routes[0]), "core");
}

static int modules_list(struct hl_req *req)
{
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	hl_json_key(j, "data");
	modules_write_json(req->srv->modules, j);
	hl_json_object_end(j);
	return 0;
}

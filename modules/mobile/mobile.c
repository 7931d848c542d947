/* SPDX-License-Identifier: MIT */
/*
 * mobile.c: the mobile module: the phone app's API, small answers for
 * any signed-in user, scoped to the sub-accounts they may open. It has no
 * tables of its own: it reads the other modules' tables, so it requires
 * them. Answers are cached, those that are the caller's own per user.
 */
#include "mobile.h"

static const char *const requires[] = { "contacts", "opportunities", "conversations", "tasks",
					"invoices", NULL };

#define COUNTER_TABLES "conversations tasks stage_counts locations"
#define MY_TABLES "users user_locations locations" /* who may open which */

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/mobile/summary", .handler = mobile_summary,
	  .cache_ms = 30000, .reads = COUNTER_TABLES },
	{ .method = "GET", .pattern = "/api/mobile/inbox", .handler = mobile_inbox,
	  .flags = HL_ROUTE_NO_LOCATION | HL_ROUTE_PER_USER, .cache_ms = 30000,
	  .reads = "conversations contacts " MY_TABLES },
	{ .method = "GET", .pattern = "/api/mobile/deals", .handler = mobile_deals,
	  .flags = HL_ROUTE_PER_USER, .cache_ms = 30000,
	  .reads = "opportunities stages pipelines contacts" },
	{ .method = "GET", .pattern = "/api/mobile/projects", .handler = mobile_projects,
	  .flags = HL_ROUTE_NO_LOCATION | HL_ROUTE_PER_USER, .cache_ms = 30000,
	  .reads = COUNTER_TABLES " users user_locations" },
};

static int init(struct hl_mod *mod)
{
	return hl_add_routes(mod, routes);
}

HL_MODULE(.name = "mobile", .version = "0.2.0", .requires = requires, .init = init,
	  .summary = "the phone app's API");

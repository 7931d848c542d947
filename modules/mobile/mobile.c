/* SPDX-License-Identifier: MIT */
/*
 * mobile.c: the mobile module: the phone app's API, small answers for
 * any signed-in user, scoped to the sub-accounts they may open. It has no
 * tables of its own: it reads the other modules' tables, so it requires
 * them. Answers are cached, those that are the caller's own per user.
 * Its browser page, Today, is the app's home on a phone.
 */
#include "mobile.h"

static const char *const requires[] = { "contacts", "opportunities", "conversations", "tasks",
					NULL };

#define COUNTER_TABLES "conversation_totals tasks overdue_task_totals deal_totals locations"
#define MY_TABLES "users user_locations locations" /* who may open which */

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/mobile/summary", .handler = mobile_summary,
	  .cache_ms = 30000, .reads = COUNTER_TABLES },
	{ .method = "GET", .pattern = "/api/mobile/inbox", .handler = mobile_inbox,
	  .flags = HL_ROUTE_NO_LOCATION | HL_ROUTE_PER_USER, .cache_ms = 30000,
	  .reads = "conversations contacts:lookup " MY_TABLES },
	{ .method = "GET", .pattern = "/api/mobile/deals", .handler = mobile_deals,
	  .flags = HL_ROUTE_PER_USER, .cache_ms = 30000,
	  .reads = "opportunities owner_open_totals stages pipelines contacts:lookup" },
	{ .method = "GET", .pattern = "/api/mobile/projects", .handler = mobile_projects,
	  .flags = HL_ROUTE_NO_LOCATION | HL_ROUTE_PER_USER, .cache_ms = 30000,
	  .reads = COUNTER_TABLES " users user_locations" },
};

/* The browser's page of the same (webui/today.js): the day at a glance,
 * in the menu, and what the app opens first on a phone. */
static const char *const today_uses[] = { "today.css", NULL };

static const struct hl_page pages[] = {
	{ .path = "/today", .script = "today.js", .label = "Today", .order = 15,
	  .data = "/api/mobile/summary", .uses = today_uses, .flags = HL_PAGE_PHONE_HOME },
};

HL_MODULE(.name = "mobile", .version = "0.3.0", .requires = requires,
	  .summary = "the phone app's API and the phone's home page",
	  .routes = HL_TABLE(routes), .pages = HL_TABLE(pages));

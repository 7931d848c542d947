/* SPDX-License-Identifier: MIT */
/*
 * agency.c: the agency module: every sub-account at once, for the
 * agency's staff (a sub-account's own users are refused with 403). It has
 * no tables of its own: it reads the other modules' tables, so it requires
 * them (and wants invoices: without it, its invoice figures are null and
 * its answers say so); the indexes it reads are theirs. Answers
 * are cached; a write in any sub-account drops them. Its browser page
 * (webui/agency.js) shows them.
 */
#include "agency.h"

#include "migrations.h"


static const char *const requires[] = { "contacts", "opportunities", "conversations", "tasks",
					NULL };
/* Without invoices its figures are null and the answers say so. */
static const char *const wants[] = { "invoices", NULL };

int agency_invoices;

#define COUNT_TABLES "contact_totals deal_totals open_task_totals overdue_task_totals contacts" \
	" conversations tasks invoices? unpaid_invoice_totals? locations"

/* Agency staff, every location at once, cached until a write in any. */
#define ACROSS .access = HL_ACCESS_AGENCY, .flags = HL_ROUTE_NO_LOCATION, .cache_ms = 30000

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/agency/projects", .handler = agency_projects, ACROSS,
	  .reads = COUNT_TABLES },
	{ .method = "GET", .pattern = "/api/agency/overview", .handler = agency_overview, ACROSS,
	  .reads = COUNT_TABLES " contacts_created_daily deals_won_daily messages_received_daily"
	  " payments_daily?" },
	{ .method = "GET", .pattern = "/api/agency/contacts", .handler = agency_contacts, ACROSS,
	  .reads = "contacts contact_tags tags locations" },
	{ .method = "GET", .pattern = "/api/agency/opportunities", .handler = agency_deals, ACROSS,
	  .reads = "deal_totals stages pipelines locations" },
	{ .method = "GET", .pattern = "/api/agency/tasks", .handler = agency_tasks, ACROSS,
	  .reads = "open_task_totals overdue_task_totals tasks users locations" },
};

/* The browser pages (webui/agency.js), for agency staff: the overview
 * with the sub-accounts' table, in the menu; its contacts, deals and tasks
 * views, reached from the page's own tabs. */
static const char *const agency_uses[] = { "agency.css", "/chart.js", "/chart.css", NULL };

static const struct hl_page pages[] = {
	{ .path = "/agency", .script = "agency.js", .label = "Agency", .access = HL_ACCESS_AGENCY,
	  .order = 80, .data = "/api/agency/overview", .uses = agency_uses,
	  .flags = HL_PAGE_ALL_RECORDS },
	{ .path = "/agency/:view", .script = "agency.js", .access = HL_ACCESS_AGENCY, .order = 80,
	  .flags = HL_PAGE_ALL_RECORDS },
};

/* What the invoices module adds to the agency's screens, when it is loaded. */
static int init(struct hl_mod *mod)
{
	agency_invoices = hl_module_loaded(mod, "invoices") == 1;
	return 0;
}

HL_MODULE(.name = "agency", .version = "0.3.0", .requires = requires, .wants = wants,
	  .init = init, .summary = "every sub-account at once, for agency staff",
	  .migrations = HL_TABLE(migrations), .routes = HL_TABLE(routes),
	  .pages = HL_TABLE(pages));

int agency_location(struct hl_req *req, int64_t *location)
{
	if (hl_assigned_only(req)) {
		hl_reply_error(req, 403, "forbidden", "you see only what is assigned to you, not every"
			       " sub-account's records");
		return HL_EINVAL;
	}
	if (hl_query_int(req, "location_id", 0, 1, INT64_MAX, location))
		return HL_EINVAL;
	if (!*location)
		return 0;
	sqlite3_stmt *st = agency_read(req, "SELECT 1 FROM locations WHERE id IN " AGENCY_LOCATIONS,
				       *location);
	int64_t one;
	int found = hl_step_int(st, &one);
	if (!found) {
		hl_reply_error(req, 404, "not_found", "no such sub-account");
		return HL_EINVAL;
	}
	return found < 0 ? HL_EDB : 0;
}

int agency_list_read(struct hl_req *req, struct agency_list *list, const char *shape)
{
	if (hl_query_int(req, "limit", 50, 1, 1000, &list->limit) ||
	    hl_query_keyset(req, "cursor", shape, &list->cursor))
		return HL_EINVAL;
	return agency_location(req, &list->location);
}

sqlite3_stmt *agency_read(struct hl_req *req, const char *sql, int64_t location)
{
	sqlite3_stmt *st = hl_agency_read(req, sql);
	hl_bind_int(st, ":only_location", location);
	return st;
}

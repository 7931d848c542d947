/* SPDX-License-Identifier: MIT */
/*
 * reports.c: the reports module: the dashboard of a location's numbers,
 * the overview of the sub-account (its project), the dashboards a
 * location arranges from widgets, and their browser pages. Its tables are
 * dashboards and widgets; the figures come from the other modules'
 * tables, so it requires them (and wants invoices: without it, the
 * invoice figures are null and the answers say so).
 * Every query is scoped by the current location.
 */
#include "reports.h"

#include "migrations.h"

static const char *const requires[] = { "contacts", "opportunities", "conversations", "tasks",
					NULL };
/* Without invoices the invoice figures are null and the answers say so. */
static const char *const wants[] = { "invoices", NULL };

int reports_invoices;

/* Everything the figures read. A count another module keeps is named by
 * the view it publishes when its table is not read otherwise: a message
 * received drops the figures, but a reply or a conversation assigned
 * does not. */
#define FIGURE_TABLES "contact_totals contacts_created_daily deal_totals" \
	" deals_won_daily deals_lost_daily pipelines stages conversation_totals messages_received_daily tasks" \
	" open_task_totals overdue_task_totals invoices? unpaid_invoice_totals? payments_daily?"
/* What the project reads: the counts, the location and its people (the
 * core's tables under its location_users view). Only by the views: a write
 * that leaves the counts as they were (a reply, a contact renamed) leaves
 * it cached. */
#define PROJECT_TABLES "contact_totals deal_totals conversation_totals tasks invoices?" \
	" unpaid_invoice_totals? locations users user_locations"

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/dashboard", .handler = reports_dashboard,
	  .cache_ms = 30000, .reads = FIGURE_TABLES },
	{ .method = "GET", .pattern = "/api/project", .handler = reports_project,
	  .cache_ms = 30000, .reads = PROJECT_TABLES },
	{ .method = "GET", .pattern = "/api/reports/dashboards", .handler = dashboards_list,
	  .cache_ms = 30000, .reads = "dashboards widgets" },
	{ .method = "POST", .pattern = "/api/reports/dashboards", .handler = dashboards_create },
	{ .method = "GET", .pattern = "/api/reports/dashboards/:id", .handler = dashboards_record,
	  .cache_ms = 30000, .reads = "dashboards widgets" },
	{ .method = "PATCH", .pattern = "/api/reports/dashboards/:id", .handler = dashboards_change },
	{ .method = "DELETE", .pattern = "/api/reports/dashboards/:id", .handler = dashboards_delete },
	{ .method = "POST", .pattern = "/api/reports/dashboards/:id/widgets", .handler = widgets_create },
	{ .method = "PATCH", .pattern = "/api/reports/widgets/:id", .handler = widgets_change },
	{ .method = "DELETE", .pattern = "/api/reports/widgets/:id", .handler = widgets_delete },
	{ .method = "GET", .pattern = "/api/reports/dashboards/:id/data", .handler = dashboards_data,
	  .cache_ms = 30000, .reads = FIGURE_TABLES " dashboards widgets" },
};

/* The dashboard's browser page (webui/dashboard.js), first in the menu,
 * and what it opens with: its figures, its styles and the shell's chart. */
static const char *const dashboard_uses[] = { "dashboard.css", "/chart.js", "/chart.css", NULL };

/* The reports page (webui/reports.js): the dashboards a location arranges
 * from widgets, opening with their list. */
static const char *const reports_uses[] = { "reports.css", "reports-widget.js", "reports-forms.js", "/chart.js",
	"/chart.css", NULL };

static const struct hl_page pages[] = {
	{ .path = "/dashboard", .script = "dashboard.js", .label = "Dashboard", .order = 10,
	  .data = "/api/dashboard", .uses = dashboard_uses },
	{ .path = "/reports", .script = "reports.js", .label = "Reports", .order = 60,
	  .data = "/api/reports/dashboards", .uses = reports_uses },
};

/* What the invoices module adds to the figures, when it is loaded. */
static int init(struct hl_mod *mod)
{
	reports_invoices = hl_module_loaded(mod, "invoices") == 1;
	return 0;
}

/* The records people know, as the audit log names them. */
static const struct hl_record_kind records[] = {
	{ .table = "dashboards", .noun = "dashboard",
	  .name_sql = "SELECT name FROM dashboards WHERE id = :id" },
	{ .table = "widgets", .noun = "widget", .name_sql = "SELECT title FROM widgets WHERE id = :id" },
};

HL_MODULE(.name = "reports", .version = "0.4.0", .requires = requires, .wants = wants,
	  .init = init,
	  .summary = "the dashboard, the project overview, dashboards and widgets",
	  .migrations = HL_TABLE(migrations), .routes = HL_TABLE(routes),
	  .pages = HL_TABLE(pages), .records = HL_TABLE(records));

/* SPDX-License-Identifier: MIT */
/*
 * projects.c: every sub-account of the agency with its counts, health
 * score and last activity, in one statement: one grouped part per table,
 * each reading an index range per sub-account (location_id first) and
 * counting it, or the row its module keeps per sub-account, joined to
 * the agency's locations. The counts are those of /api/project, named
 * alike. Sorting and keyset pages are done in SQL over
 * the joined rows, which are one per sub-account.
 */
#include "agency.h"

#include <string.h>

/* The joined rows, one per sub-account. Live contacts, open deals, unread
 * conversations and open tasks are counted by their modules as they
 * change (the *_totals views), and so are the tasks overdue before today
 * (overdue_task_totals, to which today's are added) and unpaid invoices
 * (unpaid_invoice_totals); what is small is counted here. Last activity
 * is the newest message or contact change, each the last entry of an
 * index range. */
/* The sub-accounts a search by name finds. */
#define FOUND_LOCATIONS "id IN " AGENCY_LOCATIONS " AND (:q IS NULL OR instr(lower(name), lower(:q)) > 0)"

/* Unpaid invoices per sub-account, when the invoices module is loaded;
 * otherwise none (the counts then say null). The invoices module keeps
 * them counted (unpaid_invoice_totals); overdue are those less the ones
 * not due yet, from now on or undated: few, two ranges of its index. */
#define NOT_DUE_IN(range) \
	" SELECT location_id, total_cents - paid_cents AS due FROM invoices" \
	" WHERE location_id IN (SELECT id FROM loc) AND status IN ('sent', 'partially_paid')" \
	" AND " range
#define UNPAID \
	" not_due AS (SELECT location_id AS id, count(*) AS n, sum(due) AS due FROM (" \
	NOT_DUE_IN("due_at >= " HL_SQL_NOW) " UNION ALL" NOT_DUE_IN("due_at IS NULL") ") GROUP BY 1)," \
	" unpaid AS (SELECT u.location_id AS id, u.unpaid AS n, u.due_cents AS due," \
	"  u.unpaid - coalesce(not_due.n, 0) AS over_n," \
	"  u.due_cents - coalesce(not_due.due, 0) AS over_due" \
	"  FROM unpaid_invoice_totals u LEFT JOIN not_due ON not_due.id = u.location_id" \
	"  WHERE u.location_id IN (SELECT id FROM loc)),"
#define NO_UNPAID \
	" unpaid AS (SELECT 0 AS id, 0 AS n, 0 AS due, 0 AS over_n, 0 AS over_due WHERE 0),"

#define PROJECTS_ROWS(unpaid) \
	"WITH loc AS MATERIALIZED (SELECT id, name, timezone, currency FROM locations" \
	" WHERE " FOUND_LOCATIONS ")," \
	" live AS (SELECT location_id AS id, live AS n, health_sum AS h_sum, scored AS h_n" \
	"  FROM contact_totals WHERE location_id IN (SELECT id FROM loc))," \
	" deals AS (SELECT location_id AS id, sum(deals) AS n, sum(cents) AS cents FROM deal_totals" \
	"  WHERE location_id IN (SELECT id FROM loc) AND status = 'open' GROUP BY location_id)," \
	" unread AS (SELECT location_id AS id, unread AS n FROM conversation_totals" \
	"  WHERE location_id IN (SELECT id FROM loc))," \
	" open_tasks AS (SELECT location_id AS id, sum(open) AS n FROM open_task_totals" \
	"  WHERE location_id IN (SELECT id FROM loc) GROUP BY location_id)," \
	" late AS (SELECT tc.location_id AS id, sum(coalesce(ot.overdue, 0))" \
	"  + " LATE_TODAY("tc", "") " AS n" \
	"  FROM open_task_totals tc" OVERDUE_JOIN("tc", "ot") \
	"  WHERE tc.location_id IN (SELECT id FROM loc) AND tc.open > 0" \
	"  GROUP BY tc.location_id)," unpaid \
	" p AS (SELECT loc.id, loc.name, loc.timezone, loc.currency, coalesce(live.n, 0) AS contacts," \
	"  coalesce(deals.n, 0) AS deals, coalesce(deals.cents, 0) AS value," \
	"  coalesce(unread.n, 0) AS unread, coalesce(open_tasks.n, 0) AS tasks," \
	"  coalesce(late.n, 0) AS overdue, coalesce(unpaid.n, 0) AS invoices," \
	"  coalesce(unpaid.due, 0) AS outstanding, coalesce(unpaid.over_n, 0) AS invoices_overdue," \
	"  coalesce(unpaid.over_due, 0) AS invoices_overdue_cents, coalesce(live.h_sum, 0) AS h_sum," \
	"  coalesce(live.h_n, 0) AS h_n, CASE WHEN live.h_n" \
	"  THEN CAST(round(CAST(live.h_sum AS REAL) / live.h_n) AS INTEGER) END AS health," \
	"  max(coalesce((SELECT max(last_message_at) FROM conversations" \
	"   WHERE location_id = loc.id), '')," \
	"   coalesce((SELECT max(updated_at) FROM contacts WHERE location_id = loc.id" \
	"   AND deleted_at IS NULL), '')) AS activity" \
	"  FROM loc LEFT JOIN live USING (id) LEFT JOIN deals USING (id)" \
	"  LEFT JOIN unread USING (id) LEFT JOIN open_tasks USING (id) LEFT JOIN late USING (id)" \
	"  LEFT JOIN unpaid USING (id))" \
	" SELECT "

/* The counts of /api/project's "counts", of each sub-account (agg "") or
 * added up (agg "sum"); "invoices" is null without the invoices module.
 * Amounts are in each sub-account's currency: added up only where every
 * sub-account has the same one (null otherwise: BY_CURRENCY has them). */
#define ROW_MONEY(col) col
#define SUM_MONEY(col) "iif(count(DISTINCT currency) > 1, NULL, sum(" col "))"
#define INVOICE_COUNTS(agg, money) \
	" 'invoices', json_object('outstanding', json_object('count', " agg "(invoices)," \
	"  'amount_due_cents', " money("outstanding") "), 'overdue', json_object('count'," \
	"  " agg "(invoices_overdue), 'amount_due_cents', " money("invoices_overdue_cents") "))"
#define NO_INVOICE_COUNTS(agg, money) " 'invoices', NULL"
#define PROJECTS_COUNTS(agg, money, invoices) \
	"json_object('contacts', " agg "(contacts)," \
	" 'deals', json_object('open', " agg "(deals), 'open_value_cents', " money("value") ")," \
	" 'conversations', json_object('unread', " agg "(unread))," \
	" 'tasks', json_object('open', " agg "(tasks), 'overdue', " agg "(overdue))," \
	invoices(agg, money) ") AS json_counts"
/* The agency's amounts added up per currency, never across currencies. */
#define BY_CURRENCY \
	" (SELECT json_group_array(json_object('currency', currency, 'sub_accounts', n," \
	"  'open_value_cents', value, 'outstanding_cents', outstanding," \
	"  'overdue_cents', overdue)) FROM (SELECT currency, count(*) AS n, sum(value) AS value," \
	"  sum(outstanding) AS outstanding, sum(invoices_overdue_cents) AS overdue FROM p" \
	"  GROUP BY currency ORDER BY currency)) AS json_by_currency"

/* The agency's totals: the mean health score is of every scored contact,
 * rounded as each sub-account's is. */
#define PROJECTS_TOTALS(unpaid, invoices) PROJECTS_ROWS(unpaid) "count(*) AS sub_accounts, " \
	PROJECTS_COUNTS("sum", SUM_MONEY, invoices) ", CASE WHEN sum(h_n) THEN" \
	" CAST(round(CAST(sum(h_sum) AS REAL) / sum(h_n)) AS INTEGER) END AS health_score," \
	BY_CURRENCY " FROM p"
const char *const projects_totals_sql[2] = {
	PROJECTS_TOTALS(NO_UNPAID, NO_INVOICE_COUNTS),
	PROJECTS_TOTALS(UNPAID, INVOICE_COUNTS),
};

/* The start of a page's statement, up to its counts: [agency_invoices]. */
static const char *const page_rows_sql[2] = {
	PROJECTS_ROWS(NO_UNPAID) "id, name, timezone, currency, "
	PROJECTS_COUNTS("", ROW_MONEY, NO_INVOICE_COUNTS),
	PROJECTS_ROWS(UNPAID) "id, name, timezone, currency, " PROJECTS_COUNTS("", ROW_MONEY, INVOICE_COUNTS),
};

struct projects_sort {
	const char *name;  /* as in ?sort=, without the "-" of descending */
	const char *key;   /* the SQL of the sort key, over p's columns */
	const char *shape; /* its cursor's, for hl_query_keyset */
};

static const struct projects_sort sorts[] = {
	{ "name", "name COLLATE NOCASE", "si" },
	{ "contacts", "contacts", "ni" },
	{ "deals", "deals", "ni" },
	{ "value", "value", "ni" },
	{ "unread", "unread", "ni" },
	{ "tasks", "tasks", "ni" },
	{ "overdue", "overdue", "ni" },
	{ "outstanding", "outstanding", "ni" },
	{ "health", "coalesce(health, -1)", "ni" },
	{ "activity", "activity", "si" },
};

static const char sort_names[] = "name, contacts, deals, value, unread, tasks, overdue,"
				 " outstanding, health or activity (-name, -contacts ...: the"
				 " largest first)";

static const struct projects_sort *find_sort(const char *name)
{
	for (size_t i = 0; i < sizeof(sorts) / sizeof(sorts[0]); i++)
		if (!strcmp(sorts[i].name, name))
			return &sorts[i];
	return NULL;
}

/* The page's statement: the rows in the sort's order, after the cursor. */
static char *page_sql(struct hl_req *req, const struct projects_sort *s, int desc, int after)
{
	const char *order = desc ? " DESC" : "";
	return hl_sprintf(req, "%s, health AS health_score, nullif(activity, '') AS last_activity_at,"
		" hex(json_array(%s, id)) AS _cursor FROM p%s ORDER BY %s%s, id%s LIMIT :limit",
		page_rows_sql[agency_invoices], s->key, after ? hl_sprintf(req, " WHERE (%s, id) %s (json_extract(:cursor, '$[0]'),"
					   " json_extract(:cursor, '$[1]'))", s->key, desc ? "<" : ">")
			      : "", s->key, order, order);
}

/* How many sub-accounts the search finds, for count=1. */
static int64_t count_projects(struct hl_req *req, const char *q, int64_t location)
{
	sqlite3_stmt *st = agency_read(req, "SELECT count(*) FROM locations WHERE " FOUND_LOCATIONS,
				       location);
	if (!st)
		return HL_EDB;
	hl_bind_text(st, ":q", q);
	int64_t n;
	return hl_step_int(st, &n) < 0 ? HL_EDB : n;
}

int agency_projects(struct hl_req *req)
{
	struct agency_list list;
	int64_t want_count, total = -1;
	const char *q = hl_query(req, "q"), *sort = hl_query(req, "sort");
	if (hl_query_int(req, "count", 0, 0, 1, &want_count))
		return 0;
	int desc = sort && sort[0] == '-';
	const struct projects_sort *s = find_sort(sort ? sort + desc : "name");
	if (!s)
		return hl_reply_error(req, 400, "bad_request", "sort is %s", sort_names);
	int rc = agency_list_read(req, &list, s->shape);
	if (rc)
		return rc == HL_EINVAL ? 0 : rc;
	if (q && !*q)
		q = NULL;
	if (want_count && (total = count_projects(req, q, list.location)) < 0)
		return HL_EDB;
	sqlite3_stmt *st = agency_read(req, page_sql(req, s, desc, list.cursor != NULL), list.location);
	if (!st)
		return HL_EDB;
	hl_bind_text(st, ":q", q);
	hl_bind_text(st, ":cursor", list.cursor);
	hl_bind_int(st, ":limit", list.limit + 1);
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	if ((rc = hl_json_page(req, j, st, list.limit, 7)))
		return rc;
	if (total >= 0) {
		hl_json_key(j, "total");
		hl_json_int(j, total);
	}
	hl_json_absent_modules(req, j);
	hl_json_object_end(j);
	return 0;
}

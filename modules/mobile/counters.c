/* SPDX-License-Identifier: MIT */
/*
 * counters.c: the home screen's counters: unread conversations, tasks due
 * today and overdue, open deals and their value. GET /api/mobile/summary
 * gives them for the current location; GET /api/mobile/projects for every
 * sub-account the user may open, one statement for all of them, each part
 * grouping the sub-accounts' index ranges of one table (unread
 * conversations, open deals and tasks overdue before today: the rows
 * their modules keep counted). Times are SQLite's clock (UTC, as the
 * tables keep them), which the tasks module's overdue_task_totals reads:
 * today's tasks overdue and those before today then meet at one midnight.
 */
#include "mobile.h"

#define COUNTERS(locations) \
	"WITH loc AS MATERIALIZED (SELECT id, name FROM locations WHERE id IN " locations ")," \
	" unread AS (SELECT location_id AS id, unread AS n FROM conversation_totals" \
	"  WHERE location_id IN (SELECT id FROM loc))," \
	" today AS (SELECT location_id AS id, count(*) AS n," \
	"  count(*) FILTER (WHERE due_at < " HL_SQL_NOW ") AS late FROM tasks" \
	"  WHERE location_id IN (SELECT id FROM loc) AND completed_at IS NULL" \
	"  AND due_at >= " HL_SQL_TODAY " AND due_at < " HL_SQL_TOMORROW \
	"  GROUP BY location_id)," \
	" before AS (SELECT location_id AS id, sum(overdue) AS n FROM overdue_task_totals" \
	"  WHERE location_id IN (SELECT id FROM loc) GROUP BY location_id)," \
	" deals AS (SELECT location_id AS id, sum(deals) AS n, sum(cents) AS cents FROM deal_totals" \
	"  WHERE location_id IN (SELECT id FROM loc) AND status = 'open' GROUP BY location_id)" \
	" SELECT loc.id, loc.name, coalesce(unread.n, 0) AS unread," \
	" json_object('due_today', coalesce(today.n, 0)," \
	"  'overdue', coalesce(before.n, 0) + coalesce(today.late, 0)) AS json_tasks," \
	" json_object('open', coalesce(deals.n, 0), 'value_cents', coalesce(deals.cents, 0))" \
	" AS json_deals" \
	" FROM loc LEFT JOIN unread USING (id) LEFT JOIN today USING (id) LEFT JOIN before USING (id)" \
	" LEFT JOIN deals USING (id)" \
	" ORDER BY loc.name COLLATE NOCASE, loc.id"

static const char here_sql[] = COUNTERS("(:location)");
static const char mine_sql[] = COUNTERS(MY_LOCATIONS);

int mobile_summary(struct hl_req *req)
{
	sqlite3_stmt *st = hl_scoped_read(req, here_sql);
	if (!st)
		return HL_EDB;
	return hl_reply_row(req, 200, st, "location");
}

int mobile_projects(struct hl_req *req)
{
	sqlite3_stmt *st = hl_stmt(hl_read(req), mine_sql);
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":user", hl_user_id(req));
	return hl_reply_page(req, st, INT64_MAX, 0); /* all of them: never paged */
}

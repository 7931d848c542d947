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
 *
 * A caller who sees only what is assigned to them gets the counters of
 * their own records (the *_MINE parts, :me): their unread conversations,
 * counted from their rows, their tasks and their open deals, from the
 * counts kept per assignee and per owner. Such an answer is not cached.
 */
#include "mobile.h"

#define UNREAD_ALL \
	" unread AS (SELECT location_id AS id, unread AS n FROM conversation_totals" \
	"  WHERE location_id IN (SELECT id FROM loc)),"
#define UNREAD_MINE \
	" unread AS (SELECT location_id AS id, count(*) AS n FROM conversations" \
	"  WHERE location_id IN (SELECT id FROM loc) AND assigned_to = :me AND unread_count > 0" \
	"  GROUP BY location_id),"
#define DEALS_ALL " deal_totals WHERE status = 'open' AND"
#define DEALS_MINE " owner_open_totals WHERE owner_id = :me AND"

/* `tasks` and `late` narrow the tasks and the overdue counts. */
#define COUNTERS(locations, unread, tasks, late, deals) \
	"WITH loc AS MATERIALIZED (SELECT id, name, timezone, currency FROM locations WHERE id IN " \
	locations ")," unread \
	" today AS (SELECT location_id AS id, count(*) AS n," \
	"  count(*) FILTER (WHERE due_at < " HL_SQL_NOW ") AS late" \
	"  FROM loc JOIN tasks ON location_id = loc.id AND completed_at IS NULL" tasks \
	"  AND due_at >= " HL_SQL_MIDNIGHT("loc.timezone", 0) \
	"  AND due_at < " HL_SQL_MIDNIGHT("loc.timezone", 1) \
	"  GROUP BY location_id)," \
	" before AS (SELECT location_id AS id, sum(overdue) AS n FROM overdue_task_totals" \
	"  WHERE location_id IN (SELECT id FROM loc)" late " GROUP BY location_id)," \
	" deals AS (SELECT location_id AS id, sum(deals) AS n, sum(cents) AS cents FROM" deals \
	"  location_id IN (SELECT id FROM loc) GROUP BY location_id)" \
	" SELECT loc.id, loc.name, loc.currency, coalesce(unread.n, 0) AS unread," \
	" json_object('due_today', coalesce(today.n, 0)," \
	"  'overdue', coalesce(before.n, 0) + coalesce(today.late, 0)) AS json_tasks," \
	" json_object('open', coalesce(deals.n, 0), 'value_cents', coalesce(deals.cents, 0))" \
	" AS json_deals" \
	" FROM loc LEFT JOIN unread USING (id) LEFT JOIN today USING (id) LEFT JOIN before USING (id)" \
	" LEFT JOIN deals USING (id)" \
	" ORDER BY loc.name COLLATE NOCASE, loc.id"
#define ALL_OF(locations) COUNTERS(locations, UNREAD_ALL, "", "", DEALS_ALL)
#define MINE_OF(locations) \
	COUNTERS(locations, UNREAD_MINE, " AND assignee_id = :me", " AND assignee = :me", DEALS_MINE)

static const char *const here_sql[2] = { ALL_OF("(:location)"), MINE_OF("(:location)") };
static const char *const projects_sql[2] = { ALL_OF(MY_LOCATIONS), MINE_OF(MY_LOCATIONS) };

/* Bind :me for an "assigned only" caller, whose answer is not cached. */
static sqlite3_stmt *counters_for(struct hl_req *req, sqlite3_stmt *st, int64_t me)
{
	if (st && me) {
		hl_bind_int(st, ":me", me);
		hl_answer_uncached(req);
	}
	return st;
}

int mobile_summary(struct hl_req *req)
{
	int64_t me = hl_assigned_user(req);
	sqlite3_stmt *st = counters_for(req, hl_scoped_read(req, here_sql[me != 0]), me);
	return hl_reply_row(req, 200, st, "location");
}

int mobile_projects(struct hl_req *req)
{
	int64_t me = hl_assigned_user(req);
	sqlite3_stmt *st = counters_for(req, hl_stmt(hl_read(req), projects_sql[me != 0]), me);
	hl_bind_int(st, ":user", hl_user_id(req));
	return hl_reply_page(req, st, INT64_MAX, 0); /* all of them: never paged */
}

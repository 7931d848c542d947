/* SPDX-License-Identifier: MIT */
/*
 * figures.c: a location's figures, read from the other modules' tables
 * with three grouped statements (the indexes reports adds are in
 * migrations/002): the counts of now (contacts, unread conversations,
 * open tasks, unpaid invoices), mostly from the counts the other modules
 * keep; the series by day over the period (new contacts, deals won and
 * lost, messages received, payments), from their daily counts; and the
 * open deals per stage.
 * Never a statement per item.
 *
 * A caller who sees only what is assigned to them gets the same figures
 * of their own records only (MINE_*): the counts the modules keep are
 * the location's, so theirs are counted from their rows, each statement
 * an index range of what is theirs (their contacts, conversations, tasks
 * and deals; the invoices and payments of their contacts). Such an answer
 * reads tables the routes' `reads` do not name, and is not cached.
 */
#include "reports.h"

#include <string.h>

/* One row. What the modules keep counted as it changes (live contacts and
 * their health scores, unread conversations, open tasks, open deals,
 * unpaid invoices) is read from their *_totals views, a row or a few for
 * the location, so that it costs the same at 100k contacts as at 1k, and
 * every caller gets all of it. So are the tasks overdue before today
 * (overdue_task_totals); what is left of the clock (today's tasks, the
 * invoices not due yet) reads a short index range and counts it, by
 * SQLite's clock, which the view reads too (HL_SQL_NOW). */
#define NOT_DUE_IN(range) \
	" SELECT total_cents - paid_cents AS due FROM invoices WHERE location_id = :location" \
	" AND status IN ('sent', 'partially_paid') AND " range
#define UNPAID \
	" (SELECT u.unpaid AS n, u.due_cents AS due, u.unpaid - not_due.n AS over_n," \
	"  u.due_cents - not_due.due AS over_due" \
	"  FROM (SELECT coalesce(sum(unpaid), 0) AS unpaid, coalesce(sum(due_cents), 0) AS due_cents" \
	"   FROM unpaid_invoice_totals WHERE location_id = :location) u," \
	"  (SELECT count(*) AS n, coalesce(sum(due), 0) AS due FROM (" \
	NOT_DUE_IN("due_at >= " HL_SQL_NOW) " UNION ALL" NOT_DUE_IN("due_at IS NULL") ")) not_due) unpaid,"
#define NO_UNPAID " (SELECT 0 AS n, 0 AS due, 0 AS over_n, 0 AS over_due) unpaid,"
#define COUNTS_SQL(unpaid) \
	"SELECT live.n, unread.n, open_tasks.n, due.today, due.overdue, unpaid.n, unpaid.due," \
	" unpaid.over_n, unpaid.over_due, deals.n, deals.cents, live.health FROM" \
	" (SELECT coalesce(sum(live), 0) AS n, CASE WHEN sum(scored) THEN" \
	"  CAST(round(CAST(sum(health_sum) AS REAL) / sum(scored)) AS INTEGER) END AS health" \
	"  FROM contact_totals WHERE location_id = :location) live," \
	" (SELECT coalesce(sum(unread), 0) AS n FROM conversation_totals" \
	"  WHERE location_id = :location) unread," \
	" (SELECT count(*) AS today, count(*) FILTER (WHERE due_at < " HL_SQL_NOW ")" \
	"  + (SELECT coalesce(sum(overdue), 0) FROM overdue_task_totals" \
	"   WHERE location_id = :location) AS overdue" \
	"  FROM tasks WHERE location_id = :location AND completed_at IS NULL" \
	"  AND due_at >= " HL_SQL_LOCAL_TODAY " AND due_at < " HL_SQL_LOCAL_TOMORROW ") due," \
	" (SELECT coalesce(sum(open), 0) AS n FROM open_task_totals" \
	"  WHERE location_id = :location) open_tasks," unpaid \
	" (SELECT coalesce(sum(deals), 0) AS n, coalesce(sum(cents), 0) AS cents FROM deal_totals" \
	"  WHERE location_id = :location AND status = 'open') deals"
/* [reports_invoices] */
static const char *const counts_sql[2] = { COUNTS_SQL(NO_UNPAID), COUNTS_SQL(UNPAID) };

/* The invoices of the caller's (:me) live contacts (contacts c, invoices
 * i): the rule by which an "assigned only" caller sees an invoice (the
 * invoices module's). */
#define MY_CONTACTS \
	" WHERE c.location_id = :location AND c.owner_id = :me AND c.deleted_at IS NULL"
#define MY_INVOICES " contacts c JOIN invoices i ON i.contact_id = c.id" MY_CONTACTS
#define MINE_UNPAID \
	" (SELECT count(*) AS n, coalesce(sum(due), 0) AS due, count(*) FILTER (WHERE late) AS over_n," \
	"  coalesce(sum(due) FILTER (WHERE late), 0) AS over_due FROM" \
	"  (SELECT i.total_cents - i.paid_cents AS due, i.due_at < " HL_SQL_NOW " AS late FROM" \
	MY_INVOICES " AND i.status IN ('sent', 'partially_paid'))) unpaid,"
#define MINE_COUNTS_SQL(unpaid) \
	"SELECT live.n, unread.n, open_tasks.n, due.today, due.overdue, unpaid.n, unpaid.due," \
	" unpaid.over_n, unpaid.over_due, deals.n, deals.cents, live.health FROM" \
	" (SELECT count(*) AS n, CAST(round(avg(health_score)) AS INTEGER) AS health FROM contacts" \
	"  WHERE location_id = :location AND owner_id = :me AND deleted_at IS NULL) live," \
	" (SELECT count(*) AS n FROM conversations WHERE location_id = :location" \
	"  AND assigned_to = :me AND unread_count > 0) unread," \
	" (SELECT count(*) AS today, count(*) FILTER (WHERE due_at < " HL_SQL_NOW ")" \
	"  + (SELECT coalesce(sum(overdue), 0) FROM overdue_task_totals" \
	"   WHERE location_id = :location AND assignee = :me) AS overdue" \
	"  FROM tasks WHERE location_id = :location AND assignee_id = :me AND completed_at IS NULL" \
	"  AND due_at >= " HL_SQL_LOCAL_TODAY " AND due_at < " HL_SQL_LOCAL_TOMORROW ") due," \
	" (SELECT coalesce(sum(open), 0) AS n FROM open_task_totals" \
	"  WHERE location_id = :location AND assignee = :me) open_tasks," unpaid \
	" (SELECT coalesce(sum(deals), 0) AS n, coalesce(sum(cents), 0) AS cents" \
	"  FROM owner_open_totals WHERE location_id = :location AND owner_id = :me) deals"
static const char *const mine_counts_sql[2] = { MINE_COUNTS_SQL(NO_UNPAID),
						 MINE_COUNTS_SQL(MINE_UNPAID) };

/* Rows of (series, day of the period, count, cents), read from the daily
 * counts the other modules keep (the sub-account's days, as the period's), a row per
 * day, so that a busier sub-account costs no more: counting its rows took
 * the dashboard from 7.9 to 75 ms p95 (uncached, 10 clients) with ten
 * times the contacts and messages (make bench-growth). */
#define DAILY(n, counts, view) \
	" SELECT " #n ", day - :first_day, " counts " FROM " view \
	" WHERE location_id = :location AND day >= :first_day AND day < :first_day + :days"
#define SERIES_SQL(payments) \
	DAILY(0, "created, 0", "contacts_created_daily") \
	" UNION ALL" DAILY(1, "won, won_cents", "deals_won_daily") \
	" UNION ALL" DAILY(2, "lost, lost_cents", "deals_lost_daily") \
	" UNION ALL" DAILY(3, "received, 0", "messages_received_daily") payments
static const char *const series_sql[2] = {
	SERIES_SQL(""),
	SERIES_SQL(" UNION ALL" DAILY(4, "payments, cents", "payments_daily")),
};

/* The same for the caller's (:me) records, counted by day from their rows
 * (as the daily counts count them: live contacts by the day they were
 * made, deals by the day they closed, inbound messages, payments). */
#define DAY_OF(t) "local_day(unixepoch(" t "), " HL_SQL_ZONE ")"
#define MINE_DAILY(n, counts, rows) \
	" SELECT " n ", day - :first_day, " counts " FROM (" rows ")" \
	" WHERE day >= :first_day AND day < :first_day + :days GROUP BY 1, day"
#define MINE_SERIES_SQL(payments) \
	MINE_DAILY("0", "count(*), 0", "SELECT " DAY_OF("created_at") " AS day FROM contacts" \
		   " WHERE location_id = :location AND owner_id = :me AND deleted_at IS NULL") \
	" UNION ALL" MINE_DAILY("CASE status WHEN 'won' THEN 1 ELSE 2 END", \
		   "count(*), sum(value_cents)", "SELECT status, value_cents, " DAY_OF("closed_at") \
		   " AS day FROM opportunities WHERE location_id = :location AND owner_id = :me" \
		   " AND status IN ('won', 'lost') AND closed_at IS NOT NULL") \
	" UNION ALL" MINE_DAILY("3", "count(*), 0", "SELECT " DAY_OF("m.created_at") " AS day" \
		   " FROM conversations v JOIN messages m ON m.conversation_id = v.id" \
		   " WHERE v.location_id = :location AND v.assigned_to = :me" \
		   " AND m.direction = 'inbound'") payments
static const char *const mine_series_sql[2] = {
	MINE_SERIES_SQL(""),
	MINE_SERIES_SQL(" UNION ALL" MINE_DAILY("4", "count(*), sum(amount_cents)",
		"SELECT p.amount_cents, " DAY_OF("p.paid_at") " AS day FROM contacts c"
		" JOIN invoices i ON i.contact_id = c.id JOIN payments p ON p.invoice_id = i.id"
		MY_CONTACTS)),
};

/* Open deals per stage, empty stages included, in board order; the
 * caller's (:me) own, from the owners' counts the opportunities module
 * keeps, for an "assigned only" caller. */
#define STAGES_SQL(totals) \
	"SELECT p.id, p.name, s.id, s.name, coalesce(o.deals, 0), coalesce(o.cents, 0)" \
	" FROM pipelines p JOIN stages s ON s.pipeline_id = p.id LEFT JOIN " totals \
	" WHERE p.location_id = :location AND (:pipeline = 0 OR p.id = :pipeline)" \
	" ORDER BY p.position, p.id, s.position, s.id"
static const char stages_sql[] =
	STAGES_SQL("deal_totals o ON o.stage_id = s.id AND o.status = 'open'");
static const char mine_stages_sql[] =
	STAGES_SQL("owner_open_totals o ON o.stage_id = s.id AND o.owner_id = :me");

/* The statement of `sql` (the location's) or of `mine` (an "assigned
 * only" caller's, then bound and kept out of the cache). */
static sqlite3_stmt *figures_read(struct hl_req *req, const char *sql, const char *mine)
{
	int64_t me = hl_assigned_user(req);
	sqlite3_stmt *st = hl_scoped_read(req, me ? mine : sql);
	if (st && me) {
		hl_bind_int(st, ":me", me);
		hl_answer_uncached(req);
	}
	return st;
}

int figures_load_counts(struct hl_req *req, struct figures *f)
{
	sqlite3_stmt *st = figures_read(req, counts_sql[reports_invoices],
					mine_counts_sql[reports_invoices]);
	if (!st)
		return HL_EDB;
	if (sqlite3_step(st) != SQLITE_ROW)
		return HL_EDB;
	int64_t *out[] = { &f->contacts, &f->unread, &f->tasks_open, &f->tasks_today,
			   &f->tasks_overdue, &f->outstanding, &f->outstanding_cents, &f->overdue,
			   &f->overdue_cents, &f->deals_open, &f->deals_open_cents };
	int n = (int)(sizeof(out) / sizeof(out[0]));
	for (int i = 0; i < n; i++)
		*out[i] = sqlite3_column_int64(st, i);
	f->health = sqlite3_column_type(st, n) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, n);
	sqlite3_reset(st);
	return 0;
}

static int load_series(struct hl_req *req, struct figures *f)
{
	sqlite3_stmt *st = figures_read(req, series_sql[reports_invoices],
					mine_series_sql[reports_invoices]);
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":first_day", f->period.first_day);
	hl_bind_int(st, ":days", f->period.days);
	memset(f->series, 0, sizeof(f->series));
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int s = sqlite3_column_int(st, 0), day = sqlite3_column_int(st, 1);
		if (s < 0 || s >= SERIES_COUNT || day < 0 || day >= f->period.days)
			continue; /* a time SQLite could not read */
		f->series[s][day].count += sqlite3_column_int64(st, 2);
		f->series[s][day].cents += sqlite3_column_int64(st, 3);
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : HL_EDB;
}

int figures_load(struct hl_req *req, struct figures *f)
{
	int rc = figures_load_counts(req, f);
	return rc ? rc : load_series(req, f);
}

struct day_figure figures_sum(const struct figures *f, enum series s, int days)
{
	struct day_figure sum = { 0, 0 };
	for (int d = f->period.days - days; d < f->period.days; d++) {
		sum.count += f->series[s][d].count;
		sum.cents += f->series[s][d].cents;
	}
	return sum;
}

void figures_write_unread(struct hl_json *j, const struct figures *f)
{
	hl_json_key(j, "conversations");
	hl_json_object(j);
	hl_json_key(j, "unread");
	hl_json_int(j, f->unread);
	hl_json_object_end(j);
}

void figures_write_invoices(struct hl_json *j, const struct figures *f, int64_t paid_cents)
{
	if (!reports_invoices) {
		hl_json_key(j, "invoices");
		hl_json_null(j);
		return;
	}
	hl_json_key(j, "invoices");
	hl_json_object(j);
	reports_write_pair(j, "outstanding", "count", f->outstanding, "amount_due_cents",
			   f->outstanding_cents);
	reports_write_pair(j, "overdue", "count", f->overdue, "amount_due_cents", f->overdue_cents);
	if (paid_cents >= 0) {
		hl_json_key(j, "paid_cents");
		hl_json_int(j, paid_cents);
	}
	hl_json_object_end(j);
}

static void close_pipeline(struct hl_json *j, int64_t count, int64_t cents)
{
	hl_json_array_end(j);
	hl_json_key(j, "count");
	hl_json_int(j, count);
	hl_json_key(j, "value_cents");
	hl_json_int(j, cents);
	hl_json_object_end(j);
}

/* A pipeline and its stages, from the columns of stages_sql. */
static const struct hl_member pipeline_members[] = {
	{ "id", 0 }, { "name", 1 }, { NULL, 0 },
};
static const struct hl_member stage_members[] = {
	{ "id", 2 }, { "name", 3 }, { "count", 4 }, { "value_cents", 5 }, { NULL, 0 },
};

static void open_pipeline(struct hl_json *j, sqlite3_stmt *st)
{
	hl_json_object(j);
	hl_json_members(j, st, pipeline_members);
	hl_json_key(j, "stages");
	hl_json_array(j);
}

static void write_stage(struct hl_json *j, sqlite3_stmt *st)
{
	hl_json_object(j);
	hl_json_members(j, st, stage_members);
	hl_json_object_end(j);
}

int figures_write_pipelines(struct hl_req *req, struct hl_json *j, int64_t pipeline)
{
	sqlite3_stmt *st = figures_read(req, stages_sql, mine_stages_sql);
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":pipeline", pipeline);
	int64_t current = 0, count = 0, cents = 0;
	int rc;
	hl_json_array(j);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_int64(st, 0) != current) {
			if (current)
				close_pipeline(j, count, cents);
			current = sqlite3_column_int64(st, 0);
			count = cents = 0;
			open_pipeline(j, st);
		}
		count += sqlite3_column_int64(st, 4);
		cents += sqlite3_column_int64(st, 5);
		write_stage(j, st);
	}
	if (current)
		close_pipeline(j, count, cents);
	hl_json_array_end(j);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : HL_EDB;
}

/* SPDX-License-Identifier: MIT */
/*
 * data.c: GET /api/reports/dashboards/:id/data: each widget's figures, in
 * position order. The location's figures are loaded once (figures.c) over
 * the longest period any widget asks for, and each widget takes its slice:
 * a total and a series by day or by week (weeks end today, so the first
 * may be short). A pipeline_value widget reads its pipeline's stages.
 */
#include "reports.h"

#include <string.h>

/* The longest period of the dashboard's widgets; no row: not the location's. */
static const char period_sql[] =
	"SELECT (SELECT coalesce(max(CASE json_extract(config, '$.period') WHEN '90d' THEN 90"
	" WHEN '7d' THEN 7 ELSE 30 END), 7) FROM widgets WHERE dashboard_id = d.id)"
	" FROM dashboards d WHERE d.id = :id AND d.location_id = :location";

static const char widgets_sql[] =
	"SELECT id, kind, title, json(config), json_extract(config, '$.period'),"
	" json_extract(config, '$.group'), coalesce(json_extract(config, '$.pipeline_id'), 0), position"
	" FROM widgets WHERE dashboard_id = :id AND location_id = :location ORDER BY position, id";

/* A widget's slice of the figures. */
struct slice {
	const struct figures *f;
	int days, week;
};

static void write_bucket(struct hl_json *j, const char *date, struct day_figure sum, int cents)
{
	hl_json_object(j);
	hl_json_key(j, "date");
	hl_json_string(j, date);
	hl_json_key(j, "count");
	hl_json_int(j, sum.count);
	if (cents) {
		hl_json_key(j, "value_cents");
		hl_json_int(j, sum.cents);
	}
	hl_json_object_end(j);
}

/* The total and the series of `s` over the slice; `cents`: with values. */
static void write_series(struct hl_json *j, const struct slice *sl, enum series s, int cents)
{
	const struct figures *f = sl->f;
	struct day_figure total = figures_sum(f, s, sl->days);
	char date[11];
	hl_json_key(j, "count");
	hl_json_int(j, total.count);
	if (cents) {
		hl_json_key(j, "value_cents");
		hl_json_int(j, total.cents);
	}
	hl_json_key(j, "series");
	hl_json_array(j);
	int len = sl->week && sl->days % 7 ? sl->days % 7 : sl->week ? 7 : 1;
	for (int d = f->period.days - sl->days; d < f->period.days; d += len, len = sl->week ? 7 : 1) {
		struct day_figure sum = { 0, 0 };
		for (int k = d; k < d + len; k++) {
			sum.count += f->series[s][k].count;
			sum.cents += f->series[s][k].cents;
		}
		period_date(&f->period, d, date);
		write_bucket(j, date, sum, cents);
	}
	hl_json_array_end(j);
}

static void write_count(struct hl_json *j, const char *key, int64_t n)
{
	hl_json_key(j, key);
	hl_json_int(j, n);
}

static void write_invoices(struct hl_json *j, const struct figures *f)
{
	write_count(j, "count", f->outstanding);
	write_count(j, "amount_due_cents", f->outstanding_cents);
	hl_json_key(j, "overdue");
	hl_json_object(j);
	write_count(j, "count", f->overdue);
	write_count(j, "amount_due_cents", f->overdue_cents);
	hl_json_object_end(j);
}

/* The figures of the widget in the current row of `st` (see widgets_sql). */
static int write_figures(struct hl_req *req, struct hl_json *j, sqlite3_stmt *st,
			 const struct slice *sl)
{
	const char *kind = (const char *)sqlite3_column_text(st, 1);
	if (!strcmp(kind, "contacts_new"))
		write_series(j, sl, SERIES_CONTACTS, 0);
	else if (!strcmp(kind, "deals_won"))
		write_series(j, sl, SERIES_WON, 1);
	else if (!strcmp(kind, "messages"))
		write_series(j, sl, SERIES_RECEIVED, 0);
	else if (!strcmp(kind, "revenue"))
		write_series(j, sl, SERIES_PAYMENTS, 1);
	else if (!strcmp(kind, "tasks_open"))
		write_count(j, "count", sl->f->tasks_open);
	else if (!strcmp(kind, "tasks_overdue"))
		write_count(j, "count", sl->f->tasks_overdue);
	else if (!strcmp(kind, "invoices_due"))
		write_invoices(j, sl->f);
	else if (!strcmp(kind, "pipeline_value")) {
		hl_json_key(j, "pipelines");
		return figures_write_pipelines(req, j, sqlite3_column_int64(st, 6));
	}
	return 0;
}

static int write_widget(struct hl_req *req, struct hl_json *j, sqlite3_stmt *st,
			const struct figures *f)
{
	const char *period = (const char *)sqlite3_column_text(st, 4);
	const char *group = (const char *)sqlite3_column_text(st, 5);
	struct slice sl = { f, period_days(period) ? period_days(period) : 30,
			    group && !strcmp(group, "week") };
	static const struct hl_member widget_members[] = {
		{ "id", 0 }, { "kind", 1 }, { "title", 2 }, { "position", 7 }, { NULL, 0 },
	};
	hl_json_object(j);
	hl_json_members(j, st, widget_members);
	hl_json_key(j, "config");
	hl_json_object(j);
	hl_json_key(j, "period");
	hl_json_string(j, period && period_days(period) ? period : "30d");
	hl_json_key(j, "group");
	hl_json_string(j, sl.week ? "week" : "day");
	if (sqlite3_column_int64(st, 6)) {
		hl_json_key(j, "pipeline_id");
		hl_json_column(j, st, 6);
	}
	hl_json_object_end(j);
	hl_json_key(j, "data");
	if (!reports_invoices && reports_needs_invoices((const char *)sqlite3_column_text(st, 1))) {
		hl_json_null(j);
		hl_json_object_end(j);
		return 0;
	}
	hl_json_object(j);
	int rc = write_figures(req, j, st, &sl);
	hl_json_object_end(j);
	hl_json_object_end(j);
	return rc;
}

/* The dashboard's longest period in days; 0 when the location has no such
 * dashboard; HL_EDB. */
static int longest_period(struct hl_req *req, int64_t id)
{
	return (int)hl_scoped_read_int(req, period_sql, id);
}

int dashboards_data(struct hl_req *req)
{
	int64_t id;
	if (hl_param_id(req, "id", &id))
		return 0;
	int days = longest_period(req, id);
	if (days <= 0)
		return days < 0 ? days : hl_reply_error(req, 404, "not_found", "no such dashboard");
	struct figures *f = hl_alloc(req, sizeof(*f));
	period_init(&f->period, req, days, time(NULL));
	int rc = figures_load(req, f);
	sqlite3_stmt *st = rc ? NULL : hl_scoped_read(req, widgets_sql);
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":id", id);
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	hl_json_key(j, "dashboard_id");
	hl_json_int(j, id);
	hl_json_key(j, "widgets");
	hl_json_array(j);
	while (!rc && (rc = sqlite3_step(st)) == SQLITE_ROW)
		rc = write_widget(req, j, st, f);
	hl_json_array_end(j);
	hl_json_absent_modules(req, j);
	hl_json_object_end(j);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : HL_EDB;
}

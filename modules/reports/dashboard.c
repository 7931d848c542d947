/* SPDX-License-Identifier: MIT */
/*
 * dashboard.c: GET /api/dashboard?period=7d|30d|90d (30d by default): the
 * location's numbers at a glance and their series by day over the period,
 * from figures.c. Cached by the core; every table it reads is declared on
 * the route, so any write to them drops the answer.
 */
#include "reports.h"

void reports_write_pair(struct hl_json *j, const char *key, const char *count_key,
			int64_t count, const char *cents_key, int64_t cents)
{
	hl_json_key(j, key);
	hl_json_object(j);
	hl_json_key(j, count_key);
	hl_json_int(j, count);
	hl_json_key(j, cents_key);
	hl_json_int(j, cents);
	hl_json_object_end(j);
}

static void write_counts(struct hl_json *j, const struct figures *f)
{
	struct day_figure won = figures_sum(f, SERIES_WON, f->period.days);
	struct day_figure lost = figures_sum(f, SERIES_LOST, f->period.days);
	hl_json_key(j, "contacts");
	hl_json_object(j);
	hl_json_key(j, "total");
	hl_json_int(j, f->contacts);
	hl_json_key(j, "new");
	hl_json_int(j, figures_sum(f, SERIES_CONTACTS, f->period.days).count);
	hl_json_object_end(j);
	hl_json_key(j, "deals");
	hl_json_object(j);
	reports_write_pair(j, "won", "count", won.count, "value_cents", won.cents);
	reports_write_pair(j, "lost", "count", lost.count, "value_cents", lost.cents);
	hl_json_object_end(j);
	figures_write_unread(j, f);
	reports_write_pair(j, "tasks", "due_today", f->tasks_today, "overdue", f->tasks_overdue);
	figures_write_invoices(j, f, figures_sum(f, SERIES_PAYMENTS, f->period.days).cents);
}

static void write_series(struct hl_json *j, const struct figures *f)
{
	char date[11];
	hl_json_key(j, "series");
	hl_json_array(j);
	for (int d = 0; d < f->period.days; d++) {
		period_date(&f->period, d, date);
		hl_json_object(j);
		hl_json_key(j, "date");
		hl_json_string(j, date);
		hl_json_key(j, "contacts_new");
		hl_json_int(j, f->series[SERIES_CONTACTS][d].count);
		hl_json_key(j, "deals_won");
		hl_json_int(j, f->series[SERIES_WON][d].count);
		hl_json_key(j, "deals_won_cents");
		hl_json_int(j, f->series[SERIES_WON][d].cents);
		hl_json_key(j, "messages_received");
		hl_json_int(j, f->series[SERIES_RECEIVED][d].count);
		hl_json_key(j, "payments_cents");
		if (reports_invoices)
			hl_json_int(j, f->series[SERIES_PAYMENTS][d].cents);
		else
			hl_json_null(j);
		hl_json_object_end(j);
	}
	hl_json_array_end(j);
}

int reports_dashboard(struct hl_req *req)
{
	const char *name = hl_query(req, "period");
	int days = period_days(name ? name : "30d");
	if (!days)
		return hl_reply_error(req, 400, "bad_request", "period must be 7d, 30d or 90d");
	struct figures *f = hl_alloc(req, sizeof(*f));
	period_init(&f->period, req, days, time(NULL));
	int rc = figures_load(req, f);
	if (rc)
		return rc;
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	hl_json_key(j, "period");
	hl_json_string(j, name ? name : "30d");
	hl_json_key(j, "since");
	hl_json_string(j, f->period.since);
	hl_json_key(j, "until");
	hl_json_string(j, f->period.end);
	write_counts(j, f);
	hl_json_key(j, "pipelines");
	rc = figures_write_pipelines(req, j, 0);
	write_series(j, f);
	hl_json_absent_modules(req, j);
	hl_json_object_end(j);
	return rc;
}

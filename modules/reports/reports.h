/* SPDX-License-Identifier: MIT */
/*
 * reports.h: the reports module's parts. reports.c registers them;
 * period.c reads a period and works out its bounds; figures.c loads a
 * location's figures with a few grouped statements; dashboard.c answers
 * GET /api/dashboard with them, project.c GET /api/project; dashboards.c
 * and widgets.c keep the dashboards a location arranges; data.c answers a
 * dashboard's widget data.
 */
#ifndef REPORTS_H
#define REPORTS_H

#include <hyperlevel/hyperlevel.h>

#include <time.h>

#define PERIOD_MAX 90 /* days: the longest period a figure covers */

/* A period: the `days` days (UTC) that end today, from `since` (the first
 * day's midnight) to `end` (tomorrow's midnight), as the tables keep times
 * ("2026-11-30T00:00:00.000Z"). */
struct period {
	int days;
	time_t start; /* the first day's midnight, in the sub-account's zone */
	int64_t first_day; /* the same in days since 1970, as daily counts are kept */
	char since[32], end[32];
};

/* What the series count per day. */
enum series { SERIES_CONTACTS, SERIES_WON, SERIES_LOST, SERIES_RECEIVED, SERIES_PAYMENTS,
	      SERIES_COUNT };

struct day_figure {
	int64_t count, cents;
};

/* A location's figures: the counts that do not depend on the period, and
 * one series per enum series over the whole period, by day. */
struct figures {
	struct period period;
	int64_t contacts, unread, tasks_open, tasks_today, tasks_overdue;
	int64_t outstanding, outstanding_cents, overdue, overdue_cents;
	int64_t deals_open, deals_open_cents;
	int64_t health; /* the contacts' mean health score; -1: none scored */
	struct day_figure series[SERIES_COUNT][PERIOD_MAX];
};

/* The days of a period's name ("7d", "30d", "90d"), or 0 for another. */
int period_days(const char *name);
/* The period of `days` of the sub-account's days ending on the day of `now`. */
void period_init(struct period *p, struct hl_req *req, int days, time_t now);
/* "2026-11-30", the date `day` days after the period's first. */
void period_date(const struct period *p, int day, char out[11]);

/* Load the counts and the series of `f` (whose period is set). 0 or HL_EDB. */
int figures_load(struct hl_req *req, struct figures *f);
/* Load only the counts (of now, whatever the period). */
int figures_load_counts(struct hl_req *req, struct figures *f);
/* The sum of series `s` over the last `days` days of the period. */
struct day_figure figures_sum(const struct figures *f, enum series s, int days);
/* The members the dashboard and the project both answer, named alike:
 * "conversations": {"unread"}, and inside "invoices" the "outstanding" and
 * "overdue" pairs. */
void figures_write_unread(struct hl_json *j, const struct figures *f);
/* "invoices": {outstanding, overdue[, paid_cents when not negative]}, or
 * null without the invoices module. */
void figures_write_invoices(struct hl_json *j, const struct figures *f, int64_t paid_cents);
/* Write the location's pipelines (only `pipeline`, unless 0) as an array,
 * each with its open deals' count and value and its stages in order with
 * theirs. 0 or HL_EDB. */
int figures_write_pipelines(struct hl_req *req, struct hl_json *j, int64_t pipeline);

/* 1 when the invoices module is loaded (set by init); the statements
 * that read its tables are arrays of two texts indexed by it. Without it
 * the invoice figures are null and the answers say so
 * (hl_json_absent_modules). */
extern int reports_invoices;

/* Write `key`: {`count_key`: count, `cents_key`: cents}, the shape of
 * every pair of figures the module answers. */
void reports_write_pair(struct hl_json *j, const char *key, const char *count_key,
			int64_t count, const char *cents_key, int64_t cents);

int reports_dashboard(struct hl_req *req);          /* dashboard.c */
int dashboards_list(struct hl_req *req);            /* dashboards.c */
int dashboards_record(struct hl_req *req);
int dashboards_create(struct hl_req *req);
int dashboards_change(struct hl_req *req);
int dashboards_delete(struct hl_req *req);
/* 1 when dashboard `id` is the location's (on the connection of `write`
 * or a read one), 0, or HL_EDB. */
int dashboards_exists(struct hl_req *req, int64_t id, int write);
/* Whether a widget of `kind` shows invoice figures (its data is null
 * without the invoices module, and a new one is refused). */
int reports_needs_invoices(const char *kind);
int widgets_create(struct hl_req *req);             /* widgets.c */
int widgets_change(struct hl_req *req);
int widgets_delete(struct hl_req *req);
int dashboards_data(struct hl_req *req);            /* data.c */
int reports_project(struct hl_req *req);            /* project.c */

#endif

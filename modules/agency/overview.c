/* SPDX-License-Identifier: MIT */
/*
 * overview.c: GET /api/agency/overview, the agency at a glance: its
 * sub-accounts' counts added up (from the statement of projects.c) and,
 * over the last 30 days by day, its new contacts, deals won and their
 * value, messages received and payments (null without the invoices
 * module). Each sub-account counts by its own days (its time zone's),
 * which are numbered by their dates: the agency's day is a date. Amounts
 * are added up only when every sub-account keeps the same currency; the
 * totals' by_currency has them per currency, and the series' amounts are
 * null across currencies.
 *
 * The series is one statement over the figures per sub-account and day
 * that each owning module keeps (contacts_created_daily, deals_won_daily,
 * messages_received_daily, payments_daily): 30 rows a sub-account at
 * most for each, however many contacts or messages those days brought.
 * Stepping every row of the 30 days instead took 6 ms a request on the
 * full data set.
 */
#include "agency.h"

#include <string.h>

#define DAYS 30
#define DAY 86400

enum series { S_CONTACTS, S_WON, S_RECEIVED, S_PAYMENTS, S_COUNT };

/* Rows of (series, day, count, cents), a day being days since 1970 (UTC);
 * payments only with the invoices module. */
#define IN_PERIOD " AND day >= :first AND day < :end"
#define SERIES_SQL(payments) \
	"WITH loc AS MATERIALIZED (SELECT id FROM locations WHERE id IN " AGENCY_LOCATIONS ")" \
	" SELECT 0, day, created, 0 FROM contacts_created_daily" \
	" WHERE location_id IN (SELECT id FROM loc)" IN_PERIOD \
	" UNION ALL SELECT 1, day, won, won_cents FROM deals_won_daily" \
	" WHERE location_id IN (SELECT id FROM loc)" IN_PERIOD \
	" UNION ALL SELECT 2, day, received, 0 FROM messages_received_daily" \
	" WHERE location_id IN (SELECT id FROM loc)" IN_PERIOD payments
static const char *const series_sql[2] = {
	SERIES_SQL(""),
	SERIES_SQL(" UNION ALL SELECT 3, day, payments, cents FROM payments_daily"
		   " WHERE location_id IN (SELECT id FROM loc)" IN_PERIOD),
};

struct day {
	char start[32]; /* its midnight, as the tables keep times: the date first */
	int64_t count[S_COUNT], cents[S_COUNT];
};

static const char *const series_keys[S_COUNT][2] = {
	{ "contacts_new", NULL },
	{ "deals_won", "deals_won_cents" },
	{ "messages_received", NULL },
	{ NULL, "payments_cents" },
};

static int load_series(struct hl_req *req, int64_t location, struct day *days, int64_t first)
{
	sqlite3_stmt *st = agency_read(req, series_sql[agency_invoices], location);
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":first", first);
	hl_bind_int(st, ":end", first + DAYS);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int s = sqlite3_column_int(st, 0);
		int64_t d = sqlite3_column_int64(st, 1) - first;
		if (s < 0 || s >= S_COUNT || d < 0 || d >= DAYS)
			continue;
		days[d].count[s] += sqlite3_column_int64(st, 2);
		days[d].cents[s] += sqlite3_column_int64(st, 3);
	}
	return rc == SQLITE_DONE ? 0 : HL_EDB;
}

/* Whether the sub-accounts the overview covers keep more than one currency. */
static int mixed_currencies(struct hl_req *req, int64_t location, int *mixed)
{
	sqlite3_stmt *st = agency_read(req, "SELECT count(DISTINCT currency) > 1 FROM locations"
				      " WHERE id IN " AGENCY_LOCATIONS, location);
	int64_t n;
	int rc = hl_step_int(st, &n);
	*mixed = n > 0;
	return rc < 0 ? rc : 0;
}

static void write_series(struct hl_json *j, const struct day *days, int mixed)
{
	hl_json_key(j, "series");
	hl_json_array(j);
	for (int d = 0; d < DAYS; d++) {
		hl_json_object(j);
		hl_json_key(j, "date");
		hl_json_stringn(j, days[d].start, 10);
		for (int k = 0; k < S_COUNT; k++) {
			if (series_keys[k][0]) {
				hl_json_key(j, series_keys[k][0]);
				hl_json_int(j, days[d].count[k]);
			}
			if (series_keys[k][1]) {
				hl_json_key(j, series_keys[k][1]);
				if ((k == S_PAYMENTS && !agency_invoices) || mixed)
					hl_json_null(j);
				else
					hl_json_int(j, days[d].cents[k]);
			}
		}
		hl_json_object_end(j);
	}
	hl_json_array_end(j);
}

/* The totals' row, as members of the answer. */
static int write_totals(struct hl_req *req, struct hl_json *j, int64_t location)
{
	sqlite3_stmt *st = agency_read(req, projects_totals_sql[agency_invoices], location);
	if (!st)
		return HL_EDB;
	if (sqlite3_step(st) != SQLITE_ROW)
		return HL_EDB;
	hl_json_columns(j, st);
	return 0;
}

int agency_overview(struct hl_req *req)
{
	time_t now = time(NULL), start = now - now % DAY - (DAYS - 1) * DAY;
	struct day *days = hl_alloc(req, sizeof(*days) * DAYS);
	memset(days, 0, sizeof(*days) * DAYS);
	for (int d = 0; d < DAYS; d++)
		hl_time_text(start + (time_t)d * DAY, days[d].start);
	char until[32];
	hl_time_text(start + DAYS * DAY, until);
	int64_t location;
	int mixed = 0;
	int rc = agency_location(req, &location);
	if (!rc)
		rc = load_series(req, location, days, start / DAY);
	if (!rc)
		rc = mixed_currencies(req, location, &mixed);
	if (rc)
		return rc == HL_EINVAL ? 0 : rc;
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	if ((rc = write_totals(req, j, location)))
		return rc;
	hl_json_key(j, "since");
	hl_json_string(j, days[0].start);
	hl_json_key(j, "until");
	hl_json_string(j, until);
	write_series(j, days, mixed);
	hl_json_absent_modules(req, j);
	hl_json_object_end(j);
	return 0;
}

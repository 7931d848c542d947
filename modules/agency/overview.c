/* SPDX-License-Identifier: MIT */
/*
 * overview.c: GET /api/agency/overview, the agency at a glance: its
 * sub-accounts' counts added up (from the statement of projects.c) and,
 * over the last 30 days by day (UTC), its new contacts, deals won and
 * their value, messages received and payments, from one statement whose
 * parts each read an index range per sub-account.
 */
#include "agency.h"

#include <string.h>

#define DAYS 30
#define DAY 86400

enum series { S_CONTACTS, S_WON, S_RECEIVED, S_PAYMENTS, S_COUNT };

/* Rows of (series, day, count, cents). Messages are many per day: each
 * day is counted as its own index range, which is cheaper than grouping
 * them through a sorter. */
#define DAY_OF(col) "CAST(julianday(" col ") - julianday(:since) AS INTEGER)"
static const char series_sql[] =
	"WITH RECURSIVE loc AS MATERIALIZED (SELECT id FROM locations WHERE id IN " AGENCY_LOCATIONS "),"
	" day (n, since, until) AS (SELECT 0, :since, strftime('%Y-%m-%dT%H:%M:%fZ', :since, '+1 day')"
	"  UNION ALL SELECT n + 1, until, strftime('%Y-%m-%dT%H:%M:%fZ', until, '+1 day') FROM day"
	"  WHERE n + 1 < :days)"
	" SELECT 0, " DAY_OF("created_at") " AS day, count(*), 0 FROM contacts"
	" WHERE location_id IN (SELECT id FROM loc) AND deleted_at IS NULL"
	" AND created_at >= :since AND created_at < :end GROUP BY day"
	" UNION ALL SELECT 1, " DAY_OF("closed_at") " AS day, count(*), sum(value_cents)"
	" FROM opportunities WHERE location_id IN (SELECT id FROM loc) AND status = 'won'"
	" AND closed_at >= :since AND closed_at < :end GROUP BY day"
	" UNION ALL SELECT 2, n, (SELECT count(*) FROM messages"
	" WHERE location_id IN (SELECT id FROM loc) AND direction = 'inbound'"
	" AND created_at >= day.since AND created_at < day.until), 0 FROM day"
	" UNION ALL SELECT 3, " DAY_OF("paid_at") " AS day, count(*), sum(amount_cents) FROM payments"
	" WHERE location_id IN (SELECT id FROM loc) AND paid_at >= :since AND paid_at < :end"
	" GROUP BY day";

struct day_figure {
	int64_t count, cents;
};

static const char *const series_keys[S_COUNT][2] = {
	{ "contacts_new", NULL },
	{ "deals_won", "deals_won_cents" },
	{ "messages_received", NULL },
	{ NULL, "payments_cents" },
};

static int load_series(struct hl_req *req, int64_t location, time_t start,
		       struct day_figure out[S_COUNT][DAYS])
{
	char since[32], end[32];
	hl_time_text(start, since);
	hl_time_text(start + DAYS * DAY, end);
	sqlite3_stmt *st = agency_read(req, series_sql, location);
	if (!st)
		return HL_EDB;
	hl_bind_text(st, ":since", since);
	hl_bind_text(st, ":end", end);
	hl_bind_int(st, ":days", DAYS);
	memset(out, 0, sizeof(struct day_figure) * S_COUNT * DAYS);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int s = sqlite3_column_int(st, 0), d = sqlite3_column_int(st, 1);
		if (s < 0 || s >= S_COUNT || d < 0 || d >= DAYS)
			continue; /* a time SQLite could not read */
		out[s][d].count += sqlite3_column_int64(st, 2);
		out[s][d].cents += sqlite3_column_int64(st, 3);
	}
	return rc == SQLITE_DONE ? 0 : HL_EDB;
}

static void write_series(struct hl_json *j, time_t start, struct day_figure s[S_COUNT][DAYS])
{
	hl_json_key(j, "series");
	hl_json_array(j);
	for (int d = 0; d < DAYS; d++) {
		char date[11];
		struct tm tm;
		time_t t = start + (time_t)d * DAY;
		gmtime_r(&t, &tm);
		strftime(date, sizeof(date), "%Y-%m-%d", &tm);
		hl_json_object(j);
		hl_json_key(j, "date");
		hl_json_string(j, date);
		for (int k = 0; k < S_COUNT; k++) {
			if (series_keys[k][0]) {
				hl_json_key(j, series_keys[k][0]);
				hl_json_int(j, s[k][d].count);
			}
			if (series_keys[k][1]) {
				hl_json_key(j, series_keys[k][1]);
				hl_json_int(j, s[k][d].cents);
			}
		}
		hl_json_object_end(j);
	}
	hl_json_array_end(j);
}

/* The totals' row, as members of the answer. */
static int write_totals(struct hl_req *req, struct hl_json *j, int64_t location)
{
	sqlite3_stmt *st = agency_read(req, projects_totals_sql, location);
	if (!st)
		return HL_EDB;
	projects_bind(st, NULL);
	if (sqlite3_step(st) != SQLITE_ROW)
		return HL_EDB;
	hl_json_columns(j, st);
	return 0;
}

int agency_overview(struct hl_req *req)
{
	time_t now = time(NULL), start = now - now % DAY - (DAYS - 1) * DAY;
	char since[32], until[32];
	hl_time_text(start, since);
	hl_time_text(start + DAYS * DAY, until);
	struct day_figure (*series)[DAYS] = hl_alloc(req, sizeof(struct day_figure) * S_COUNT * DAYS);
	int64_t location;
	int rc = agency_location(req, &location);
	if (!rc)
		rc = load_series(req, location, start, series);
	if (rc)
		return rc == HL_EINVAL ? 0 : rc;
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	if ((rc = write_totals(req, j, location)))
		return rc;
	hl_json_key(j, "since");
	hl_json_string(j, since);
	hl_json_key(j, "until");
	hl_json_string(j, until);
	write_series(j, start, series);
	hl_json_object_end(j);
	return 0;
}

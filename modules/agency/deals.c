/* SPDX-License-Identifier: MIT */
/*
 * deals.c: GET /api/agency/opportunities?status=open|won|lost|abandoned
 * (open by default): the sub-accounts by name in keyset pages (limit,
 * cursor), each with its deals of that status by stage and their count and
 * value in its currency, and the agency's totals by status (their value
 * null when the sub-accounts with such deals keep more than one currency).
 *
 * Both statements read the counts the opportunities module keeps and
 * publishes per stage and status (the view deal_totals): a few rows per
 * stage of the page's sub-accounts, and of every one for the totals. A page's cost follows
 * its size, not the number of sub-accounts.
 */
#include "agency.h"

#include <string.h>

static const char *const statuses[] = { "open", "won", "lost", "abandoned" };
#define NSTATUS 4

/* A row per stage with deals of :status, or one with NULLs for a
 * sub-account without any; limit + 1 sub-accounts, to know there are more. */
static const char page_sql[] =
	"WITH page AS MATERIALIZED (SELECT id, name, currency FROM locations WHERE id IN " AGENCY_LOCATIONS
	"  AND (:cursor IS NULL OR (name COLLATE NOCASE, id) > (json_extract(:cursor, '$[0]'),"
	"  json_extract(:cursor, '$[1]'))) ORDER BY name COLLATE NOCASE, id LIMIT :limit)"
	" SELECT page.id, page.name, st.stage_id, st.stage_name, st.pipeline_id, st.pipeline_name,"
	" st.deals, st.cents, hex(json_array(page.name, page.id)), page.currency FROM page"
	" LEFT JOIN (SELECT sc.location_id, sc.stage_id, s.name AS stage_name, s.pipeline_id,"
	"  p.name AS pipeline_name, p.position AS pipeline_position, s.position, sc.deals, sc.cents"
	"  FROM deal_totals sc JOIN stages s ON s.id = sc.stage_id"
	"  JOIN pipelines p ON p.id = s.pipeline_id"
	"  WHERE sc.location_id IN (SELECT id FROM page) AND sc.status = :status AND sc.deals > 0) st"
	" ON st.location_id = page.id"
	" ORDER BY page.name COLLATE NOCASE, page.id, st.pipeline_position, st.pipeline_id,"
	" st.position, st.stage_id";

enum { COL_LOCATION, COL_LOCATION_NAME, COL_STAGE, COL_STAGE_NAME, COL_PIPELINE,
       COL_PIPELINE_NAME, COL_COUNT, COL_CENTS, COL_CURSOR, COL_CURRENCY };

static const char totals_sql[] =
	"SELECT t.status, sum(t.deals), sum(t.cents), count(DISTINCT l.currency) > 1"
	" FROM deal_totals t JOIN locations l ON l.id = t.location_id"
	" WHERE t.location_id IN " AGENCY_LOCATIONS " AND t.deals > 0 GROUP BY t.status";

struct figure {
	int64_t count, cents;
	int mixed; /* cents of more than one currency: not added up */
};

static void write_figure(struct hl_json *j, struct figure f)
{
	hl_json_key(j, "count");
	hl_json_int(j, f.count);
	hl_json_key(j, "value_cents");
	if (f.mixed)
		hl_json_null(j);
	else
		hl_json_int(j, f.cents);
}

static void open_location(struct hl_json *j, sqlite3_stmt *st)
{
	hl_json_object(j);
	hl_json_key(j, "id");
	hl_json_column(j, st, COL_LOCATION);
	hl_json_key(j, "name");
	hl_json_column(j, st, COL_LOCATION_NAME);
	hl_json_key(j, "currency");
	hl_json_column(j, st, COL_CURRENCY);
	hl_json_key(j, "stages");
	hl_json_array(j);
}

static void close_location(struct hl_json *j, struct figure f)
{
	hl_json_array_end(j);
	write_figure(j, f);
	hl_json_object_end(j);
}

static void write_stage(struct hl_json *j, sqlite3_stmt *st, struct figure f)
{
	static const struct { const char *key; int col; } members[] = {
		{ "id", COL_STAGE }, { "name", COL_STAGE_NAME }, { "pipeline_id", COL_PIPELINE },
		{ "pipeline_name", COL_PIPELINE_NAME },
	};
	hl_json_object(j);
	for (size_t i = 0; i < sizeof(members) / sizeof(members[0]); i++) {
		hl_json_key(j, members[i].key);
		hl_json_column(j, st, members[i].col);
	}
	write_figure(j, f);
	hl_json_object_end(j);
}

/* "sub_accounts": the page's, and "next_cursor": the last one's when a
 * further sub-account came. */
static int write_page(struct hl_req *req, struct hl_json *j, sqlite3_stmt *st, int64_t limit)
{
	struct figure here = { 0, 0, 0 };
	int64_t current = 0, n = 0;
	const char *cursor = NULL;
	int rc;
	hl_json_key(j, "sub_accounts");
	hl_json_array(j);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_int64(st, COL_LOCATION) != current) {
			if (n == limit)
				break; /* the one past the page */
			if (current)
				close_location(j, here);
			current = sqlite3_column_int64(st, COL_LOCATION);
			here = (struct figure){ 0, 0, 0 };
			if (++n == limit)
				cursor = hl_strndup(req, (const char *)sqlite3_column_text(st, COL_CURSOR),
						    (size_t)sqlite3_column_bytes(st, COL_CURSOR));
			open_location(j, st);
		}
		if (sqlite3_column_type(st, COL_STAGE) == SQLITE_NULL)
			continue; /* a sub-account without such deals */
		struct figure f = { sqlite3_column_int64(st, COL_COUNT),
				    sqlite3_column_int64(st, COL_CENTS), 0 };
		here.count += f.count;
		here.cents += f.cents;
		write_stage(j, st, f);
	}
	if (current)
		close_location(j, here);
	hl_json_array_end(j);
	hl_json_key(j, "next_cursor");
	hl_json_string(j, rc == SQLITE_ROW ? cursor : NULL);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : HL_EDB;
}

static int write_totals(struct hl_req *req, struct hl_json *j, int64_t location)
{
	sqlite3_stmt *st = agency_read(req, totals_sql, location);
	if (!st)
		return HL_EDB;
	struct figure totals[NSTATUS] = { { 0, 0, 0 } };
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		for (int s = 0; s < NSTATUS; s++)
			if (!strcmp((const char *)sqlite3_column_text(st, 0), statuses[s]))
				totals[s] = (struct figure){ sqlite3_column_int64(st, 1),
							    sqlite3_column_int64(st, 2),
							    sqlite3_column_int(st, 3) };
	hl_json_key(j, "totals");
	hl_json_object(j);
	for (int s = 0; s < NSTATUS; s++) {
		hl_json_key(j, statuses[s]);
		hl_json_object(j);
		write_figure(j, totals[s]);
		hl_json_object_end(j);
	}
	hl_json_object_end(j);
	return rc == SQLITE_DONE ? 0 : HL_EDB;
}

int agency_deals(struct hl_req *req)
{
	const char *want = hl_query(req, "status");
	struct agency_list list;
	int status = 0;
	while (want && status < NSTATUS && strcmp(want, statuses[status]))
		status++;
	if (status == NSTATUS)
		return hl_reply_error(req, 400, "bad_request", "status is open, won, lost or abandoned");
	int rc = agency_list_read(req, &list, "si");
	if (rc)
		return rc == HL_EINVAL ? 0 : rc;
	sqlite3_stmt *st = agency_read(req, page_sql, list.location);
	if (!st)
		return HL_EDB;
	hl_bind_text(st, ":status", statuses[status]);
	hl_bind_text(st, ":cursor", list.cursor);
	hl_bind_int(st, ":limit", list.limit + 1);
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	hl_json_key(j, "status");
	hl_json_string(j, statuses[status]);
	if (!(rc = write_page(req, j, st, list.limit)))
		rc = write_totals(req, j, list.location);
	hl_json_object_end(j);
	return rc;
}

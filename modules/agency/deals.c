/* SPDX-License-Identifier: MIT */
/*
 * deals.c: GET /api/agency/opportunities?status=open|won|lost|abandoned
 * (open by default): the deals of every sub-account by stage, with each
 * sub-account's count and value, and the agency's totals by status.
 *
 * One statement reads the counts the opportunities module keeps per stage
 * and status (stage_counts), a few rows per stage of every sub-account;
 * the totals by status are added up here from the same rows.
 */
#include "agency.h"

#include <string.h>

static const char *const statuses[] = { "open", "won", "lost", "abandoned" };
#define NSTATUS 4

static const char sql[] =
	"SELECT sc.location_id, l.name, sc.status, sc.stage_id, s.name, s.pipeline_id, p.name,"
	" sc.deals, sc.cents FROM stage_counts sc"
	" JOIN locations l ON l.id = sc.location_id JOIN stages s ON s.id = sc.stage_id"
	" JOIN pipelines p ON p.id = s.pipeline_id"
	" WHERE sc.location_id IN " AGENCY_LOCATIONS " AND sc.deals > 0"
	" ORDER BY l.name COLLATE NOCASE, l.id, p.position, p.id, s.position, s.id";

enum { COL_LOCATION, COL_LOCATION_NAME, COL_STATUS, COL_STAGE, COL_STAGE_NAME, COL_PIPELINE,
       COL_PIPELINE_NAME, COL_COUNT, COL_CENTS };

struct figure {
	int64_t count, cents;
};

static void write_figure(struct hl_json *j, struct figure f)
{
	hl_json_key(j, "count");
	hl_json_int(j, f.count);
	hl_json_key(j, "value_cents");
	hl_json_int(j, f.cents);
}

static int status_of(sqlite3_stmt *st)
{
	const char *s = (const char *)sqlite3_column_text(st, COL_STATUS);
	for (int i = 0; s && i < NSTATUS; i++)
		if (!strcmp(s, statuses[i]))
			return i;
	return -1;
}

static void open_location(struct hl_json *j, sqlite3_stmt *st)
{
	hl_json_object(j);
	hl_json_key(j, "id");
	hl_json_column(j, st, COL_LOCATION);
	hl_json_key(j, "name");
	hl_json_column(j, st, COL_LOCATION_NAME);
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

static void write_totals(struct hl_json *j, const struct figure totals[NSTATUS])
{
	hl_json_key(j, "totals");
	hl_json_object(j);
	for (int i = 0; i < NSTATUS; i++) {
		hl_json_key(j, statuses[i]);
		hl_json_object(j);
		write_figure(j, totals[i]);
		hl_json_object_end(j);
	}
	hl_json_object_end(j);
}

/* Each sub-account's stages of deals in `status`, counting every status
 * into `totals` on the way. */
static int write_sub_accounts(struct hl_json *j, sqlite3_stmt *st, int status,
			      struct figure totals[NSTATUS])
{
	struct figure here = { 0, 0 };
	int64_t current = 0;
	int rc;
	hl_json_key(j, "sub_accounts");
	hl_json_array(j);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int s = status_of(st);
		struct figure f = { sqlite3_column_int64(st, COL_COUNT),
				    sqlite3_column_int64(st, COL_CENTS) };
		if (s < 0)
			continue; /* not a status the table allows */
		totals[s].count += f.count;
		totals[s].cents += f.cents;
		if (s != status)
			continue;
		if (sqlite3_column_int64(st, COL_LOCATION) != current) {
			if (current)
				close_location(j, here);
			current = sqlite3_column_int64(st, COL_LOCATION);
			here = (struct figure){ 0, 0 };
			open_location(j, st);
		}
		here.count += f.count;
		here.cents += f.cents;
		write_stage(j, st, f);
	}
	if (current)
		close_location(j, here);
	hl_json_array_end(j);
	return rc == SQLITE_DONE ? 0 : HL_EDB;
}

int agency_deals(struct hl_req *req)
{
	const char *want = hl_query(req, "status");
	int status = 0;
	while (want && status < NSTATUS && strcmp(want, statuses[status]))
		status++;
	if (status == NSTATUS)
		return agency_bad(req, "status is open, won, lost or abandoned");
	int64_t location;
	int rc = agency_location(req, &location);
	if (rc)
		return rc == HL_EINVAL ? 0 : rc;
	sqlite3_stmt *st = agency_read(req, sql, location);
	if (!st)
		return HL_EDB;
	struct figure totals[NSTATUS] = { { 0, 0 } };
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	hl_json_key(j, "status");
	hl_json_string(j, statuses[status]);
	rc = write_sub_accounts(j, st, status, totals);
	write_totals(j, totals);
	hl_json_object_end(j);
	return rc;
}

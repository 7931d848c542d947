/* SPDX-License-Identifier: MIT */
/*
 * deals.c: GET /api/mobile/deals, the caller's open deals in the current
 * location by stage, in board order: each stage's count and value and its
 * first 20 deals. One statement over the owner's deals in the location (a
 * range of the (location_id, owner_id) index, 8.5M instructions a request
 * on the full data set, where SQLite's own choice, every open deal of the
 * location, took 9.4M), numbered within each stage.
 */
#include "mobile.h"

#define PER_STAGE 20

static const char sql[] =
	"SELECT s.id, s.name, p.name, mine.id, mine.name, mine.value_cents, mine.currency,"
	" trim(k.first_name || ' ' || k.last_name), mine.total, mine.cents, p.id"
	" FROM (SELECT id, name, value_cents, currency, contact_id, stage_id, pipeline_id,"
	"  row_number() OVER (PARTITION BY stage_id ORDER BY position, id) AS n,"
	"  count(*) OVER (PARTITION BY stage_id) AS total,"
	"  sum(value_cents) OVER (PARTITION BY stage_id) AS cents"
	"  FROM opportunities INDEXED BY opportunities_location_owner"
	"  WHERE location_id = :location AND owner_id = :user"
	"  AND status = 'open') mine"
	" JOIN stages s ON s.id = mine.stage_id JOIN pipelines p ON p.id = mine.pipeline_id"
	" LEFT JOIN contacts k ON k.id = mine.contact_id"
	" WHERE mine.n <= :per_stage ORDER BY p.position, p.id, s.position, s.id, mine.n";

enum { COL_STAGE, COL_STAGE_NAME, COL_PIPELINE_NAME, COL_DEAL, COL_NAME, COL_VALUE, COL_CURRENCY,
       COL_CONTACT, COL_TOTAL, COL_CENTS, COL_PIPELINE };

static void member(struct hl_json *j, const char *key, sqlite3_stmt *st, int col)
{
	hl_json_key(j, key);
	hl_json_column(j, st, col);
}

static void open_stage(struct hl_json *j, sqlite3_stmt *st)
{
	hl_json_object(j);
	member(j, "id", st, COL_STAGE);
	member(j, "name", st, COL_STAGE_NAME);
	member(j, "pipeline_id", st, COL_PIPELINE);
	member(j, "pipeline_name", st, COL_PIPELINE_NAME);
	member(j, "count", st, COL_TOTAL);
	member(j, "value_cents", st, COL_CENTS);
	hl_json_key(j, "deals");
	hl_json_array(j);
}

static void write_deal(struct hl_json *j, sqlite3_stmt *st)
{
	hl_json_object(j);
	member(j, "id", st, COL_DEAL);
	member(j, "name", st, COL_NAME);
	member(j, "value_cents", st, COL_VALUE);
	member(j, "currency", st, COL_CURRENCY);
	member(j, "contact_name", st, COL_CONTACT);
	hl_json_object_end(j);
}

static void close_stage(struct hl_json *j)
{
	hl_json_array_end(j);
	hl_json_object_end(j);
}

int mobile_deals(struct hl_req *req)
{
	sqlite3_stmt *st = hl_scoped_read(req, sql);
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":user", hl_user_id(req));
	hl_bind_int(st, ":per_stage", PER_STAGE);
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	hl_json_key(j, "stages");
	hl_json_array(j);
	int64_t stage = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_int64(st, COL_STAGE) != stage) {
			if (stage)
				close_stage(j);
			stage = sqlite3_column_int64(st, COL_STAGE);
			open_stage(j, st);
		}
		write_deal(j, st);
	}
	if (stage)
		close_stage(j);
	hl_json_array_end(j);
	hl_json_object_end(j);
	return rc == SQLITE_DONE ? 0 : HL_EDB;
}

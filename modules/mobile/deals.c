/* SPDX-License-Identifier: MIT */
/*
 * deals.c: GET /api/mobile/deals, the caller's open deals in the current
 * location by stage, in board order: each stage's count and value and its
 * first 20 deals. One statement, led by the location's stages in board
 * order: each stage's count and value are one row of the opportunities
 * module's owner_open_totals (its migration 012), its first 20 deals a
 * range of its index of open deals by owner and stage (migration 010).
 * Reading every open deal the owner has in the location and numbering
 * them took 6.8 ms in a sub-account of 15,000 deals; counting them from
 * that index, 0.6 ms there, grew with the sub-account (p95 at 10 clients
 * 4.7 ms at perf-seed's scale 1, 9.4 ms at ten times it).
 */
#include "mobile.h"

#define PER_STAGE 20

static const char sql[] =
	"WITH shown AS MATERIALIZED (SELECT s.id, s.name, s.position, p.id AS pipeline,"
	"  p.name AS pipeline_name, p.position AS pipeline_position, t.deals, t.cents"
	"  FROM pipelines p CROSS JOIN stages s CROSS JOIN owner_open_totals t"
	"  WHERE p.location_id = :location AND s.pipeline_id = p.id"
	"  AND t.owner_id = :user AND t.stage_id = s.id AND t.deals > 0)"
	" SELECT shown.id, shown.name, shown.pipeline_name, o.id, o.name, o.value_cents, o.currency,"
	" trim(k.first_name || ' ' || k.last_name), shown.deals, shown.cents, shown.pipeline"
	" FROM shown JOIN opportunities o ON o.id IN (SELECT id FROM opportunities"
	"  INDEXED BY opportunities_owner_open WHERE owner_id = :user AND stage_id = shown.id"
	"  AND status = 'open' ORDER BY position, id LIMIT :per_stage)"
	" LEFT JOIN contacts k ON k.id = o.contact_id"
	" ORDER BY shown.pipeline_position, shown.pipeline, shown.position, shown.id, o.position, o.id";

enum { COL_STAGE, COL_STAGE_NAME, COL_PIPELINE_NAME, COL_DEAL, COL_NAME, COL_VALUE, COL_CURRENCY,
       COL_CONTACT, COL_TOTAL, COL_CENTS, COL_PIPELINE };

/* The members of a stage and of a deal: their keys and columns, the row
 * holding both. */
static const struct hl_member stage_members[] = {
	{ "id", COL_STAGE }, { "name", COL_STAGE_NAME }, { "pipeline_id", COL_PIPELINE },
	{ "pipeline_name", COL_PIPELINE_NAME }, { "count", COL_TOTAL }, { "value_cents", COL_CENTS },
	{ NULL, 0 },
};

static const struct hl_member deal_members[] = {
	{ "id", COL_DEAL }, { "name", COL_NAME }, { "value_cents", COL_VALUE },
	{ "currency", COL_CURRENCY }, { "contact_name", COL_CONTACT }, { NULL, 0 },
};

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
			hl_json_object(j);
			hl_json_members(j, st, stage_members);
			hl_json_key(j, "deals");
			hl_json_array(j);
		}
		hl_json_object(j);
		hl_json_members(j, st, deal_members);
		hl_json_object_end(j);
	}
	if (stage)
		close_stage(j);
	hl_json_array_end(j);
	hl_json_object_end(j);
	return rc == SQLITE_DONE ? 0 : HL_EDB;
}

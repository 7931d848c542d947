/* SPDX-License-Identifier: MIT */
/*
 * record.c: GET /api/opportunities/:id, one deal with its stage's and its
 * contact's names; the writes answer with it too.
 */
#include "opportunities.h"

static const char record_sql[] =
	"SELECT " DEAL_COLUMNS " FROM opportunities o JOIN stages s ON s.id = o.stage_id"
	" LEFT JOIN contacts c ON c.id = o.contact_id"
	" WHERE o.id = :id AND o.location_id = :location AND (:me = 0 OR o.owner_id = :me)";

int opp_reply_record(struct hl_req *req, int status, int64_t id)
{
	return hl_reply_record(req, status, id, "opportunity", record_sql);
}

int opp_record(struct hl_req *req)
{
	return hl_reply_path_record(req, "opportunity", record_sql);
}

/* SPDX-License-Identifier: MIT */
/*
 * opportunities.h: the opportunities module's parts. opportunities.c
 * registers them (one deal's GET as data: DEAL_RECORD_SQL); board.c
 * answers the board; input.c
 * reads and checks a deal's body, write.c creates, changes and deletes
 * deals; notes.c keeps a deal's notes and history; pipelines.c and
 * stages.c keep the boards themselves; lookup.c answers other modules
 * about a deal (opportunities.get).
 */
#ifndef OPPORTUNITIES_H
#define OPPORTUNITIES_H

#include <hyperlevel/hyperlevel.h>

/* The columns of a deal as the record writes them (o: opportunities, s:
 * its stage, c: its contact by a LEFT JOIN). */
#define DEAL_COLUMNS "o.id, o.name, o.value_cents, o.currency, o.status, o.lost_reason," \
	" o.pipeline_id, o.stage_id, s.name AS stage_name, o.position, o.contact_id," \
	" trim(c.first_name || ' ' || c.last_name) AS contact_name, o.owner_id," \
	" o.created_at, o.updated_at, o.closed_at"
/* One deal of the location with its stage's and its contact's names, by
 * :id (and :me, for "assigned only" callers): GET /api/opportunities/:id,
 * and what the writes answer. */
#define DEAL_RECORD_SQL "SELECT " DEAL_COLUMNS \
	" FROM opportunities o JOIN stages s ON s.id = o.stage_id" \
	" LEFT JOIN contacts c ON c.id = o.contact_id" \
	" WHERE o.id = :id AND o.location_id = :location AND (:me = 0 OR o.owner_id = :me)"


/* What a deal's body says (input.c); a member whose bit is clear in
 * `given` is left as it is, one in `nulls` was sent as null (clearing a
 * contact or an owner; refused for the others). */
enum {
	DEAL_NAME = 1, DEAL_VALUE = 2, DEAL_CURRENCY = 4, DEAL_CONTACT = 8, DEAL_OWNER = 16,
	DEAL_STAGE = 32, DEAL_POSITION = 64, DEAL_STATUS = 128, DEAL_REASON = 256,
	DEAL_PIPELINE = 512, DEAL_BEFORE = 1024, DEAL_AFTER = 2048,
};
struct deal_input {
	const char *name, *currency, *status, *lost_reason;
	int64_t pipeline, stage, position, value, contact, owner;
	int64_t before; /* before_id: the deal this one goes before */
	int64_t after;  /* after_id: the deal it goes after */
	int64_t stage_pipeline; /* the pipeline of `stage`, once checked */
	unsigned given, nulls;
};
/* Read and check the body of a new deal (`whole`) or a change: 0, or
 * HL_EINVAL after a 422, or HL_EDB. */
int deal_read_input(struct hl_req *req, struct deal_input *in, int whole);

int opp_board(struct hl_req *req);                 /* board.c */
/* Answer deal `id` of the location with `status`; 404 if none. */
int opp_reply_record(struct hl_req *req, int status, int64_t id); /* write.c */
int opp_create(struct hl_req *req);
int opp_change(struct hl_req *req);
int opp_delete(struct hl_req *req);
int pipelines_list(struct hl_req *req);            /* pipelines.c */
int pipelines_create(struct hl_req *req);
int pipelines_change(struct hl_req *req);
int pipelines_delete(struct hl_req *req);
int opp_delete_unless_held(struct hl_req *req, const char *what, const char *count_sql,
			   const char *const *deletes);
int deal_notes_list(struct hl_req *req);           /* notes.c */
int deal_notes_add(struct hl_req *req);
int deal_notes_delete(struct hl_req *req);
int deal_history_list(struct hl_req *req);
/* Keep a deal's event as a line of its history. */
int history_add(struct hl_job_run *run, const struct hl_event *ev);
/* The service opportunities.get: a deal's id, name and contact. */
int opp_get(struct hl_req *req, const char *in, const char **out); /* lookup.c */
int stages_create(struct hl_req *req);             /* stages.c */
int stages_change(struct hl_req *req);
int stages_delete(struct hl_req *req);

#endif

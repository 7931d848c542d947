/* SPDX-License-Identifier: MIT */
/*
 * write.c: creating, changing (moving, closing, reopening) and deleting
 * deals. A deal moves only within its pipeline. Its position sorts it
 * within its stage and status: a move with a position shifts the deals at
 * and after that position down by one (one indexed UPDATE of that stage's
 * deals), a move without one puts the deal last. A move may name the deal
 * it goes before or after instead (before_id, after_id: what a board's
 * drop knows; after, when the column below is not loaded): the stage's
 * order is first written out as positions 0, 1, 2... where deals share one
 * (made together, or imported), so that "before" is one position. A
 * status other than open sets closed_at, open clears it (and the lost
 * reason, unless one is sent). Every change publishes opportunity.updated, and a move
 * opportunity.stage_changed, a status change opportunity.won, .lost,
 * .abandoned or .reopened; each carries the deal's contact, when it has
 * one.
 */
#include "opportunities.h"

#include <string.h>

/* The deal a change starts from. */
struct deal_now {
	int64_t pipeline, stage, owner;
	const char *status;
};

/* Deal `id`'s owner as the write transaction sees it: a user, 0 for none,
 * or HL_EDB. */
int opp_reply_record(struct hl_req *req, int status, int64_t id)
{
	return hl_reply_record(req, status, id, "opportunity", DEAL_RECORD_SQL);
}

static int64_t owner_of(struct hl_req *req, int64_t id)
{
	return hl_scoped_write_int(req, "SELECT owner_id FROM opportunities"
				   " WHERE id = :id AND location_id = :location", id);
}

/* Publish `event` about deal `id` with `extra` JSON members (or "") and
 * its contact, when it has one, for its `owner` (on the live channel a
 * user who sees only their own deals hears only of those). */
static int publish_for(struct hl_req *req, const char *event, int64_t id, int64_t contact,
		       const char *extra, int64_t owner)
{
	const char *data = hl_sprintf(req, "{%s%s%s}", extra,
		*extra && contact ? "," : "",
		contact ? hl_sprintf(req, "\"contact_id\":%lld", (long long)contact) : "");
	return hl_publish_assigned(req, event, id, owner, data);
}

static int publish(struct hl_req *req, const char *event, int64_t id, int64_t contact,
		   const char *extra)
{
	int64_t owner = owner_of(req, id);
	return owner < 0 ? (int)owner : publish_for(req, event, id, contact, extra, owner);
}

/* Deal `id` in its stage and status (once it has them): at the position
 * asked for, the deals from it on shifted down, or after the last one. */
static int place(struct hl_req *req, const struct deal_input *in, int64_t id)
{
	return hl_move_to_position(req, "opportunities", "pipeline_id status stage_id", id,
				   in->given & DEAL_POSITION ? in->position : HL_POSITION_LAST,
				   HL_POSITION_MAKE_ROOM) < 0 ? HL_EDB : 0;
}

/* Number the deals of `stage` with `status` 0, 1, 2... in board order
 * (position, then id), leaving out deal `id`: only rows whose position
 * changes are written. */
static int number_stage(struct hl_req *req, int64_t pipeline, int64_t stage, const char *status,
			int64_t id)
{
	sqlite3_stmt *st = hl_scoped_write(req, "UPDATE opportunities AS o SET position = r.n"
		" FROM (SELECT id, row_number() OVER (ORDER BY position, id) - 1 AS n"
		" FROM opportunities WHERE pipeline_id = :pipeline AND status = :status"
		" AND stage_id = :stage AND id <> :id AND location_id = :location) AS r"
		" WHERE o.id = r.id AND o.position <> r.n");
	hl_bind_int(st, ":pipeline", pipeline);
	hl_bind_text(st, ":status", status);
	hl_bind_int(st, ":stage", stage);
	hl_bind_int(st, ":id", id);
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

/* before_id or after_id as a position: the stage numbered, then the
 * position of the deal named (one more for after), which must be in
 * `stage` with `status` (and the caller's, for an "assigned only" one). 0,
 * HL_EINVAL after a 422, or HL_EDB. */
static int position_beside(struct hl_req *req, struct deal_input *in, int64_t pipeline,
			   int64_t stage, const char *status, int64_t id)
{
	int after = !!(in->given & DEAL_AFTER);
	int rc = number_stage(req, pipeline, stage, status, id);
	sqlite3_stmt *st = rc ? NULL : hl_scoped_write(req, "SELECT position + :after FROM opportunities"
		" WHERE id = :beside AND id <> :id AND pipeline_id = :pipeline AND stage_id = :stage"
		" AND status = :status AND location_id = :location AND (:me = 0 OR owner_id = :me)");
	hl_bind_int(st, ":after", after);
	hl_bind_int(st, ":beside", after ? in->after : in->before);
	hl_bind_int(st, ":id", id);
	hl_bind_int(st, ":pipeline", pipeline);
	hl_bind_int(st, ":stage", stage);
	hl_bind_text(st, ":status", status);
	hl_bind_int(st, ":me", hl_assigned_user(req));
	if ((rc = hl_step_int(st, &in->position)) <= 0)
		return rc ? rc : hl_reply_invalid(req, after ? "after_id" : "before_id",
						  "no deal of that stage and status");
	in->given |= DEAL_POSITION;
	return 0;
}

/* Tell `owner` (0: nobody) that the caller gave them deal `id`, in their
 * bell (hl_notify: not when they gave it to themselves). */
static int tell_owner(struct hl_req *req, int64_t id, int64_t owner)
{
	if (!owner)
		return 0;
	sqlite3_stmt *st = hl_scoped_write(req, "SELECT name FROM opportunities"
		" WHERE id = :id AND location_id = :location");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":id", id);
	if (sqlite3_step(st) != SQLITE_ROW)
		return sqlite3_reset(st), HL_EDB;
	const char *text = hl_sprintf(req, "assigned you the deal “%s”",
				      (const char *)sqlite3_column_text(st, 0));
	sqlite3_reset(st);
	struct hl_notice n = { .user = owner, .kind = "assigned", .text = text,
			       .path = hl_sprintf(req, "/opportunities/%lld", (long long)id) };
	return hl_notify(req, &n);
}

/* POST /api/opportunities: 201 with the deal, open, last in its stage
 * unless a position is given. An "assigned only" user's deal is theirs
 * unless they name another owner. */
int opp_create(struct hl_req *req)
{
	struct deal_input in;
	int rc = deal_read_input(req, &in, 1);
	if (rc)
		return rc == HL_EINVAL ? 0 : rc;
	if (!(in.given & DEAL_OWNER))
		in.owner = hl_assigned_user(req);
	sqlite3_stmt *st = hl_scoped_write(req, "INSERT INTO opportunities (location_id,"
		" pipeline_id, stage_id, name, value_cents, currency, contact_id, owner_id)"
		" VALUES (:location, :pipeline, :stage, :name, :value,"
		" ifnull(:currency, 'USD'), :contact, :owner)");
	hl_bind_int(st, ":pipeline", in.stage_pipeline);
	hl_bind_int(st, ":stage", in.stage);
	hl_bind_text(st, ":name", in.name);
	hl_bind_int(st, ":value", in.value);
	hl_bind_text(st, ":currency", in.currency);
	if (in.contact)
		hl_bind_int(st, ":contact", in.contact);
	if (in.owner)
		hl_bind_int(st, ":owner", in.owner);
	int64_t id = hl_step_last_id(st);
	if (id < 0 || (rc = place(req, &in, id)))
		return id < 0 ? (int)id : rc;
	/* the stage it was made in: its line is read later, when it may
	 * have moved on */
	rc = publish(req, "opportunity.created", id, in.contact,
		     hl_sprintf(req, "\"stage\":%lld", (long long)in.stage));
	if (!rc)
		rc = tell_owner(req, id, in.owner);
	return rc ? rc : opp_reply_record(req, 201, id);
}

/* The deal as it is, from the write connection: 1, 0 when it is not the
 * location's (or not the caller's own), HL_EDB. */
static int load_now(struct hl_req *req, int64_t id, struct deal_now *now)
{
	sqlite3_stmt *st = hl_scoped_write(req, "SELECT pipeline_id, stage_id, status,"
		" ifnull(owner_id, 0) FROM opportunities WHERE id = :id AND location_id = :location"
		" AND (:me = 0 OR owner_id = :me)");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":id", id);
	hl_bind_int(st, ":me", hl_assigned_user(req));
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? 0 : HL_EDB;
	now->pipeline = sqlite3_column_int64(st, 0);
	now->stage = sqlite3_column_int64(st, 1);
	now->status = hl_strndup(req, (const char *)sqlite3_column_text(st, 2),
				 (size_t)sqlite3_column_bytes(st, 2));
	now->owner = sqlite3_column_int64(st, 3);
	sqlite3_reset(st);
	return 1;
}

/* Apply the change; *contact the deal's contact afterwards. */
static int update(struct hl_req *req, const struct deal_input *in, int64_t id,
		  const char *status, int64_t stage, int64_t *contact)
{
	sqlite3_stmt *st = hl_scoped_write(req, "UPDATE opportunities SET"
		" name = CASE WHEN :given & 1 THEN :name ELSE name END,"
		" value_cents = CASE WHEN :given & 2 THEN :value ELSE value_cents END,"
		" currency = CASE WHEN :given & 4 THEN :currency ELSE currency END,"
		" contact_id = CASE WHEN :given & 8 THEN :contact ELSE contact_id END,"
		" owner_id = CASE WHEN :given & 16 THEN :owner ELSE owner_id END,"
		" lost_reason = CASE WHEN :given & 256 THEN :reason"
		" WHEN :status = 'open' AND status <> 'open' THEN NULL ELSE lost_reason END,"
		" closed_at = CASE WHEN :status = status THEN closed_at WHEN :status = 'open' THEN NULL"
		" ELSE strftime('%Y-%m-%dT%H:%M:%fZ', 'now') END,"
		" status = :status, stage_id = :stage,"
		" updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
		" WHERE id = :id AND location_id = :location RETURNING contact_id");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":given", in->given);
	hl_bind_text(st, ":name", in->name);
	hl_bind_int(st, ":value", in->value);
	hl_bind_text(st, ":currency", in->currency);
	if (in->contact)
		hl_bind_int(st, ":contact", in->contact);
	if (in->owner)
		hl_bind_int(st, ":owner", in->owner);
	hl_bind_text(st, ":reason", in->lost_reason);
	hl_bind_text(st, ":status", status);
	hl_bind_int(st, ":stage", stage);
	hl_bind_int(st, ":id", id);
	return hl_step_int(st, contact) == 1 ? 0 : HL_EDB;
}

/* The events of a change: updated, then the move and the status. */
static int publish_change(struct hl_req *req, int64_t id, int64_t contact,
			  const struct deal_now *now, int64_t stage, const char *status)
{
	int rc = publish(req, "opportunity.updated", id, contact, "");
	if (!rc && stage != now->stage)
		rc = publish(req, "opportunity.stage_changed", id, contact,
			     hl_sprintf(req, "\"from\":%lld,\"to\":%lld", (long long)now->stage,
					(long long)stage));
	if (!rc && strcmp(status, now->status))
		rc = publish(req, hl_sprintf(req, "opportunity.%s", strcmp(status, "open")
					     ? status : "reopened"), id, contact,
			     hl_sprintf(req, "\"from\":\"%s\",\"to\":\"%s\"", now->status, status));
	return rc;
}

/* PATCH /api/opportunities/:id: only the members sent change; null clears
 * the contact or the owner. A stage of another pipeline is 422. */
int opp_change(struct hl_req *req)
{
	int64_t id, contact;
	struct deal_input in;
	struct deal_now now;
	if (hl_param_id(req, "id", &id))
		return 0;
	int rc = deal_read_input(req, &in, 0);
	if (rc)
		return rc == HL_EINVAL ? 0 : rc;
	if ((rc = load_now(req, id, &now)) <= 0)
		return rc ? rc : hl_reply_error(req, 404, "not_found", "no such opportunity");
	if (in.stage && in.stage_pipeline != now.pipeline)
		return hl_reply_invalid(req, "stage_id", "not a stage of this deal's pipeline");
	int64_t stage = in.stage ? in.stage : now.stage;
	const char *status = in.status ? in.status : now.status;
	if (in.given & (DEAL_BEFORE | DEAL_AFTER) &&
	    (rc = position_beside(req, &in, now.pipeline, stage, status, id)))
		return rc == HL_EINVAL ? 0 : rc;
	if ((rc = update(req, &in, id, status, stage, &contact)))
		return rc;
	if ((in.given & DEAL_POSITION || stage != now.stage || strcmp(status, now.status)) &&
	    (rc = place(req, &in, id)))
		return rc;
	if ((rc = publish_change(req, id, contact, &now, stage, status)))
		return rc;
	if (in.given & DEAL_OWNER && in.owner != now.owner && (rc = tell_owner(req, id, in.owner)))
		return rc;
	return opp_reply_record(req, 200, id);
}

/* DELETE /api/opportunities/:id: for good; 204, or 404. */
int opp_delete(struct hl_req *req)
{
	int64_t id, contact;
	if (hl_param_id(req, "id", &id))
		return 0;
	int64_t owner = owner_of(req, id); /* told of it, once it is gone */
	if (owner < 0)
		return (int)owner;
	sqlite3_stmt *st = hl_scoped_write(req, "DELETE FROM opportunities WHERE id = :id"
		" AND location_id = :location AND (:me = 0 OR owner_id = :me) RETURNING ifnull(contact_id, 0)");
	hl_bind_int(st, ":id", id);
	hl_bind_int(st, ":me", hl_assigned_user(req));
	int rc = hl_step_int(st, &contact);
	if (rc <= 0)
		return rc ? rc : hl_reply_error(req, 404, "not_found", "no such opportunity");
	rc = publish_for(req, "opportunity.deleted", id, contact, "", owner);
	return rc ? rc : hl_reply_empty(req);
}

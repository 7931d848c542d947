/* SPDX-License-Identifier: MIT */
/*
 * stages.c: a pipeline's stages: adding one (last unless a position is
 * given), renaming, reordering or changing its probability, and deleting
 * one that holds no deals. A position given puts the stage before the one
 * that held it (those from it on move down by one), as deals do within a
 * stage. Each write publishes a stage.* event.
 */
#include "opportunities.h"

static const char *const stage_keys[] = { "name", "position", "probability", NULL };

struct stage_input {
	const char *name;
	int64_t position, probability;
	int has_position, has_probability;
};

/* One integer member that may be absent but not null. */
static int read_int(struct hl_req *req, const char *key, int64_t max, int64_t *out, int *has)
{
	int rc = hl_field_int(req, 0, key, 0, max, out);
	if (rc == HL_FIELD_NULL)
		return hl_reply_invalid(req, key, "may not be null");
	*has = rc == HL_FIELD_SET;
	return rc < 0 ? rc : 0;
}

static int read_stage(struct hl_req *req, int whole, struct stage_input *in)
{
	int rc = hl_fields_only(req, 0, stage_keys);
	int named = rc < 0 ? rc : hl_field_text(req, 0, "name", 100, &in->name);
	if (named < 0)
		return named;
	if ((whole || named != HL_FIELD_ABSENT) && (!in->name || !*in->name))
		return hl_reply_invalid(req, "name", "required, at most 100 characters");
	rc = read_int(req, "position", INT32_MAX, &in->position, &in->has_position);
	return rc ? rc : read_int(req, "probability", 100, &in->probability, &in->has_probability);
}

static int reply_stage(struct hl_req *req, int status, int64_t id)
{
	return hl_reply_record(req, status, id, "stage", "SELECT id, pipeline_id, name, position,"
			       " probability FROM stages WHERE id = :id AND location_id = :location");
}

static void bind_stage(sqlite3_stmt *st, const struct stage_input *in, int64_t id)
{
	hl_bind_text(st, ":name", in->name);
	hl_bind_int(st, ":probability", in->probability);
	hl_bind_int(st, ":has_probability", in->has_probability);
	hl_bind_int(st, ":id", id);
}

/* Stage `id` at the position asked for, before the stage that held it,
 * or (`last`) after the pipeline's last when none is asked for. */
static int place(struct hl_req *req, const struct stage_input *in, int64_t id, int last)
{
	if (!in->has_position && !last)
		return 0;
	return hl_move_to_position(req, "stages", "pipeline_id", id,
				   in->has_position ? in->position : HL_POSITION_LAST,
				   HL_POSITION_MAKE_ROOM) < 0 ? HL_EDB : 0;
}

/* After the write `st` (RETURNING id): 404 "no such `missing`" when it
 * found no row; else the stage placed, everyone told (`event`) and the
 * stage answered with `status`. */
static int finish(struct hl_req *req, sqlite3_stmt *st, const struct stage_input *in,
		  const char *missing, const char *event, int status)
{
	int64_t id;
	int rc = hl_step_int(st, &id);
	if (rc <= 0)
		return rc ? rc : hl_reply_error(req, 404, "not_found", "no such %s", missing);
	if ((rc = place(req, in, id, status == 201)) ||
	    (rc = hl_publish_assigned(req, event, id, HL_EVERYONE, NULL)))
		return rc;
	return reply_stage(req, status, id);
}

/* POST /api/pipelines/:id/stages: 201 with the stage; 404 for a pipeline
 * of another location. */
int stages_create(struct hl_req *req)
{
	struct stage_input in = { 0 };
	int64_t pipeline;
	if (hl_param_id(req, "id", &pipeline))
		return 0;
	int rc = read_stage(req, 1, &in);
	if (rc)
		return rc == HL_EINVAL ? 0 : rc;
	sqlite3_stmt *st = hl_scoped_write(req, "INSERT INTO stages (location_id, pipeline_id, name,"
		" position, probability) SELECT :location, p.id, :name, 0, :probability FROM pipelines p"
		" WHERE p.id = :id AND p.location_id = :location RETURNING id");
	bind_stage(st, &in, pipeline);
	return finish(req, st, &in, "pipeline", "stage.created", 201);
}

/* PATCH /api/stages/:id: its name, position or probability. */
int stages_change(struct hl_req *req)
{
	struct stage_input in = { 0 };
	int64_t id;
	if (hl_param_id(req, "id", &id))
		return 0;
	int rc = read_stage(req, 0, &in);
	if (rc)
		return rc == HL_EINVAL ? 0 : rc;
	sqlite3_stmt *st = hl_scoped_write(req, "UPDATE stages SET name = ifnull(:name, name),"
		" probability = CASE WHEN :has_probability THEN :probability ELSE probability END"
		" WHERE id = :id AND location_id = :location RETURNING id");
	bind_stage(st, &in, id);
	return finish(req, st, &in, "stage", "stage.updated", 200);
}

/* DELETE /api/stages/:id: 204; 409 naming how many deals it holds. */
int stages_delete(struct hl_req *req)
{
	static const char *const deletes[] = {
		"DELETE FROM stages WHERE id = :id AND location_id = :location", NULL,
	};
	return opp_delete_unless_held(req, "stage", "SELECT (SELECT count(*) FROM opportunities"
		" WHERE stage_id = s.id) FROM stages s WHERE id = :id AND location_id = :location",
		deletes);
}

/* SPDX-License-Identifier: MIT */
/*
 * pipelines.c: a location's pipelines: the list (each with its stages in
 * order, in one statement), creating, renaming or reordering, and deleting
 * one that holds no deals (its stages go with it). Each write publishes a
 * pipeline.* event.
 */
#include "opportunities.h"

static const char *const pipeline_keys[] = { "name", "position", NULL };

/* A pipeline with its stages in order, as JSON built by SQLite: one
 * indexed lookup of stages_pipeline per pipeline, and a location has a
 * few pipelines. */
#define PIPELINE_SELECT "SELECT p.id, p.name, p.position, p.created_at," \
	" (SELECT json_group_array(json_object('id', id, 'name', name, 'position', position," \
	" 'probability', probability)) FROM (SELECT * FROM stages WHERE pipeline_id = p.id" \
	" ORDER BY position, id)) AS json_stages"

/* The name (required for a new pipeline) and the position. */
static int read_pipeline(struct hl_req *req, int whole, const char **name, int64_t *position,
			 int *has_position)
{
	int rc = hl_fields_only(req, 0, pipeline_keys);
	int named = rc < 0 ? rc : hl_field_text(req, 0, "name", 100, name);
	if (named < 0)
		return named;
	if ((whole || named != HL_FIELD_ABSENT) && (!*name || !**name))
		return hl_reply_invalid(req, "name", "required, at most 100 characters");
	rc = hl_field_int(req, 0, "position", 0, INT32_MAX, position);
	if (rc == HL_FIELD_NULL)
		return hl_reply_invalid(req, "position", "may not be null");
	*has_position = rc == HL_FIELD_SET;
	return rc < 0 ? rc : 0;
}

/* The pipeline as the list writes it, by id. */
static int reply_pipeline(struct hl_req *req, int status, int64_t id)
{
	return hl_reply_record(req, status, id, "pipeline", PIPELINE_SELECT
			       " FROM pipelines p WHERE p.id = :id AND p.location_id = :location");
}

/* GET /api/pipelines: every pipeline of the location, by position. */
int pipelines_list(struct hl_req *req)
{
	sqlite3_stmt *st = hl_scoped_read(req, PIPELINE_SELECT
		" FROM pipelines p WHERE p.location_id = :location ORDER BY p.position, p.id");
	return hl_reply_page(req, st, INT64_MAX, 0); /* a location has few: never paged */
}

/* POST /api/pipelines: 201 with the pipeline, last unless a position is
 * given, without stages yet. */
int pipelines_create(struct hl_req *req)
{
	const char *name = NULL;
	int64_t position = 0;
	int has_position, rc = read_pipeline(req, 1, &name, &position, &has_position);
	if (rc)
		return rc == HL_EINVAL ? 0 : rc;
	sqlite3_stmt *st = hl_scoped_write(req, "INSERT INTO pipelines (location_id, name)"
					   " VALUES (:location, :name)");
	hl_bind_text(st, ":name", name);
	int64_t id = hl_step_last_id(st);
	/* At the position asked for (a sort key: the others stay), or last. */
	if (id < 0 || hl_move_to_position(req, "pipelines", NULL, id,
					  has_position ? position : HL_POSITION_LAST, 0) < 0)
		return HL_EDB;
	rc = hl_publish_assigned(req, "pipeline.created", id, HL_EVERYONE, NULL);
	return rc ? rc : reply_pipeline(req, 201, id);
}

/* PATCH /api/pipelines/:id: its name or position. */
int pipelines_change(struct hl_req *req)
{
	const char *name = NULL;
	int64_t id, position = 0, found;
	int has_position;
	if (hl_param_id(req, "id", &id))
		return 0;
	int rc = read_pipeline(req, 0, &name, &position, &has_position);
	if (rc)
		return rc == HL_EINVAL ? 0 : rc;
	sqlite3_stmt *st = hl_scoped_write(req, "UPDATE pipelines SET name = ifnull(:name, name)"
					   " WHERE id = :id AND location_id = :location RETURNING id");
	hl_bind_text(st, ":name", name);
	hl_bind_int(st, ":id", id);
	if ((rc = hl_step_int(st, &found)) <= 0)
		return rc ? rc : hl_reply_error(req, 404, "not_found", "no such pipeline");
	if (has_position && hl_move_to_position(req, "pipelines", NULL, id, position, 0) < 0)
		return HL_EDB;
	rc = hl_publish_assigned(req, "pipeline.updated", id, HL_EVERYONE, NULL);
	return rc ? rc : reply_pipeline(req, 200, id);
}

/* DELETE /api/pipelines/:id: 204, with its stages; 409 naming how many
 * deals it holds. */
int pipelines_delete(struct hl_req *req)
{
	static const char *const deletes[] = {
		"DELETE FROM stages WHERE pipeline_id = :id AND location_id = :location",
		"DELETE FROM pipelines WHERE id = :id AND location_id = :location",
		NULL,
	};
	return opp_delete_unless_held(req, "pipeline", "SELECT (SELECT count(*) FROM opportunities"
		" WHERE pipeline_id = p.id) FROM pipelines p WHERE id = :id AND location_id = :location",
		deletes);
}

/* DELETE of the pipeline or stage (`what`) of the path's :id, which every
 * user sees: 204 and `what`.deleted, or 409 while `count_sql` counts deals
 * in it (hl_delete_if_empty). */
int opp_delete_unless_held(struct hl_req *req, const char *what, const char *count_sql,
			   const char *const *deletes)
{
	int64_t id;
	if (hl_param_id(req, "id", &id))
		return 0;
	int rc = hl_delete_if_empty(req, id, what, count_sql, "deal", deletes);
	if (rc <= 0)
		return rc;
	rc = hl_publish_assigned(req, hl_sprintf(req, "%s.deleted", what), id, HL_EVERYONE, NULL);
	return rc ? rc : hl_reply_empty(req);
}

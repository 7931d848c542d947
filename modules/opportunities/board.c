/* SPDX-License-Identifier: MIT */
/*
 * board.c: GET /api/opportunities, the board of one pipeline: the
 * pipeline, its deals of one status (open unless asked) in board order
 * (stage by stage, then position and id within a stage), and its stages in
 * order, each with the count and value of the deals shown. The deals are
 * a flat "data" list whose rows name their stage, as every list of the API
 * is, so a client groups them as it draws.
 *
 * Three statements whatever the size: the pipeline, its stages (a few,
 * kept in the arena), and the deals, walked from the stages' index into
 * opportunities_board_shown (migration 003), which holds every column
 * shown, without sorting (the CROSS JOIN keeps the stages outside: left
 * to itself the planner walks the deals first and sorts them all); the
 * stage totals are summed in C while the deals are written. q= is a
 * substring of the deal's or its contact's name, checked on the board's
 * own rows (a board holds ~1,500 deals, fewer than an FTS lookup would
 * save).
 */
#include "opportunities.h"

#include <string.h>

struct board_filters {
	int64_t pipeline; /* 0: the location's first by position */
	const char *status;
	int64_t owner, me; /* 0: anyone */
	const char *q;     /* NULL: no search */
};

struct stage_total {
	int64_t id, position, probability, count, value;
	const char *name;
};

struct stage_list {
	struct stage_total *at;
	int n;
};

static int bad(struct hl_req *req, const char *message)
{
	hl_reply_error(req, 400, "bad_request", "%s", message);
	return HL_EINVAL;
}

/* Read and check the query string: 0, or HL_EINVAL after answering 400. */
static int read_filters(struct hl_req *req, struct board_filters *f)
{
	static const char *const statuses[] = { "open", "won", "lost", "abandoned", NULL };
	memset(f, 0, sizeof(*f));
	const char *status = hl_query(req, "status");
	f->status = "open";
	for (int i = 0; status && statuses[i]; i++)
		if (!strcmp(status, statuses[i]))
			f->status = statuses[i];
	if (status && strcmp(status, f->status))
		return bad(req, "status is open, won, lost or abandoned");
	if (hl_query_int(req, "pipeline", 0, 1, INT64_MAX, &f->pipeline) ||
	    hl_query_user(req, "owner", &f->owner))
		return HL_EINVAL;
	f->q = hl_query(req, "q");
	if (f->q && (!*f->q || hl_text_length(f->q) > 200))
		return bad(req, "q is 1 to 200 characters");
	f->me = hl_assigned_user(req);
	return 0;
}

/* The pipeline asked for, or the first: a row of `*out`, 0 and NULL when
 * the location has none; HL_EINVAL after a 404 for another's or none. */
static int load_pipeline(struct hl_req *req, const struct board_filters *f, sqlite3_stmt **out)
{
	sqlite3_stmt *st = hl_scoped_read(req, f->pipeline
		? "SELECT id, name, position FROM pipelines WHERE id = :id AND location_id = :location"
		: "SELECT id, name, position FROM pipelines WHERE location_id = :location"
		  " ORDER BY position, id LIMIT 1");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":id", f->pipeline);
	int rc = sqlite3_step(st);
	*out = rc == SQLITE_ROW ? st : NULL;
	if (rc == SQLITE_DONE && f->pipeline)
		return hl_reply_error(req, 404, "not_found", "no such pipeline"), HL_EINVAL;
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : HL_EDB;
}

/* The pipeline's stages in order, into the arena (doubling, so a few
 * allocations whatever the count). */
static int load_stages(struct hl_req *req, int64_t pipeline, struct stage_list *list)
{
	sqlite3_stmt *st = hl_scoped_read(req, "SELECT id, position, probability, name FROM stages"
		" WHERE pipeline_id = :pipeline AND location_id = :location ORDER BY position, id");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":pipeline", pipeline);
	int rc, room = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (list->n == room) {
			struct stage_total *grown = hl_alloc(req, sizeof(*grown) * (size_t)(room = room * 2 + 8));
			if (list->n)
				memcpy(grown, list->at, sizeof(*grown) * (size_t)list->n);
			list->at = grown;
		}
		struct stage_total *s = &list->at[list->n++];
		memset(s, 0, sizeof(*s));
		s->id = sqlite3_column_int64(st, 0);
		s->position = sqlite3_column_int64(st, 1);
		s->probability = sqlite3_column_int64(st, 2);
		s->name = hl_strndup(req, (const char *)sqlite3_column_text(st, 3),
				     (size_t)sqlite3_column_bytes(st, 3));
	}
	return rc == SQLITE_DONE ? 0 : HL_EDB;
}

/* The deals' statement for the filters asked for: each combination is one
 * SQL text, prepared once per connection. The totals need the stage and
 * the value; the contact's name is put together in C from its parts. */
enum { COL_STAGE = 0, COL_VALUE = 2, COL_FIRST_NAME = 9, COL_LAST_NAME = 10 };
static sqlite3_stmt *deals_statement(struct hl_req *req, const struct board_filters *f,
				     int64_t pipeline)
{
	const char *sql = hl_sprintf(req, "SELECT o.stage_id, o.id, o.value_cents, o.name,"
		" o.currency, o.position, o.owner_id, o.created_at, o.contact_id,"
		" c.first_name AS _first_name, c.last_name AS _last_name"
		" FROM stages s CROSS JOIN opportunities o ON o.pipeline_id = s.pipeline_id"
		" AND o.status = :status AND o.stage_id = s.id"
		" LEFT JOIN contacts c ON c.id = o.contact_id"
		" WHERE s.pipeline_id = :pipeline AND o.location_id = :location%s%s%s"
		" ORDER BY s.position, s.id, o.position, o.id",
		f->owner ? " AND o.owner_id = :owner" : "",
		f->me ? " AND o.owner_id = :me" : "",
		f->q ? " AND (instr(lower(o.name), lower(:q)) OR"
		       " instr(lower(c.first_name || ' ' || c.last_name), lower(:q)))" : "");
	sqlite3_stmt *st = hl_scoped_read(req, sql);
	if (!st)
		return NULL;
	hl_bind_int(st, ":pipeline", pipeline);
	hl_bind_text(st, ":status", f->status);
	hl_bind_int(st, ":owner", f->owner);
	hl_bind_int(st, ":me", f->me);
	hl_bind_text(st, ":q", f->q);
	return st;
}

/* The contact's name as every list gives it, trim(first || ' ' || last)
 * (null without a contact), written last so that it follows contact_id.
 * Done in SQL, the two concatenations and the trim cost three allocations
 * a deal: an eighth of the board's time. */
static void write_contact_name(struct hl_req *req, struct hl_json *j, sqlite3_stmt *st)
{
	char small[256];
	hl_json_key(j, "contact_name");
	if (sqlite3_column_type(st, COL_FIRST_NAME) == SQLITE_NULL ||
	    sqlite3_column_type(st, COL_LAST_NAME) == SQLITE_NULL) {
		hl_json_null(j);
		return;
	}
	const char *first = (const char *)sqlite3_column_text(st, COL_FIRST_NAME);
	size_t nf = (size_t)sqlite3_column_bytes(st, COL_FIRST_NAME);
	const char *last = (const char *)sqlite3_column_text(st, COL_LAST_NAME);
	size_t nl = (size_t)sqlite3_column_bytes(st, COL_LAST_NAME);
	size_t end = nf + 1 + nl, at = 0;
	char *name = end <= sizeof(small) ? small : hl_alloc(req, end);
	memcpy(name, first, nf);
	name[nf] = ' ';
	memcpy(name + nf + 1, last, nl);
	while (at < end && name[at] == ' ')
		at++;
	while (end > at && name[end - 1] == ' ')
		end--;
	hl_json_stringn(j, name + at, end - at);
}

/* Write the deals as "data", adding each to its stage's totals; the
 * deals come in the stages' order, so the stage only ever moves on. */
static int write_deals(struct hl_req *req, struct hl_json *j, sqlite3_stmt *st,
		       struct stage_list *list)
{
	int rc, at = 0;
	hl_json_key(j, "data");
	hl_json_array(j);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t stage = sqlite3_column_int64(st, COL_STAGE);
		while (at < list->n && list->at[at].id != stage)
			at++;
		if (at == list->n)
			return HL_EDB; /* the join gave a stage the list lacks */
		list->at[at].count++;
		list->at[at].value += sqlite3_column_int64(st, COL_VALUE);
		hl_json_object(j);
		hl_json_columns(j, st);
		write_contact_name(req, j, st);
		hl_json_object_end(j);
	}
	hl_json_array_end(j);
	return rc == SQLITE_DONE ? 0 : HL_EDB;
}

static void write_stages(struct hl_json *j, const struct stage_list *list)
{
	hl_json_key(j, "stages");
	hl_json_array(j);
	for (int i = 0; i < list->n; i++) {
		const struct stage_total *s = &list->at[i];
		hl_json_object(j);
		hl_json_key(j, "id");
		hl_json_int(j, s->id);
		hl_json_key(j, "name");
		hl_json_string(j, s->name);
		hl_json_key(j, "position");
		hl_json_int(j, s->position);
		hl_json_key(j, "probability");
		hl_json_int(j, s->probability);
		hl_json_key(j, "count");
		hl_json_int(j, s->count);
		hl_json_key(j, "value_cents");
		hl_json_int(j, s->value);
		hl_json_object_end(j);
	}
	hl_json_array_end(j);
}

int opp_board(struct hl_req *req)
{
	struct board_filters f;
	struct stage_list stages = { 0 };
	sqlite3_stmt *pipeline = NULL, *deals = NULL;
	int rc = read_filters(req, &f);
	if (!rc)
		rc = load_pipeline(req, &f, &pipeline);
	if (rc)
		return rc == HL_EINVAL ? 0 : rc;
	int64_t id = pipeline ? sqlite3_column_int64(pipeline, 0) : 0;
	if (id && ((rc = load_stages(req, id, &stages)) || !(deals = deals_statement(req, &f, id))))
		return rc ? rc : HL_EDB;
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	hl_json_key(j, "pipeline");
	if (pipeline)
		hl_json_row(j, pipeline);
	else
		hl_json_null(j);
	if (deals && (rc = write_deals(req, j, deals, &stages)))
		return rc;
	if (!deals) {
		hl_json_key(j, "data");
		hl_json_array(j);
		hl_json_array_end(j);
	}
	write_stages(j, &stages);
	hl_json_key(j, "next_cursor");
	hl_json_null(j);
	hl_json_object_end(j);
	return 0;
}

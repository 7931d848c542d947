/* SPDX-License-Identifier: MIT */
/*
 * board.c: GET /api/opportunities, the board of one pipeline: the
 * pipeline, its stages in order, each with the count and value of all its
 * deals of one status (open unless asked) and a cursor to the rest of its
 * column, and the first `per_stage` deals of each stage in board order
 * (position, then id). The deals are a flat "data" list whose rows name
 * their stage, as every list of the API is, so a client groups them as it
 * draws. With `stage` (and `cursor`, a column's next_cursor) the answer
 * is the same for that one column, the next page of it: a board of 20k
 * open deals opens as fast as one of 200, and a column is read as it is
 * scrolled.
 *
 * A handful of statements whatever the size: the pipeline, its stages
 * with their totals (kept by triggers in stage_counts, migration 004; a
 * board filtered by owner or search counts its deals in one grouped walk
 * of the pipeline instead), and one statement stepped once per stage,
 * each an index range of opportunities_board_shown (migration 003), which
 * holds every column shown, so nothing is sorted and no row looked up. A
 * cursor names the last deal sent and its position then: the page goes on
 * after that deal where it is now, while it is still in the column, since
 * a move renumbers its stage (write.c) and a position kept would skip a
 * deal. The range starts at the position only (SQLite carries a row
 * value's range no further than a column before the rowid), so where
 * deals share a position (imported ones) a page steps over the ties
 * before it: index entries, a few thousand at most.
 * q= is a substring of the deal's or its contact's name, checked on the
 * pipeline's own rows (a pipeline holds ~1,500 deals, fewer than an FTS
 * lookup would save).
 */
#include "opportunities.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

enum { PER_STAGE_DEFAULT = 25, PER_STAGE_MAX = 500 };

struct board_filters {
	int64_t pipeline; /* 0: the location's first by position */
	int64_t stage;    /* 0: every stage; otherwise that column only */
	const char *cursor; /* where in that column to go on, or NULL */
	int64_t per_stage;
	const char *status;
	int64_t owner, me; /* 0: anyone */
	const char *q;     /* NULL: no search */
};

struct stage_total {
	int64_t id, position, probability, count, value;
	const char *name;
	const char *next_cursor; /* NULL: the column is all sent */
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
	    hl_query_int(req, "stage", 0, 1, INT64_MAX, &f->stage) ||
	    hl_query_int(req, "per_stage", PER_STAGE_DEFAULT, 1, PER_STAGE_MAX, &f->per_stage) ||
	    hl_query_keyset(req, "cursor", "ni", &f->cursor) ||
	    hl_query_user(req, "owner", &f->owner))
		return HL_EINVAL;
	if (f->cursor && !f->stage)
		return bad(req, "cursor goes with the stage whose column it continues");
	f->q = hl_query(req, "q");
	if (f->q && (!*f->q || hl_text_length(f->q) > 200))
		return bad(req, "q is 1 to 200 characters");
	f->me = hl_assigned_user(req);
	return 0;
}

/* The pipeline asked for (or the stage's, or the location's first): a row
 * of `*out`, 0 and NULL when the location has none; HL_EINVAL after a 404
 * for another's or none. */
static int load_pipeline(struct hl_req *req, const struct board_filters *f, sqlite3_stmt **out)
{
	sqlite3_stmt *st = hl_scoped_read(req, f->stage
		? "SELECT p.id, p.name, p.position FROM stages s JOIN pipelines p ON p.id = s.pipeline_id"
		  " WHERE s.id = :stage AND s.location_id = :location AND (:id = 0 OR p.id = :id)"
		: f->pipeline
		? "SELECT id, name, position FROM pipelines WHERE id = :id AND location_id = :location"
		: "SELECT id, name, position FROM pipelines WHERE location_id = :location"
		  " ORDER BY position, id LIMIT 1");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":id", f->pipeline);
	hl_bind_int(st, ":stage", f->stage);
	int rc = sqlite3_step(st);
	*out = rc == SQLITE_ROW ? st : NULL;
	if (rc == SQLITE_DONE && (f->pipeline || f->stage))
		return hl_reply_error(req, 404, "not_found", f->stage ? "no such stage in this pipeline"
				      : "no such pipeline"), HL_EINVAL;
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : HL_EDB;
}

/* What the filters add to a statement over the pipeline's deals `o` and
 * their contacts `c`. */
static const char *filter_sql(struct hl_req *req, const struct board_filters *f)
{
	return hl_sprintf(req, "%s%s%s",
		f->owner ? " AND o.owner_id = :owner" : "",
		f->me ? " AND o.owner_id = :me" : "",
		f->q ? " AND (instr(fold(o.name), fold(:q)) OR"
		       " instr(lower(c.first_name || ' ' || c.last_name), lower(:q)))" : "");
}

static void bind_filters(sqlite3_stmt *st, const struct board_filters *f, int64_t pipeline)
{
	hl_bind_int(st, ":pipeline", pipeline);
	hl_bind_text(st, ":status", f->status);
	hl_bind_int(st, ":stage", f->stage);
	hl_bind_int(st, ":owner", f->owner);
	hl_bind_int(st, ":me", f->me);
	hl_bind_text(st, ":q", f->q);
}

/* The pipeline's stages in order (or the one asked for) with the totals
 * kept for their status, into the arena (doubling, so a few allocations
 * whatever the count). */
static int load_stages(struct hl_req *req, const struct board_filters *f, int64_t pipeline,
		       struct stage_list *list)
{
	sqlite3_stmt *st = hl_scoped_read(req, "SELECT s.id, s.position, s.probability, s.name,"
		" ifnull(k.deals, 0), ifnull(k.cents, 0) FROM stages s LEFT JOIN stage_counts k"
		" ON k.stage_id = s.id AND k.status = :status WHERE s.pipeline_id = :pipeline"
		" AND s.location_id = :location AND (:stage = 0 OR s.id = :stage)"
		" ORDER BY s.position, s.id");
	if (!st)
		return HL_EDB;
	bind_filters(st, f, pipeline);
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
		s->count = sqlite3_column_int64(st, 4);
		s->value = sqlite3_column_int64(st, 5);
	}
	return rc == SQLITE_DONE ? 0 : HL_EDB;
}

static struct stage_total *stage_of(struct stage_list *list, int64_t id)
{
	for (int i = 0; i < list->n; i++)
		if (list->at[i].id == id)
			return &list->at[i];
	return NULL;
}

/* A filtered board's totals, which nothing keeps: its deals counted in
 * one walk of the pipeline's index. */
static int count_filtered(struct hl_req *req, const struct board_filters *f, int64_t pipeline,
			  struct stage_list *list)
{
	sqlite3_stmt *st = hl_scoped_read(req, hl_sprintf(req, "SELECT o.stage_id, count(*),"
		" sum(o.value_cents) FROM opportunities o LEFT JOIN contacts c ON c.id = o.contact_id"
		" WHERE o.pipeline_id = :pipeline AND o.status = :status AND o.location_id = :location"
		"%s%s GROUP BY o.stage_id", f->stage ? " AND o.stage_id = :stage" : "",
		filter_sql(req, f)));
	if (!st)
		return HL_EDB;
	bind_filters(st, f, pipeline);
	for (int i = 0; i < list->n; i++)
		list->at[i].count = list->at[i].value = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct stage_total *s = stage_of(list, sqlite3_column_int64(st, 0));
		if (s) {
			s->count = sqlite3_column_int64(st, 1);
			s->value = sqlite3_column_int64(st, 2);
		}
	}
	return rc == SQLITE_DONE ? 0 : HL_EDB;
}

/* The deals' statement for the filters asked for, stepped once per stage
 * with :stage bound: each combination is one SQL text, prepared once per
 * connection. The contact's name is put together in C from its parts. */
enum { COL_ID = 1, COL_POSITION = 5, COL_FIRST_NAME = 9, COL_LAST_NAME = 10 };
static sqlite3_stmt *deals_statement(struct hl_req *req, const struct board_filters *f,
				     int64_t pipeline)
{
	sqlite3_stmt *st = hl_scoped_read(req, hl_sprintf(req, "SELECT o.stage_id, o.id,"
		" o.value_cents, o.name, o.currency, o.position, o.owner_id, o.created_at,"
		" o.contact_id, c.first_name AS _first_name, c.last_name AS _last_name"
		" FROM opportunities o LEFT JOIN contacts c ON c.id = o.contact_id"
		" WHERE o.pipeline_id = :pipeline AND o.status = :status AND o.stage_id = :stage"
		" AND o.location_id = :location%s%s ORDER BY o.position, o.id LIMIT :limit",
		f->cursor ? " AND (o.position, o.id) > (ifnull((SELECT a.position FROM opportunities a"
			    " WHERE a.id = json_extract(:cursor, '$[1]') AND a.stage_id = :stage"
			    " AND a.status = :status), json_extract(:cursor, '$[0]')),"
			    " json_extract(:cursor, '$[1]'))" : "",
		filter_sql(req, f)));
	if (!st)
		return NULL;
	bind_filters(st, f, pipeline);
	hl_bind_text(st, ":cursor", f->cursor);
	hl_bind_int(st, ":limit", f->per_stage + 1);
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

/* The cursor after a deal, as hl_query_keyset reads it back: hex of the
 * JSON array [position, id]. Made in C for the last deal sent only. */
static const char *cursor_after(struct hl_req *req, int64_t position, int64_t id)
{
	static const char digits[] = "0123456789ABCDEF";
	char json[48];
	int n = snprintf(json, sizeof(json), "[%" PRId64 ",%" PRId64 "]", position, id);
	char *hex = hl_alloc(req, (size_t)n * 2 + 1);
	for (int i = 0; i < n; i++) {
		hex[2 * i] = digits[(unsigned char)json[i] >> 4];
		hex[2 * i + 1] = digits[(unsigned char)json[i] & 15];
	}
	hex[2 * n] = 0;
	return hex;
}

/* One column's page of deals into "data" (open): up to per_stage, and
 * the stage's cursor when one more is there. */
static int write_column(struct hl_req *req, struct hl_json *j, sqlite3_stmt *st,
			const struct board_filters *f, struct stage_total *stage)
{
	int rc;
	int64_t sent = 0, position = 0, id = 0;
	sqlite3_reset(st);
	hl_bind_int(st, ":stage", stage->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sent == f->per_stage) {
			stage->next_cursor = cursor_after(req, position, id);
			break;
		}
		position = sqlite3_column_int64(st, COL_POSITION);
		id = sqlite3_column_int64(st, COL_ID);
		hl_json_object(j);
		hl_json_columns(j, st);
		write_contact_name(req, j, st);
		hl_json_object_end(j);
		sent++;
	}
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : HL_EDB;
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
		hl_json_key(j, "next_cursor");
		if (s->next_cursor)
			hl_json_string(j, s->next_cursor);
		else
			hl_json_null(j);
		hl_json_object_end(j);
	}
	hl_json_array_end(j);
}

/* The stages and the deals' statement of pipeline `id`: 0 or HL_EDB. */
static int load_board(struct hl_req *req, const struct board_filters *f, int64_t id,
		      struct stage_list *stages, sqlite3_stmt **deals)
{
	int rc = load_stages(req, f, id, stages);
	if (!rc && (f->owner || f->me || f->q))
		rc = count_filtered(req, f, id, stages);
	if (!rc && !(*deals = deals_statement(req, f, id)))
		rc = HL_EDB;
	return rc;
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
	if (id && (rc = load_board(req, &f, id, &stages, &deals)))
		return rc;
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	hl_json_key(j, "pipeline");
	if (pipeline)
		hl_json_row(j, pipeline);
	else
		hl_json_null(j);
	hl_json_key(j, "data");
	hl_json_array(j);
	for (int i = 0; i < stages.n; i++)
		if ((rc = write_column(req, j, deals, &f, &stages.at[i])))
			return rc;
	hl_json_array_end(j);
	write_stages(j, &stages);
	hl_json_key(j, "next_cursor");
	if (f.stage && stages.n && stages.at[0].next_cursor)
		hl_json_string(j, stages.at[0].next_cursor);
	else
		hl_json_null(j);
	hl_json_object_end(j);
	return 0;
}

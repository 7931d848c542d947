/* SPDX-License-Identifier: MIT */
/*
 * notes.c: a deal's notes and its history. Notes: newest first, a page at
 * a time; one added (by the signed-in user, published as
 * opportunity.note_added with the deal's contact, so the contact's
 * timeline shows it) or deleted (opportunity.note_deleted). History: the
 * lines of the deal's own events (hl_event_line, opportunities.c) kept by
 * history_add as each is handled, newest first; each line added is
 * published as deal_history.added for the open deal page. "Assigned
 * only" callers reach the notes and history of their own deals only.
 */
#include "opportunities.h"

#include <string.h>

#define NOTE_MAX 10000

/* Whether deal `id` is one of the location the caller may open: 1, 0,
 * HL_EDB. */
static int64_t deal_visible(struct hl_req *req, int64_t id)
{
	return hl_scoped_read_int(req, "SELECT 1 FROM opportunities WHERE id = :id"
				  " AND location_id = :location AND (:me = 0 OR owner_id = :me)", id);
}

/* The deal of the path, when the caller may open it: its id in *id, 1;
 * else 0 after answering (400, 404), or HL_EDB. */
static int open_deal(struct hl_req *req, int64_t *id)
{
	if (hl_param_id(req, "id", id))
		return 0;
	int64_t rc = deal_visible(req, *id);
	if (rc < 0)
		return (int)rc;
	return rc ? 1 : hl_reply_error(req, 404, "not_found", "no such opportunity");
}

/* The deal's rows of `table` (its notes, its history) with `columns`,
 * newest first a page at a time; the cursor is a row id. */
static int list_of_deal(struct hl_req *req, const char *table, const char *columns)
{
	int64_t id, limit, before;
	if (hl_query_int(req, "limit", 50, 1, 1000, &limit) ||
	    hl_query_int(req, "cursor", INT64_MAX, 1, INT64_MAX, &before))
		return 0;
	int rc = open_deal(req, &id);
	if (rc <= 0)
		return rc;
	sqlite3_stmt *st = hl_scoped_read(req, hl_sprintf(req, "SELECT %s, id AS _cursor FROM %s"
		" WHERE location_id = :location AND opportunity_id = :deal AND id < :before"
		" ORDER BY id DESC LIMIT :limit", columns, table));
	hl_bind_int(st, ":deal", id);
	hl_bind_int(st, ":before", before);
	hl_bind_int(st, ":limit", limit + 1);
	return hl_reply_page(req, st, limit, 4);
}

/* GET /api/opportunities/:id/notes: newest first. */
int deal_notes_list(struct hl_req *req)
{
	return list_of_deal(req, "deal_notes", "id, body, author_id, created_at");
}

/* Publish `event` about deal `id`'s note `note` for the deal's owner, with
 * its contact. */
static int publish_note(struct hl_req *req, const char *event, int64_t id, int64_t note,
			int64_t owner, int64_t contact)
{
	return hl_publish_assigned(req, event, id, owner, contact
		? hl_sprintf(req, "{\"note_id\":%lld,\"contact_id\":%lld}", (long long)note, (long long)contact)
		: hl_sprintf(req, "{\"note_id\":%lld}", (long long)note));
}

static const char *const note_keys[] = { "body", NULL };

/* POST /api/opportunities/:id/notes {"body": ...}: 201 with the note. */
int deal_notes_add(struct hl_req *req)
{
	int64_t id;
	const char *body;
	if (hl_param_id(req, "id", &id) || hl_fields_only(req, 0, note_keys) ||
	    hl_field_text(req, 0, "body", NOTE_MAX, &body) < 0)
		return 0;
	if (!body || !*body)
		return hl_reply_invalid(req, "body", "text of 1 to %d characters", NOTE_MAX);
	sqlite3_stmt *st = hl_scoped_write(req,
		"INSERT INTO deal_notes (location_id, opportunity_id, author_id, body)"
		" SELECT :location, id, :author, :body FROM opportunities WHERE id = :deal"
		" AND location_id = :location AND (:me = 0 OR owner_id = :me)"
		" RETURNING id, body, author_id, created_at,"
		" (SELECT ifnull(owner_id, 0) FROM opportunities WHERE id = :deal),"
		" (SELECT ifnull(contact_id, 0) FROM opportunities WHERE id = :deal)");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":deal", id);
	hl_bind_int(st, ":me", hl_assigned_user(req));
	hl_bind_int(st, ":author", hl_user_id(req));
	hl_bind_text(st, ":body", body);
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? hl_reply_error(req, 404, "not_found", "no such opportunity")
					 : HL_EDB;
	rc = publish_note(req, "opportunity.note_added", id, sqlite3_column_int64(st, 0),
			  sqlite3_column_int64(st, 4), sqlite3_column_int64(st, 5));
	if (rc)
		return rc;
	hl_json_row(hl_reply_json(req, 201), st);
	return 0;
}

/* DELETE /api/opportunities/:id/notes/:note: 204. */
int deal_notes_delete(struct hl_req *req)
{
	int64_t id, note;
	if (hl_param_id(req, "id", &id) || hl_param_id(req, "note", &note))
		return 0;
	sqlite3_stmt *st = hl_scoped_write(req, "DELETE FROM deal_notes WHERE id = :note"
		" AND opportunity_id = :deal AND location_id = :location"
		" AND (:me = 0 OR EXISTS (SELECT 1 FROM opportunities WHERE id = :deal"
		" AND owner_id = :me))"
		" RETURNING (SELECT ifnull(owner_id, 0) FROM opportunities WHERE id = :deal),"
		" (SELECT ifnull(contact_id, 0) FROM opportunities WHERE id = :deal)");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":deal", id);
	hl_bind_int(st, ":note", note);
	hl_bind_int(st, ":me", hl_assigned_user(req));
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? hl_reply_error(req, 404, "not_found", "no such note")
					 : HL_EDB;
	int64_t owner = sqlite3_column_int64(st, 0), contact = sqlite3_column_int64(st, 1);
	sqlite3_reset(st);
	rc = publish_note(req, "opportunity.note_deleted", id, note, owner, contact);
	return rc ? rc : hl_reply_empty(req);
}

/* GET /api/opportunities/:id/history: newest first. */
int deal_history_list(struct hl_req *req)
{
	return list_of_deal(req, "deal_history", "id, kind, line, at");
}

/* A line of the deal's history for each of its events that reads as one,
 * its notes aside (they have their own list), while the deal is there. */
int history_add(struct hl_job_run *run, const struct hl_event *ev)
{
	if (!strncmp(ev->name, "opportunity.note_", 17))
		return 0;
	sqlite3_stmt *line = hl_job_event_line(run, ev);
	if (!line)
		return 0;
	sqlite3_stmt *st = hl_stmt_scoped(hl_job_db(run), ev->location_id,
		"INSERT INTO deal_history (location_id, opportunity_id, kind, line, at)"
		" SELECT location_id, id, :kind, :line, " HL_SQL_NOW " FROM opportunities"
		" WHERE id = :deal AND location_id = :location");
	hl_bind_int(st, ":deal", ev->subject_id);
	hl_bind_text(st, ":kind", ev->name);
	hl_bind_text(st, ":line", (const char *)sqlite3_column_text(line, 0));
	int64_t added = hl_step_changes(st);
	if (added <= 0)
		return (int)added;
	return hl_job_publish_assigned(run, "deal_history.added", ev->location_id, ev->subject_id,
				       ev->assigned_to, "{}");
}

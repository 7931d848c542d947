/* SPDX-License-Identifier: MIT */
/*
 * timeline.c: a contact's timeline, what happened around the contact,
 * newest first. Each event about a contact that its module describes
 * (hl_event_line: "Deal Website moved to Won" and a link to the deal) is
 * kept as a line of contact_timeline when it is handled; an event nobody
 * describes, or of a module that is not loaded, makes no line. So this
 * file never reads another module's tables. Each line added is published
 * as contact_timeline.added, for the open record to show it.
 */
#include "contacts.h"

#include <string.h>

/* The contact an event is about: a contact's own event's subject, or the
 * contact its data names. */
static int64_t contact_of(struct hl_job_run *run, const struct hl_event *ev)
{
	if (!strncmp(ev->name, "contact.", 8))
		return ev->subject_id;
	sqlite3_stmt *st = hl_stmt(hl_job_db(run), "SELECT json_extract(:data, '$.contact_id')");
	int64_t id = 0;
	hl_bind_text(st, ":data", ev->data);
	return hl_step_int(st, &id) < 0 ? HL_EDB : id;
}

/* A line for the event's contact, when it is a live one of the event's
 * location and the event reads as one. */
int timeline_add(struct hl_job_run *run, const struct hl_event *ev)
{
	int64_t contact = contact_of(run, ev);
	if (contact <= 0)
		return (int)contact;
	sqlite3_stmt *line = hl_job_event_line(run, ev);
	if (!line)
		return 0;
	sqlite3_stmt *st = hl_stmt_scoped(hl_job_db(run), ev->location_id,
		"INSERT INTO contact_timeline (contact_id, location_id, kind, assigned_to, line, link,"
		" data, at) SELECT id, location_id, :kind, :assigned_to, :line, :link, :data, "
		HL_SQL_NOW " FROM contacts WHERE id = :contact AND location_id = :location"
		" AND deleted_at IS NULL");
	hl_bind_int(st, ":contact", contact);
	hl_bind_text(st, ":kind", ev->name);
	hl_bind_int(st, ":assigned_to", ev->assigned_to);
	hl_bind_text(st, ":line", (const char *)sqlite3_column_text(line, 0));
	hl_bind_text(st, ":link", (const char *)sqlite3_column_text(line, 1));
	hl_bind_text(st, ":data", ev->data);
	int64_t added = hl_step_changes(st);
	if (added <= 0)
		return (int)added;
	return hl_job_publish_assigned(run, "contact_timeline.added", ev->location_id, contact,
				       ev->assigned_to, "{}");
}

/* A note deleted (NOUN.note_deleted, a contact's or a deal's) takes the
 * line of its NOUN.note_added with it. */
int timeline_note_gone(struct hl_job_run *run, const struct hl_event *ev)
{
	int64_t contact = contact_of(run, ev);
	if (contact <= 0)
		return (int)contact;
	sqlite3_stmt *st = hl_stmt_scoped(hl_job_db(run), ev->location_id,
		"DELETE FROM contact_timeline WHERE contact_id = :contact"
		" AND location_id = :location AND kind = replace(:kind, '.note_deleted', '.note_added')"
		" AND json_extract(data, '$.note_id') = json_extract(:data, '$.note_id')");
	hl_bind_int(st, ":contact", contact);
	hl_bind_text(st, ":kind", ev->name);
	hl_bind_text(st, ":data", ev->data);
	int64_t gone = hl_step_changes(st);
	if (gone <= 0)
		return (int)gone;
	return hl_job_publish_assigned(run, "contact_timeline.added", ev->location_id, contact,
				       ev->assigned_to, "{}");
}

/* The lines an "assigned only" caller (:me) reads: of their records and
 * everyone's (-1 is HL_EVERYONE), as their activity counts. */
#define TIMELINE_MINE " AND (:me = 0 OR assigned_to IN (:me, -1))"

/* GET /api/contacts/:id/timeline: newest first; the cursor is a line's id. */
int timeline_list(struct hl_req *req)
{
	int64_t id, limit, before;
	if (hl_param_id(req, "id", &id) || hl_query_int(req, "limit", 50, 1, 1000, &limit) ||
	    hl_query_int(req, "cursor", INT64_MAX, 1, INT64_MAX, &before))
		return 0;
	int rc = contact_visible(req, id, 0);
	if (rc <= 0)
		return rc ? rc : hl_reply_error(req, 404, "not_found", "no such contact");
	sqlite3_stmt *st = hl_scoped_read(req,
		"SELECT id, kind, line, link, at, id AS _cursor FROM contact_timeline"
		" WHERE contact_id = :contact AND location_id = :location AND id < :before"
		TIMELINE_MINE " ORDER BY id DESC LIMIT :limit");
	hl_bind_int(st, ":contact", id);
	hl_bind_int(st, ":before", before);
	hl_bind_int(st, ":me", hl_assigned_user(req));
	hl_bind_int(st, ":limit", limit + 1);
	return hl_reply_page(req, st, limit, 5);
}

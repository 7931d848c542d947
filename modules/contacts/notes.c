/* SPDX-License-Identifier: MIT */
/*
 * notes.c: the notes written on a contact, newest first, a page at a time;
 * adding one (by the signed-in user) and deleting one. Adding publishes
 * contact.note_added, deleting contact.note_deleted. A person of the
 * sub-account named in a note as "@" and their name (any case or accents,
 * not followed by a letter or digit) is told in their bell (hl_notify).
 */
#include "contacts.h"

#include <string.h>

#define NOTE_MAX 10000

/* GET /api/contacts/:id/notes: newest first; the cursor is a note id. */
int notes_list(struct hl_req *req)
{
	int64_t id, limit, before;
	if (hl_param_id(req, "id", &id) || hl_query_int(req, "limit", 50, 1, 1000, &limit) ||
	    hl_query_int(req, "cursor", INT64_MAX, 1, INT64_MAX, &before))
		return 0;
	int rc = contact_visible(req, id, 0);
	if (rc <= 0)
		return rc ? rc : hl_reply_error(req, 404, "not_found", "no such contact");
	sqlite3_stmt *st = hl_scoped_read(req,
		"SELECT id, body, author_id, created_at, id AS _cursor FROM notes"
		" WHERE location_id = :location AND contact_id = :contact AND id < :before"
		" ORDER BY id DESC LIMIT :limit");
	hl_bind_int(st, ":contact", id);
	hl_bind_int(st, ":before", before);
	hl_bind_int(st, ":limit", limit + 1);
	return hl_reply_page(req, st, limit, 4);
}

static const char *const note_keys[] = { "body", NULL };

/* The people of the sub-account a note's :body mentions who may open the
 * contact (one who sees only their own: its owner), with the contact's
 * name and the start of the note. A sub-account has a few dozen people:
 * each is looked for in the note, at every "@" (their name as a GLOB
 * pattern, its wildcards escaped), so "@Anna ... @Ann" tells Ann too. */
#define MENTIONED "SELECT u.id, (SELECT trim(first_name || ' ' || last_name) FROM contacts" \
	" WHERE id = :contact AND location_id = :location), substr(:body, 1, 100)" \
	" || iif(length(:body) > 100, '…', '') FROM location_users lu JOIN users u ON u.id = lu.user_id" \
	" WHERE lu.location_id = :location AND length(u.name) > 0 AND (u.assigned_only = 0" \
	" OR u.id = (SELECT owner_id FROM contacts WHERE id = :contact AND location_id = :location))" \
	" AND fold(:body) || ' ' GLOB '*@' || replace(replace(replace(fold(u.name), '[', '[[]')," \
	" '*', '[*]'), '?', '[?]') || '[^a-z0-9]*'"

/* Tell each person `body` mentions, on contact `id`. */
static int tell_mentioned(struct hl_req *req, int64_t id, const char *body)
{
	if (!strchr(body, '@'))
		return 0;
	sqlite3_stmt *st = hl_scoped_write(req, MENTIONED);
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":contact", id);
	hl_bind_text(st, ":body", body);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 1);
		struct hl_notice n = {
			.user = sqlite3_column_int64(st, 0), .kind = "mention",
			.text = hl_sprintf(req, "mentioned you in a note on %s: “%s”",
					   name && *name ? name : "a contact",
					   (const char *)sqlite3_column_text(st, 2)),
			.path = hl_sprintf(req, "/contacts/%lld", (long long)id),
		};
		if ((rc = hl_notify(req, &n)))
			break;
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : rc < 0 ? rc : HL_EDB;
}

/* POST /api/contacts/:id/notes {"body": ...}: 201 with the note. */
int notes_add(struct hl_req *req)
{
	int64_t id;
	const char *body;
	if (hl_param_id(req, "id", &id) || hl_fields_only(req, 0, note_keys) ||
	    hl_field_text(req, 0, "body", NOTE_MAX, &body) < 0)
		return 0;
	if (!body || !*body)
		return hl_reply_invalid(req, "body", "text of 1 to %d characters", NOTE_MAX);
	sqlite3_stmt *st = hl_scoped_write(req,
		"INSERT INTO notes (location_id, contact_id, author_id, body)"
		" SELECT :location, id, :author, :body FROM contacts WHERE id = :contact"
		" AND location_id = :location AND deleted_at IS NULL" CONTACT_MINE("")
		" RETURNING id, body, author_id, created_at");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":contact", id);
	hl_bind_int(st, ":me", hl_assigned_user(req));
	hl_bind_int(st, ":author", hl_user_id(req));
	hl_bind_text(st, ":body", body);
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? hl_reply_error(req, 404, "not_found", "no such contact")
					 : HL_EDB;
	rc = contact_publish(req, "contact.note_added", id,
			hl_sprintf(req, "{\"note_id\":%lld}", (long long)sqlite3_column_int64(st, 0)));
	if (!rc)
		rc = tell_mentioned(req, id, body);
	if (rc)
		return rc;
	hl_json_row(hl_reply_json(req, 201), st);
	return 0;
}

/* DELETE /api/contacts/:id/notes/:note: 204. */
int notes_delete(struct hl_req *req)
{
	int64_t id, note;
	if (hl_param_id(req, "id", &id) || hl_param_id(req, "note", &note))
		return 0;
	sqlite3_stmt *st = hl_scoped_write(req, "DELETE FROM notes WHERE id = :note"
		" AND contact_id = :contact AND location_id = :location"
		" AND (:me = 0 OR EXISTS (SELECT 1 FROM contacts WHERE id = :contact"
		" AND owner_id = :me))");
	hl_bind_int(st, ":contact", id);
	hl_bind_int(st, ":note", note);
	hl_bind_int(st, ":me", hl_assigned_user(req));
	int64_t deleted = hl_step_changes(st);
	if (deleted <= 0)
		return deleted ? (int)deleted : hl_reply_error(req, 404, "not_found", "no such note");
	int rc = contact_publish(req, "contact.note_deleted", id,
			    hl_sprintf(req, "{\"note_id\":%lld}", (long long)note));
	return rc ? rc : hl_reply_empty(req);
}

/* SPDX-License-Identifier: MIT */
/*
 * replies.c: saved replies, the words a sub-account's team sends again
 * and again. Everyone of the sub-account lists them (the composer inserts
 * one); its admins add, change and delete them. A reply's merge fields
 * are checked when it is saved (merge.c, with no contact: each must be
 * one) and filled when a message written from it is sent; there, as for
 * any message, a field the contact has no value for needs its fallback.
 * Names are one per sub-account, whatever their case: a second is 409.
 */
#include "conversations.h"

#include <string.h>

#define NAME_MAX_CHARS 100
#define SUBJECT_MAX 300
/* A sub-account keeps at most this many: the composer lists them all. */
#define REPLIES_MAX 500

#define REPLY_SELECT "SELECT id, name, subject, body, created_at, updated_at FROM saved_replies"

static const char *const keys[] = { "name", "subject", "body", NULL };

struct reply {
	const char *name, *subject, *body;
	int has_name, has_subject, has_body;
};

/* The body's members into `r`: each required of a new reply (`whole`),
 * each checked when sent. 0, or HL_EINVAL after a 422. */
static int read_reply(struct hl_req *req, int whole, struct reply *r)
{
	const char *merged;
	if (hl_fields_only(req, 0, keys) ||
	    (r->has_name = hl_field_text(req, 0, "name", NAME_MAX_CHARS, &r->name)) < 0 ||
	    (r->has_subject = hl_field_text(req, 0, "subject", SUBJECT_MAX, &r->subject)) < 0 ||
	    (r->has_body = hl_field_text(req, 0, "body", BODY_MAX, &r->body)) < 0)
		return HL_EINVAL;
	if ((whole || r->has_name) && (!r->name || !r->name[strspn(r->name, " ")]))
		return hl_reply_invalid(req, "name", "required, at most %d characters", NAME_MAX_CHARS);
	if ((whole || r->has_body) && (!r->body || !r->body[strspn(r->body, " \n\t")]))
		return hl_reply_invalid(req, "body", "required, at most %d characters", BODY_MAX);
	if (r->subject && !*r->subject)
		r->subject = NULL; /* an empty subject is none */
	int rc = conv_merge(req, 0, "body", r->body, &merged);
	return rc ? rc : conv_merge(req, 0, "subject", r->subject, &merged);
}

static int reply_saved(struct hl_req *req, int status, int64_t id)
{
	return hl_reply_record(req, status, id, "saved reply", REPLY_SELECT
			       " WHERE id = :id AND location_id = :location");
}

static int name_taken(struct hl_req *req, const struct reply *r)
{
	return hl_reply_error(req, 409, "duplicate", "name: this sub-account has a saved reply"
			      " called \"%s\"", r->name);
}

/* GET /api/saved-replies: every one of the sub-account, by name. */
int replies_list(struct hl_req *req)
{
	sqlite3_stmt *st = hl_scoped_read(req, REPLY_SELECT " WHERE location_id = :location"
					  " ORDER BY name COLLATE NOCASE, id");
	return st ? hl_reply_page(req, st, INT64_MAX, 0) : HL_EDB; /* at most REPLIES_MAX */
}

/* POST /api/saved-replies {"name", "subject", "body"}: 201 with it. */
int replies_create(struct hl_req *req)
{
	struct reply r;
	int rc = read_reply(req, 1, &r);
	if (rc)
		return rc == HL_EINVAL ? 0 : rc;
	int64_t n;
	if ((rc = hl_step_int(hl_scoped_write(req, "SELECT count(*) FROM saved_replies"
					      " WHERE location_id = :location"), &n)) < 0)
		return rc;
	if (n >= REPLIES_MAX)
		return hl_reply_invalid(req, "name", "a sub-account keeps at most %d saved replies:"
					" delete one first", REPLIES_MAX);
	sqlite3_stmt *st = hl_scoped_write(req, "INSERT INTO saved_replies (location_id, name,"
		" subject, body, created_by) VALUES (:location, :name, :subject, :body, nullif(:me, 0))"
		" ON CONFLICT DO NOTHING");
	hl_bind_text(st, ":name", r.name);
	hl_bind_text(st, ":subject", r.subject);
	hl_bind_text(st, ":body", r.body);
	hl_bind_int(st, ":me", hl_user_id(req));
	int64_t id = hl_step_last_id(st);
	if (id <= 0)
		return id ? (int)id : name_taken(req, &r);
	rc = hl_publish_assigned(req, "saved_reply.created", id, HL_EVERYONE, NULL);
	return rc ? rc : reply_saved(req, 201, id);
}

/* PATCH /api/saved-replies/:id: the members sent change; "subject": null
 * (or "") takes the subject away. */
int replies_change(struct hl_req *req)
{
	struct reply r;
	int64_t id, found;
	if (hl_param_id(req, "id", &id))
		return 0;
	int rc = read_reply(req, 0, &r);
	if (rc)
		return rc == HL_EINVAL ? 0 : rc;
	sqlite3_stmt *st = hl_scoped_write(req, "UPDATE OR IGNORE saved_replies SET"
		" name = ifnull(:name, name), body = ifnull(:body, body),"
		" subject = iif(:has_subject, :subject, subject),"
		" updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
		" WHERE id = :id AND location_id = :location RETURNING id");
	hl_bind_text(st, ":name", r.has_name == HL_FIELD_SET ? r.name : NULL);
	hl_bind_text(st, ":body", r.has_body == HL_FIELD_SET ? r.body : NULL);
	hl_bind_int(st, ":has_subject", r.has_subject != HL_FIELD_ABSENT);
	hl_bind_text(st, ":subject", r.subject);
	hl_bind_int(st, ":id", id);
	if ((rc = hl_step_int(st, &found)) < 0)
		return rc;
	if (!rc) { /* not there, or its new name is another's */
		int64_t there = hl_scoped_write_int(req, "SELECT count(*) FROM saved_replies"
						    " WHERE id = :id AND location_id = :location", id);
		if (there < 0)
			return (int)there;
		return there ? name_taken(req, &r)
			     : hl_reply_error(req, 404, "not_found", "no such saved reply");
	}
	rc = hl_publish_assigned(req, "saved_reply.updated", id, HL_EVERYONE, NULL);
	return rc ? rc : reply_saved(req, 200, id);
}

/* DELETE /api/saved-replies/:id: 204. Messages written from it keep
 * their words. */
int replies_delete(struct hl_req *req)
{
	int64_t id;
	if (hl_param_id(req, "id", &id))
		return 0;
	sqlite3_stmt *st = hl_scoped_write(req, "DELETE FROM saved_replies"
					   " WHERE id = :id AND location_id = :location");
	hl_bind_int(st, ":id", id);
	int64_t gone = hl_step_changes(st);
	if (gone <= 0)
		return gone ? (int)gone : hl_reply_error(req, 404, "not_found", "no such saved reply");
	int rc = hl_publish_assigned(req, "saved_reply.deleted", id, HL_EVERYONE, NULL);
	return rc ? rc : hl_reply_empty(req);
}

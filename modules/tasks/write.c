/* SPDX-License-Identifier: MIT */
/*
 * write.c: creating, changing, deleting, completing and reopening tasks.
 * The body is checked member by member (422 naming the member, unknown
 * members refused): the assignee must be a user who can open the
 * location, the contact a live one of the location, the deal one of the
 * location as the opportunities module's service opportunities.get
 * answers (none can be given while that module is off), the due time an
 * ISO 8601 date or time (stored in UTC, as SQLite's strftime writes it).
 * A task given a deal and no contact takes the deal's contact (a change
 * only when the task has none).
 * Completing a completed task, or reopening an open one, changes nothing
 * and publishes nothing. Every change publishes a task.* event. A task
 * given to someone (made for them, or its assignee changed) tells them in
 * their bell (hl_notify; not when they gave it to themselves).
 */
#include "tasks.h"

#include <ctype.h>
#include <string.h>

#define TITLE_MAX 200
#define BODY_MAX 10000

enum { TITLE = 1, BODY = 2, DUE = 4, ASSIGNEE = 8, CONTACT = 16, DEAL = 32 };

int tasks_reply_record(struct hl_req *req, int status, int64_t id)
{
	return hl_reply_record(req, status, id, "task", TASK_RECORD_SQL);
}

static const char *const task_keys[] = {
	"title", "body", "due_at", "assignee_id", "contact_id", "opportunity_id", NULL,
};

/* What a create or a change says; a member whose bit is clear in `given`
 * is left as it is, a given NULL (or 0) clears it. */
struct task_input {
	const char *title, *body, *due_at;
	int64_t assignee, contact, deal;
	int64_t deal_contact; /* the deal's contact, once checked; 0: none */
	unsigned given;
};

/* The assignee and the contact, when given, exist for this location (the
 * contact one an "assigned only" caller owns: the task would show its
 * name). */
static int check_refs(struct hl_req *req, const struct task_input *in)
{
	int ok = !in->assignee ? 1 : hl_user_in_location(hl_read(req), hl_location_id(req),
							  in->assignee);
	if (ok != 1)
		return ok < 0 ? ok : hl_reply_invalid(req, "assignee_id", "no user of this sub-account");
	ok = !in->contact ? 1 : (int)hl_scoped_read_int(req, "SELECT 1 FROM contacts WHERE id = :id"
		" AND location_id = :location AND deleted_at IS NULL AND (:me = 0 OR owner_id = :me)",
		in->contact);
	if (ok != 1)
		return ok < 0 ? ok : hl_reply_invalid(req, "contact_id", "no contact of this sub-account");
	return 0;
}

/* Deal `deal` as the opportunities module answers it (opportunities.get):
 * 1 with its contact in *contact (0: none) and its name as a JSON string
 * in *name, 0 when the caller may see no such deal, HL_ENOENT without the
 * module, or another HL_E code. */
static int deal_lookup(struct hl_req *req, int64_t deal, int64_t *contact, const char **name)
{
	const char *out = NULL;
	int rc = hl_call(req, "opportunities.get", hl_sprintf(req, "{\"id\":%lld}", (long long)deal),
			 &out);
	if (rc)
		return rc;
	sqlite3_stmt *st = hl_stmt(hl_read(req), "SELECT json_extract(:out, '$.id'),"
		" json_extract(:out, '$.contact_id'), json_quote(json_extract(:out, '$.name'))");
	hl_bind_text(st, ":out", out);
	if (!st || sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_reset(st);
		return HL_EDB;
	}
	int found = sqlite3_column_int64(st, 0) == deal;
	*contact = sqlite3_column_int64(st, 1);
	*name = hl_strndup(req, (const char *)sqlite3_column_text(st, 2),
			   (size_t)sqlite3_column_bytes(st, 2));
	sqlite3_reset(st);
	return found;
}

/* The deal, when given, is one of this location the caller may see; its
 * contact goes in deal_contact. */
static int check_deal(struct hl_req *req, struct task_input *in)
{
	const char *name;
	int rc = !in->deal ? 1 : deal_lookup(req, in->deal, &in->deal_contact, &name);
	if (rc == HL_ENOENT)
		return hl_reply_invalid(req, "opportunity_id", "deals are turned off on this server");
	if (rc < 0)
		return rc;
	return rc ? 0 : hl_reply_invalid(req, "opportunity_id", "no deal of this sub-account");
}

/* Record which members were given, from an hl_field_* result. */
static int note(int rc, unsigned bit, unsigned *given)
{
	if (rc > HL_FIELD_ABSENT)
		*given |= bit;
	return rc;
}

/* The body as a task_input; answers 422 itself (HL_EINVAL). `whole`: a
 * new task, which needs a title. */
static int read_input(struct hl_req *req, struct task_input *in, int whole)
{
	memset(in, 0, sizeof(*in));
	int rc = hl_fields_only(req, 0, task_keys);
	if (rc >= 0)
		rc = note(hl_field_text(req, 0, "title", TITLE_MAX, &in->title), TITLE, &in->given);
	if (rc >= 0)
		rc = note(hl_field_text(req, 0, "body", BODY_MAX, &in->body), BODY, &in->given);
	if (rc >= 0)
		rc = note(hl_field_time(req, 0, "due_at", &in->due_at), DUE, &in->given);
	if (rc >= 0)
		rc = note(hl_field_int(req, 0, "assignee_id", 1, INT64_MAX, &in->assignee),
			  ASSIGNEE, &in->given);
	if (rc >= 0)
		rc = note(hl_field_int(req, 0, "contact_id", 1, INT64_MAX, &in->contact),
			  CONTACT, &in->given);
	if (rc >= 0)
		rc = note(hl_field_int(req, 0, "opportunity_id", 1, INT64_MAX, &in->deal),
			  DEAL, &in->given);
	if (rc < 0)
		return rc;
	if ((whole || in->given & TITLE) && (!in->title || !*in->title))
		return hl_reply_invalid(req, "title", "required, at most 200 characters");
	rc = check_refs(req, in);
	return rc ? rc : check_deal(req, in);
}

static void bind_input(sqlite3_stmt *st, const struct task_input *in)
{
	hl_bind_text(st, ":title", in->title);
	hl_bind_text(st, ":body", in->body);
	hl_bind_text(st, ":due", in->due_at);
	if (in->assignee)
		hl_bind_int(st, ":assignee", in->assignee);
	if (in->contact)
		hl_bind_int(st, ":contact", in->contact);
	if (in->deal)
		hl_bind_int(st, ":deal", in->deal);
	if (in->deal_contact)
		hl_bind_int(st, ":deal_contact", in->deal_contact);
	hl_bind_int(st, ":given", in->given);
}

/* Step a statement whose RETURNING gives the task's contact: 1 and
 * *contact (0 for none) when it touched a task, 0 when none, HL_EDB. The
 * statement is run to its end, so the write is complete. */
static int step_returning(sqlite3_stmt *st, int64_t *contact)
{
	int rc = sqlite3_step(st), found = rc == SQLITE_ROW;
	*contact = found ? sqlite3_column_int64(st, 0) : 0;
	while (rc == SQLITE_ROW)
		rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? found : HL_EDB;
}

/* Task `id`'s assignee as the write transaction sees it: a user, 0 for
 * none, or HL_EDB. */
static int64_t assignee_of(struct hl_req *req, int64_t id)
{
	return hl_scoped_write_int(req, "SELECT assignee_id FROM tasks"
				   " WHERE id = :id AND location_id = :location", id);
}

/* Publish `event` about task `id` with its contact, when it has one, and
 * its deal's name (`deal`, a JSON string, or NULL; for the timeline's
 * line), for its `assignee` (on the live channel a user who sees only
 * their own tasks hears only of those). */
static int publish_for(struct hl_req *req, const char *event, int64_t id, int64_t contact,
		       const char *deal, int64_t assignee)
{
	const char *data = hl_sprintf(req, "{%s%s%s}",
		contact ? hl_sprintf(req, "\"contact_id\":%lld", (long long)contact) : "",
		contact && deal ? "," : "", deal ? hl_sprintf(req, "\"deal\":%s", deal) : "");
	return hl_publish_assigned(req, event, id, assignee, data);
}

static int publish(struct hl_req *req, const char *event, int64_t id, int64_t contact)
{
	const char *name = NULL;
	int64_t ignored, assignee = assignee_of(req, id), deal = hl_scoped_write_int(req,
		"SELECT opportunity_id FROM tasks WHERE id = :id AND location_id = :location", id);
	if (assignee < 0 || deal < 0)
		return (int)(assignee < 0 ? assignee : deal);
	int rc = deal ? deal_lookup(req, deal, &ignored, &name) : 0;
	if (rc < 0 && rc != HL_ENOENT)
		return rc;
	return publish_for(req, event, id, contact, rc > 0 ? name : NULL, assignee);
}

/* Tell `assignee` (0: nobody) that the caller gave them task `id`. */
static int tell_assignee(struct hl_req *req, int64_t id, int64_t assignee)
{
	if (!assignee)
		return 0;
	sqlite3_stmt *st = hl_scoped_write(req, "SELECT title FROM tasks"
		" WHERE id = :id AND location_id = :location");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":id", id);
	if (sqlite3_step(st) != SQLITE_ROW)
		return sqlite3_reset(st), HL_EDB;
	const char *text = hl_sprintf(req, "assigned you the task “%s”",
				      (const char *)sqlite3_column_text(st, 0));
	sqlite3_reset(st);
	struct hl_notice n = { .user = assignee, .kind = "assigned", .text = text,
			       .path = hl_sprintf(req, "/tasks/%lld", (long long)id) };
	return hl_notify(req, &n);
}

/* POST /api/tasks: 201 with the task. An "assigned only" user's task is
 * theirs unless they name someone else. */
int tasks_create(struct hl_req *req)
{
	struct task_input in;
	int rc = read_input(req, &in, 1);
	if (rc)
		return rc == HL_EINVAL ? 0 : rc;
	if (!(in.given & ASSIGNEE))
		in.assignee = hl_assigned_user(req);
	if (!(in.given & CONTACT))
		in.contact = in.deal_contact;
	sqlite3_stmt *st = hl_scoped_write(req, "INSERT INTO tasks"
		" (location_id, title, body, due_at, assignee_id, contact_id, opportunity_id)"
		" VALUES (:location, :title, :body, :due, :assignee, :contact, :deal)");
	if (!st)
		return HL_EDB;
	bind_input(st, &in);
	int64_t id = hl_step_last_id(st);
	if (id < 0)
		return (int)id;
	rc = publish(req, "task.created", id, in.contact);
	if (!rc)
		rc = tell_assignee(req, id, in.assignee);
	return rc ? rc : tasks_reply_record(req, 201, id);
}

/* PATCH /api/tasks/:id: only the members sent change; null clears. */
int tasks_change(struct hl_req *req)
{
	int64_t id, contact;
	struct task_input in;
	if (hl_param_id(req, "id", &id))
		return 0;
	int rc = read_input(req, &in, 0);
	if (rc)
		return rc == HL_EINVAL ? 0 : rc;
	int64_t before = in.given & ASSIGNEE ? assignee_of(req, id) : 0;
	if (before < 0)
		return (int)before;
	sqlite3_stmt *st = hl_scoped_write(req, "UPDATE tasks SET"
		" title = CASE WHEN :given & 1 THEN :title ELSE title END,"
		" body = CASE WHEN :given & 2 THEN :body ELSE body END,"
		" due_at = CASE WHEN :given & 4 THEN :due ELSE due_at END,"
		" assignee_id = CASE WHEN :given & 8 THEN :assignee ELSE assignee_id END,"
		" contact_id = CASE WHEN :given & 16 THEN :contact"
		"  WHEN :given & 32 THEN ifnull(contact_id, :deal_contact) ELSE contact_id END,"
		" opportunity_id = CASE WHEN :given & 32 THEN :deal ELSE opportunity_id END,"
		" updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
		" WHERE id = :id AND location_id = :location AND (:me = 0 OR assignee_id = :me)"
		" RETURNING contact_id");
	if (!st)
		return HL_EDB;
	bind_input(st, &in);
	hl_bind_int(st, ":id", id);
	hl_bind_int(st, ":me", hl_assigned_user(req));
	if ((rc = step_returning(st, &contact)) <= 0)
		return rc ? rc : hl_reply_error(req, 404, "not_found", "no such task");
	rc = publish(req, "task.updated", id, contact);
	if (!rc && in.given & ASSIGNEE && in.assignee != before)
		rc = tell_assignee(req, id, in.assignee);
	return rc ? rc : tasks_reply_record(req, 200, id);
}

/* DELETE /api/tasks/:id: for good; 204, or 404. */
int tasks_delete(struct hl_req *req)
{
	int64_t id, contact;
	if (hl_param_id(req, "id", &id))
		return 0;
	int64_t assignee = assignee_of(req, id); /* told of it, once it is gone */
	if (assignee < 0)
		return (int)assignee;
	sqlite3_stmt *st = hl_scoped_write(req, "DELETE FROM tasks WHERE id = :id"
		" AND location_id = :location AND (:me = 0 OR assignee_id = :me) RETURNING contact_id");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":id", id);
	hl_bind_int(st, ":me", hl_assigned_user(req));
	int rc = step_returning(st, &contact);
	if (rc <= 0)
		return rc ? rc : hl_reply_error(req, 404, "not_found", "no such task");
	rc = publish_for(req, "task.deleted", id, contact, NULL, assignee);
	return rc ? rc : hl_reply_empty(req);
}

/* Complete (`done`) or reopen the task, when it is not so already. */
static int set_done(struct hl_req *req, int done, const char *event)
{
	int64_t id, contact;
	if (hl_param_id(req, "id", &id))
		return 0;
	sqlite3_stmt *st = hl_scoped_write(req, "UPDATE tasks SET"
		" completed_at = CASE WHEN :done THEN strftime('%Y-%m-%dT%H:%M:%fZ', 'now') END,"
		" updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
		" WHERE id = :id AND location_id = :location AND (:me = 0 OR assignee_id = :me)"
		" AND (completed_at IS NULL) = :done RETURNING contact_id");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":id", id);
	hl_bind_int(st, ":me", hl_assigned_user(req));
	hl_bind_int(st, ":done", done);
	int rc = step_returning(st, &contact);
	if (rc > 0)
		rc = publish(req, event, id, contact);
	return rc < 0 ? rc : tasks_reply_record(req, 200, id);
}

/* POST /api/tasks/:id/complete, /reopen: 200 with the task, either way. */
int tasks_complete(struct hl_req *req)
{
	return set_done(req, 1, "task.completed");
}

int tasks_reopen(struct hl_req *req)
{
	return set_done(req, 0, "task.reopened");
}

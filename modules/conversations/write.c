/* SPDX-License-Identifier: MIT */
/*
 * write.c: opening a conversation with a contact on a channel, changing
 * its star and assignee, and marking it read or unread. Bodies are
 * checked member by member (422 naming the member, unknown members
 * refused): the contact must be a live one of the location, the assignee
 * a user who can open it. Marking a read conversation read (or an unread
 * one unread) changes nothing and publishes nothing. A conversation given
 * to someone tells them in their bell (hl_notify; not when they took it
 * themselves).
 */
#include "conversations.h"

#include <stdio.h>
#include <string.h>

/* 0 when `user` (0: nobody) may be assigned conversations of the
 * location; HL_EINVAL after a 422, or HL_EDB. */
static int check_assignee(struct hl_req *req, int64_t user)
{
	int ok = !user ? 1 : hl_user_in_location(hl_read(req), hl_location_id(req), user);
	if (ok == 1)
		return 0;
	return ok < 0 ? ok : hl_reply_invalid(req, "assigned_to", "no user of this sub-account");
}

/* An "assigned only" user may not hand a conversation to someone else:
 * they could no longer see it. 0, or HL_EINVAL after a 422. */
static int keeps_it(struct hl_req *req, int64_t assigned)
{
	int64_t me = hl_assigned_user(req);
	if (!me || assigned == me)
		return 0;
	return hl_reply_invalid(req, "assigned_to", "you see only your own conversations,"
				" so you may assign them only to yourself");
}

/* Tell `user` (0: nobody) that the caller gave them conversation `id`
 * with `contact`. */
static int tell_assignee(struct hl_req *req, int64_t id, int64_t contact, int64_t user)
{
	if (!user)
		return 0;
	sqlite3_stmt *st = hl_scoped_write(req, "SELECT trim(first_name || ' ' || last_name)"
		" FROM contacts WHERE id = :id AND location_id = :location");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":id", contact);
	int rc = sqlite3_step(st);
	const char *name = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
	const char *text = hl_sprintf(req, "assigned you the conversation with %s",
				      name && *name ? name : "a contact");
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return HL_EDB;
	struct hl_notice n = { .user = user, .kind = "assigned", .text = text,
			       .path = hl_sprintf(req, "/conversations/%lld", (long long)id) };
	return hl_notify(req, &n);
}

int conv_find_or_open(struct hl_req *req, int64_t contact, const char *channel,
		      int64_t assigned, struct conversation *out)
{
	sqlite3_stmt *st = hl_scoped_write(req, "SELECT id FROM conversations"
		" WHERE contact_id = :contact AND channel = :channel AND location_id = :location"
		" ORDER BY id LIMIT 1");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":contact", contact);
	hl_bind_text(st, ":channel", channel);
	int rc = sqlite3_step(st), found = rc == SQLITE_ROW;
	out->id = found ? sqlite3_column_int64(st, 0) : 0;
	out->contact = contact;
	snprintf(out->channel, sizeof(out->channel), "%s", channel);
	sqlite3_reset(st);
	if (found || rc != SQLITE_DONE)
		return found ? 0 : HL_EDB;
	st = hl_scoped_write(req, "INSERT INTO conversations (location_id, contact_id, channel,"
		" assigned_to) VALUES (:location, :contact, :channel, nullif(:assigned, 0))");
	hl_bind_int(st, ":contact", contact);
	hl_bind_text(st, ":channel", channel);
	hl_bind_int(st, ":assigned", assigned);
	if ((out->id = hl_step_last_id(st)) < 0)
		return (int)out->id;
	rc = conv_publish(req, "conversation.opened", out->id, contact, out->id, 0, channel);
	return rc ? rc : 1;
}

/* POST /api/conversations {"contact_id", "channel", "assigned_to"}: 201
 * with the conversation opened, or 200 with the one the contact already
 * has on that channel. An "assigned only" user's is theirs. */
int conv_open(struct hl_req *req)
{
	static const char *const keys[] = { "contact_id", "channel", "assigned_to", NULL };
	int64_t contact = 0, assigned = 0;
	const char *channel = NULL;
	struct conversation cv;
	int given;
	if (hl_fields_only(req, 0, keys) ||
	    hl_field_int(req, 0, "contact_id", 1, INT64_MAX, &contact) < 0 ||
	    hl_field_text(req, 0, "channel", 16, &channel) < 0 ||
	    (given = hl_field_int(req, 0, "assigned_to", 1, INT64_MAX, &assigned)) < 0)
		return 0;
	if (given == HL_FIELD_ABSENT)
		assigned = hl_assigned_user(req);
	if (!contact)
		return hl_reply_invalid(req, "contact_id", "required");
	if (!conv_is_channel(channel))
		return hl_reply_invalid(req, "channel", "required, " CHANNEL_WORDS);
	/* An "assigned only" caller's own contact: the conversation shows its name. */
	int rc = conv_contact_visible(req, contact);
	if (rc <= 0)
		return rc ? rc : hl_reply_invalid(req, "contact_id", "no contact of this sub-account");
	if ((rc = check_assignee(req, assigned)))
		return rc == HL_EINVAL ? 0 : rc;
	if ((rc = keeps_it(req, assigned)))
		return 0;
	if (!hl_write_begin(req))
		return HL_EDB;
	rc = conv_find_or_open(req, contact, channel, assigned, &cv);
	int made = rc == 1;
	if (made)
		rc = tell_assignee(req, cv.id, contact, assigned);
	return rc < 0 ? rc : conv_reply_record(req, made ? 201 : 200, cv.id);
}

enum { STARRED = 1, ASSIGNED = 2 };

/* PATCH /api/conversations/:id {"starred", "assigned_to"}: only the
 * members sent change; assigned_to null unassigns. */
int conv_change(struct hl_req *req)
{
	static const char *const keys[] = { "starred", "assigned_to", NULL };
	int64_t id, assigned = 0;
	int starred = 0, given = 0, rc;
	struct conversation cv;
	if (hl_param_id(req, "id", &id) || hl_fields_only(req, 0, keys) ||
	    (rc = hl_field_bool(req, 0, "starred", &starred)) < 0)
		return 0;
	given |= rc == HL_FIELD_SET ? STARRED : 0;
	if (rc == HL_FIELD_NULL)
		return hl_reply_invalid(req, "starred", "true or false");
	if ((rc = hl_field_int(req, 0, "assigned_to", 1, INT64_MAX, &assigned)) < 0)
		return 0;
	given |= rc > HL_FIELD_ABSENT ? ASSIGNED : 0;
	if ((given & ASSIGNED) && (rc = check_assignee(req, assigned)))
		return rc == HL_EINVAL ? 0 : rc;
	if ((given & ASSIGNED) && keeps_it(req, assigned))
		return 0;
	if (!hl_write_begin(req))
		return HL_EDB;
	if ((rc = conv_find(req, id, &cv)) <= 0)
		return rc ? rc : hl_reply_error(req, 404, "not_found", "no such conversation");
	int64_t before = hl_scoped_write_int(req, "SELECT assigned_to FROM conversations"
					     " WHERE id = :id AND location_id = :location", id);
	if (before < 0)
		return (int)before;
	sqlite3_stmt *st = hl_scoped_write(req, "UPDATE conversations SET"
		" starred = CASE WHEN :given & 1 THEN :starred ELSE starred END,"
		" assigned_to = CASE WHEN :given & 2 THEN nullif(:assigned, 0) ELSE assigned_to END"
		" WHERE id = :id AND location_id = :location");
	hl_bind_int(st, ":given", given);
	hl_bind_int(st, ":starred", starred);
	hl_bind_int(st, ":assigned", assigned);
	hl_bind_int(st, ":id", id);
	if (hl_step_changes(st) < 0)
		return HL_EDB;
	rc = conv_publish(req, "conversation.updated", id, cv.contact, id, 0, NULL);
	if (!rc && given & ASSIGNED && assigned != before)
		rc = tell_assignee(req, id, cv.contact, assigned);
	return rc ? rc : conv_reply_record(req, 200, id);
}

/* The path's conversation read (`unread` 0) or unread again: `sql`
 * changes it when it is not so already, and only then is `event`
 * published. 200 with the conversation. */
static int mark(struct hl_req *req, const char *sql, const char *event)
{
	int64_t id;
	struct conversation cv;
	if (hl_param_id(req, "id", &id))
		return 0;
	if (!hl_write_begin(req))
		return HL_EDB;
	int rc = conv_find(req, id, &cv);
	if (rc <= 0)
		return rc ? rc : hl_reply_error(req, 404, "not_found", "no such conversation");
	sqlite3_stmt *st = hl_scoped_write(req, sql);
	hl_bind_int(st, ":id", id);
	int64_t changed = hl_step_changes(st);
	if (changed < 0)
		return (int)changed;
	if (changed && (rc = conv_publish(req, event, id, cv.contact, id, 0, NULL)))
		return rc;
	return conv_reply_record(req, 200, id);
}

/* POST /api/conversations/:id/read: no unread messages left. */
int conv_read(struct hl_req *req)
{
	return mark(req, "UPDATE conversations SET unread_count = 0"
		    " WHERE id = :id AND location_id = :location AND unread_count > 0",
		    "conversation.read");
}

/* POST /api/conversations/:id/unread: marked unread, as one message to
 * read, for whoever opens it next; one unread already stays as it is. */
int conv_unread(struct hl_req *req)
{
	return mark(req, "UPDATE conversations SET unread_count = 1"
		    " WHERE id = :id AND location_id = :location AND unread_count = 0",
		    "conversation.unread");
}

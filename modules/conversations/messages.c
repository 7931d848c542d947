/* SPDX-License-Identifier: MIT */
/*
 * messages.c: a conversation's thread, newest first and paged backwards
 * (the cursor is the id of the oldest message of the page), and the
 * messages users send. A message sent is stored as queued and put in the
 * outbox (outbox.c), which hands it to its channel's provider. The
 * thread walks messages_conversation (conversation_id, id) backwards.
 */
#include "conversations.h"

#include <string.h>

int conv_messages(struct hl_req *req)
{
	int64_t id, before, limit;
	struct conversation cv;
	if (hl_param_id(req, "id", &id) ||
	    hl_query_int(req, "cursor", INT64_MAX, 1, INT64_MAX, &before) ||
	    hl_query_int(req, "limit", 50, 1, 1000, &limit))
		return 0;
	int rc = conv_find(req, id, &cv);
	if (rc <= 0)
		return rc ? rc : hl_reply_error(req, 404, "not_found", "no such conversation");
	sqlite3_stmt *st = hl_scoped_read(req, "SELECT " MESSAGE_COLUMNS " FROM messages m"
		" WHERE m.conversation_id = :id AND m.location_id = :location AND m.id < :before"
		" ORDER BY m.id DESC LIMIT :limit");
	hl_bind_int(st, ":id", id);
	hl_bind_int(st, ":before", before);
	hl_bind_int(st, ":limit", limit + 1);
	return hl_reply_page(req, st, limit, 0);
}

int conv_reply_message(struct hl_req *req, int status, int64_t id)
{
	return hl_reply_record(req, status, id, "message", "SELECT " MESSAGE_COLUMNS
			       " FROM messages m WHERE m.id = :id AND m.location_id = :location");
}

/* Store the message; *id and *at (its time, in the arena) from RETURNING. */
static int insert_message(struct hl_req *req, const struct conversation *cv, int inbound,
			  const char *channel, const char *body, int64_t *id, const char **at)
{
	sqlite3_stmt *st = hl_scoped_write(req, "INSERT INTO messages (location_id,"
		" conversation_id, direction, channel, body, status) VALUES (:location, :id,"
		" iif(:inbound, 'inbound', 'outbound'), :channel, :body, iif(:inbound, 'received', 'queued'))"
		" RETURNING id, created_at");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":id", cv->id);
	hl_bind_int(st, ":inbound", inbound);
	hl_bind_text(st, ":channel", channel);
	hl_bind_text(st, ":body", body);
	if (sqlite3_step(st) != SQLITE_ROW)
		return HL_EDB;
	*id = sqlite3_column_int64(st, 0);
	*at = hl_strndup(req, (const char *)sqlite3_column_text(st, 1),
			 (size_t)sqlite3_column_bytes(st, 1));
	if (hl_step_changes(st) < 0)
		return HL_EDB;
	return inbound ? 0 : conv_queue(req, *id);
}

int conv_add_message(struct hl_req *req, const struct conversation *cv, int inbound,
		     const char *channel, const char *body, const char *preview, int64_t *id)
{
	const char *at;
	int rc = insert_message(req, cv, inbound, channel, body, id, &at);
	if (rc)
		return rc;
	sqlite3_stmt *st = hl_scoped_write(req, "UPDATE conversations SET last_message_at = :at,"
		" last_message_preview = substr(:preview, 1, 200),"
		" unread_count = unread_count + :inbound WHERE id = :id AND location_id = :location");
	hl_bind_text(st, ":at", at);
	hl_bind_text(st, ":preview", preview ? preview : body);
	hl_bind_int(st, ":inbound", inbound);
	hl_bind_int(st, ":id", cv->id);
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

/* The body and channel of a message from the body of the request: 0, or
 * HL_EINVAL after a 422. */
int conv_read_message(struct hl_req *req, const char **body, const char **channel)
{
	*channel = NULL;
	if (hl_field_text(req, 0, "body", BODY_MAX, body) < 0 ||
	    hl_field_text(req, 0, "channel", 16, channel) < 0)
		return HL_EINVAL;
	if (!*body || !**body)
		return hl_reply_invalid(req, "body", "required, at most 10000 characters");
	if (*channel && !conv_is_channel(*channel))
		return hl_reply_invalid(req, "channel", CHANNEL_WORDS);
	return 0;
}

/* The subject of an e-mail without one given: "Re: " and the thread's
 * last, or NULL for a thread without one. */
static const char *reply_subject(struct hl_req *req, int64_t conversation)
{
	sqlite3_stmt *st = hl_scoped_read(req, "SELECT iif(subject LIKE 're:%', subject,"
		" 'Re: ' || subject) FROM messages WHERE conversation_id = :id"
		" AND location_id = :location AND channel = 'email' AND subject IS NOT NULL"
		" ORDER BY id DESC LIMIT 1");
	hl_bind_int(st, ":id", conversation);
	const char *subject = st && sqlite3_step(st) == SQLITE_ROW
		? (const char *)sqlite3_column_text(st, 0) : NULL;
	subject = subject ? hl_strndup(req, subject, strlen(subject)) : NULL;
	if (st)
		sqlite3_reset(st);
	return subject;
}

/* The message's subject: an e-mail's given, or its thread's (none when
 * the thread has none, as mail programs allow); none for another
 * channel. 0, or HL_EINVAL after a 422. */
static int read_subject(struct hl_req *req, const struct conversation *cv, const char *channel,
			const char **subject)
{
	if (hl_field_text(req, 0, "subject", 300, subject) < 0)
		return HL_EINVAL;
	if (*subject && **subject && strcmp(channel, "email"))
		return hl_reply_invalid(req, "subject", "only an e-mail has a subject");
	if (!strcmp(channel, "email") && (!*subject || !**subject))
		*subject = reply_subject(req, cv->id);
	else if (*subject && !**subject)
		*subject = NULL;
	return 0;
}

#define ATTACHMENTS_MAX 10

/* "attachments": the ids of files the channel's provider keeps (the
 * email module's uploads), an e-mail's only, as a JSON array's text in
 * *out (NULL for none). 0, or HL_EINVAL after a 422. */
static int read_attachments(struct hl_req *req, const char *channel, const char **out)
{
	*out = NULL;
	int arr = hl_body_find(req, 0, "attachments");
	if (arr < 0 || hl_body_type(req, arr) == HL_JSON_NULL)
		return 0;
	int n = hl_body_type(req, arr) == HL_JSON_ARRAY ? hl_body_count(req, arr) : -1;
	if (n < 0 || n > ATTACHMENTS_MAX)
		return hl_reply_invalid(req, "attachments", "an array of at most %d file ids",
					ATTACHMENTS_MAX);
	if (n && strcmp(channel, "email"))
		return hl_reply_invalid(req, "attachments", "only an e-mail takes files");
	const char *text = "[";
	for (int i = 0; i < n; i++) {
		int64_t id;
		if (hl_body_int(req, hl_body_index(req, arr, i), &id) || id <= 0)
			return hl_reply_invalid(req, "attachments", "an array of at most %d file ids",
						ATTACHMENTS_MAX);
		text = hl_sprintf(req, "%s%s%lld", text, i ? "," : "", (long long)id);
	}
	*out = n ? hl_sprintf(req, "%s]", text) : NULL;
	return 0;
}

/* POST /api/conversations/:id/messages {"body", "channel", "subject",
 * "marketing", "attachments"}: 201 with the message, queued for a
 * provider; its merge fields filled (merge.c); a marketing text waits for
 * the end of the sub-account's quiet hours (quiet.c). */
int conv_send(struct hl_req *req)
{
	static const char *const keys[] = { "body", "channel", "subject", "marketing", "attachments",
					    NULL };
	int64_t id, message;
	const char *body, *channel, *subject = NULL, *files;
	int marketing = 0;
	struct conversation cv;
	if (hl_param_id(req, "id", &id) || hl_fields_only(req, 0, keys) ||
	    conv_read_message(req, &body, &channel) ||
	    hl_field_bool(req, 0, "marketing", &marketing) < 0)
		return 0;
	if (!hl_write_begin(req))
		return HL_EDB;
	int rc = conv_find(req, id, &cv);
	if (rc <= 0)
		return rc ? rc : hl_reply_error(req, 404, "not_found", "no such conversation");
	if (!channel)
		channel = hl_strndup(req, cv.channel, strlen(cv.channel));
	if ((rc = read_subject(req, &cv, channel, &subject)) ||
	    (rc = read_attachments(req, channel, &files)) ||
	    (rc = conv_merge(req, cv.contact, "body", body, &body)) ||
	    (rc = conv_merge(req, cv.contact, "subject", subject, &subject)))
		return rc == HL_EINVAL ? 0 : rc;
	const char *why;
	if ((rc = conv_opted_out(req, cv.contact, channel, &why)))
		return rc < 0 ? rc : hl_reply_invalid(req, "channel", "%s", why);
	struct conv_rendering seen;
	if ((rc = conv_render(req, channel, body, &seen)) ||
	    (rc = conv_add_message(req, &cv, 0, channel, body, seen.words, &message)))
		return rc;
	if (marketing || subject || files || seen.html) {
		sqlite3_stmt *st = hl_scoped_write(req, "UPDATE messages SET marketing = :marketing,"
			" subject = :subject, attachments = :files, html = :html"
			" WHERE id = :id AND location_id = :location");
		hl_bind_int(st, ":marketing", marketing);
		hl_bind_text(st, ":subject", subject);
		hl_bind_text(st, ":files", files);
		hl_bind_text(st, ":html", seen.html);
		hl_bind_int(st, ":id", message);
		if (hl_step_changes(st) < 0)
			return HL_EDB;
	}
	rc = conv_publish(req, "message.sent", message, cv.contact, cv.id, message, channel);
	return rc ? rc : conv_reply_message(req, 201, message);
}

/* SPDX-License-Identifier: MIT */
/*
 * received.c: this module is the server's inbox (struct hl_inbox): what
 * a provider's hook heard comes here, in that hook's request, as a
 * request of the sub-account the provider named.
 *
 * A message received goes into the conversation of the message it
 * replies to (the provider's references of those it answers), else into
 * the sender's conversation on its channel, opened when there is none; a
 * sender no contact has (by e-mail, or by phone for a text) becomes a
 * contact, through the contacts module's service contacts.find_or_add.
 * STOP and START, as the provider reads
 * them, opt the contact out of the channel and in again. A report on a
 * message sent earlier (delivered, bounced) moves its status, the message
 * found by the provider's id of it. A message received in a conversation
 * given to someone tells them in their bell (conv_tell_reply).
 */
#include "conversations.h"

#include <string.h>

/* The contact who sent `m`: its id in *out, found or added. */
static int sender_of(struct hl_req *req, const struct hl_incoming *m, int64_t *out)
{
	int email = !strcmp(m->channel, "email");
	sqlite3_stmt *st = hl_stmt(hl_write_begin(req), "SELECT json_object(:key, :from,"
				   " 'source', :channel)");
	if (!st)
		return HL_EDB;
	hl_bind_text(st, ":key", email ? "email" : "phone");
	hl_bind_text(st, ":from", m->from);
	hl_bind_text(st, ":channel", m->channel);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_reset(st);
		return HL_EDB;
	}
	const char *in = hl_strndup(req, (const char *)sqlite3_column_text(st, 0),
				    (size_t)sqlite3_column_bytes(st, 0)), *found;
	sqlite3_reset(st);
	int rc = hl_call(req, "contacts.find_or_add", in, &found);
	if (rc)
		return rc;
	st = hl_stmt(hl_write_begin(req), "SELECT json_extract(:out, '$.id')");
	hl_bind_text(st, ":out", found);
	return hl_step_int(st, out) == 1 && *out > 0 ? 0 : HL_EDB;
}

/* The conversation of the first message `m` replies to that is one of
 * ours, in *cv: 1, 0 when none is, or HL_EDB. */
static int thread_of(struct hl_req *req, const struct hl_incoming *m, struct conversation *cv)
{
	sqlite3_stmt *st = hl_scoped_write(req, "SELECT conversation_id FROM messages"
		" WHERE channel = :channel AND reference = :reference AND location_id = :location"
		" ORDER BY id LIMIT 1");
	hl_bind_text(st, ":channel", m->channel);
	for (size_t i = 0; i < m->nanswers; i++) {
		hl_bind_text(st, ":reference", m->answers[i]);
		int64_t id = 0;
		int rc = hl_step_int(st, &id);
		if (rc < 0)
			return rc;
		if (rc)
			return conv_find(req, id, cv);
	}
	return 0;
}

/* The files that came with `m` as the JSON array messages.attachments
 * keeps, or NULL for none. */
static const char *files_of(struct hl_req *req, const struct hl_incoming *m)
{
	const char *text = NULL;
	for (size_t i = 0; i < m->nfiles; i++)
		text = hl_sprintf(req, "%s%s%lld", i ? text : "[", i ? "," : "", (long long)m->files[i]);
	return text ? hl_sprintf(req, "%s]", text) : NULL;
}

int conv_tell_reply(struct hl_req *req, int64_t conversation, const char *body)
{
	sqlite3_stmt *st = hl_scoped_write(req, "SELECT cv.assigned_to,"
		" trim(c.first_name || ' ' || c.last_name), substr(:body, 1, 120)"
		" || iif(length(:body) > 120, '…', '') FROM conversations cv"
		" JOIN contacts c ON c.id = cv.contact_id WHERE cv.id = :id"
		" AND cv.location_id = :location AND cv.assigned_to IS NOT NULL");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":id", conversation);
	hl_bind_text(st, ":body", body);
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(st);
		return rc == SQLITE_DONE ? 0 : HL_EDB;
	}
	const char *name = (const char *)sqlite3_column_text(st, 1);
	struct hl_notice n = {
		.user = sqlite3_column_int64(st, 0), .kind = "reply",
		.text = hl_sprintf(req, "%s replied: “%s”", name && *name ? name : "A contact",
				   (const char *)sqlite3_column_text(st, 2)),
		.path = hl_sprintf(req, "/conversations/%lld", (long long)conversation),
		.flags = HL_NOTICE_FROM_OUTSIDE,
	};
	sqlite3_reset(st);
	return hl_notify(req, &n);
}

int conv_receive(struct hl_req *req, const struct hl_incoming *m)
{
	struct conversation cv;
	int64_t contact, message;
	if (!conv_is_channel(m->channel) || !m->from || !*m->from)
		return HL_EINVAL;
	/* a reply joins the thread it answers, even from another address
	 * (a colleague's, the contact's other one) */
	int rc = thread_of(req, m, &cv);
	if (rc > 0)
		contact = cv.contact;
	else if (!rc && !(rc = sender_of(req, m, &contact)))
		rc = conv_find_or_open(req, contact, m->channel, 0, &cv);
	if (rc < 0)
		return rc;
	const char *body = m->body && *m->body ? m->body : "(no text)";
	if ((rc = conv_add_message(req, &cv, 1, m->channel, body, NULL, &message)))
		return rc;
	sqlite3_stmt *st = hl_scoped_write(req, "UPDATE messages SET subject = :subject,"
		" reference = :reference, attachments = :files WHERE id = :id"
		" AND location_id = :location");
	hl_bind_text(st, ":subject", m->subject);
	hl_bind_text(st, ":reference", m->reference);
	hl_bind_text(st, ":files", files_of(req, m));
	hl_bind_int(st, ":id", message);
	if (hl_step_changes(st) < 0)
		return HL_EDB;
	if (m->consent && (rc = conv_set_opt_out(req, contact, m->channel,
						  m->consent == HL_CONSENT_OPT_OUT, "reply")))
		return rc;
	if ((rc = conv_tell_reply(req, cv.id, body)))
		return rc;
	return conv_publish(req, "message.received", message, contact, cv.id, message, m->channel);
}

/* A report no message claims yet: its outcome may not be recorded (the
 * provider answered and reported before the scheduler got to it). The
 * outbox applies it when it is (outbox_settle). */
static int keep_early(struct hl_req *req, const struct hl_report *r, const char *status)
{
	sqlite3_stmt *st = hl_scoped_write(req, "INSERT INTO message_early_reports (reference,"
		" location_id, status, reason, at) SELECT :reference, :location, :status, :reason,"
		" CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) WHERE NOT EXISTS (SELECT 1"
		" FROM messages WHERE channel = :channel AND reference = :reference"
		" AND location_id = :location) ON CONFLICT DO UPDATE SET status = excluded.status,"
		" reason = excluded.reason");
	hl_bind_text(st, ":reference", r->reference);
	hl_bind_text(st, ":channel", r->channel);
	hl_bind_text(st, ":status", status);
	hl_bind_text(st, ":reason", r->kind == HL_DELIVERED ? NULL : r->reason);
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

int conv_report(struct hl_req *req, const struct hl_report *r)
{
	static const char *const words[] = { NULL, "delivered", "failed", "bounced" };
	if (!r->reference || r->kind < HL_DELIVERED || r->kind > HL_BOUNCED)
		return HL_EINVAL;
	/* A late report never undoes a later state: delivered only follows
	 * sending or sent, and a failure never follows delivered. */
	sqlite3_stmt *st = hl_scoped_write(req, "SELECT id, conversation_id FROM messages"
		" WHERE channel = :channel AND reference = :reference AND location_id = :location"
		" AND direction = 'outbound' AND status IN ('sending', 'sent', 'unknown')");
	if (!st)
		return HL_EDB;
	hl_bind_text(st, ":channel", r->channel);
	hl_bind_text(st, ":reference", r->reference);
	int rc = sqlite3_step(st);
	int64_t id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	int64_t conversation = rc == SQLITE_ROW ? sqlite3_column_int64(st, 1) : 0;
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return keep_early(req, r, words[r->kind]);
	if (rc != SQLITE_ROW)
		return HL_EDB;
	st = hl_scoped_write(req, "UPDATE messages SET status = :status, status_reason = :reason"
			     " WHERE id = :id AND location_id = :location");
	hl_bind_text(st, ":status", words[r->kind]);
	hl_bind_text(st, ":reason", r->kind == HL_DELIVERED ? NULL : r->reason);
	hl_bind_int(st, ":id", id);
	if (hl_step_changes(st) < 0)
		return HL_EDB;
	const char *data = hl_sprintf(req, "{\"conversation_id\":%lld,\"message_id\":%lld,"
				      "\"status\":\"%s\"}", (long long)conversation, (long long)id,
				      words[r->kind]);
	int64_t assigned = hl_scoped_write_int(req, "SELECT assigned_to FROM conversations"
					       " WHERE id = :id AND location_id = :location",
					       conversation);
	return assigned < 0 ? (int)assigned
			    : hl_publish_assigned(req, "message.status", id, assigned, data);
}

/* SPDX-License-Identifier: MIT */
/*
 * consent.c: a contact's opt-outs, per channel (migration 010): set by
 * their own reply (STOP, through the provider's hook, received.c) or by
 * a user, and taken back by START or a user. Sending refuses a message
 * to an opted-out contact with the reason (messages.c, 422; outbox.c,
 * failed).
 *
 *   GET    /api/opt-outs?contact=ID    the contact's opt-outs
 *   POST   /api/opt-outs {"contact_id", "channel"}    a user records one (204)
 *   DELETE /api/opt-outs/:contact/:channel            and takes it back
 */
#include "conversations.h"

#include <stdio.h>
#include <string.h>

/* How an opt-out came, as the sentence that names it ends. */
static const char *how_words(const char *source, const char *channel)
{
	if (!strcmp(source, "link"))
		return ", by the unsubscribe link";
	if (!strcmp(source, "reply"))
		return strcmp(channel, "sms") ? ", replying to say so" : ", replying STOP";
	return "";
}

int conv_opted_out(struct hl_req *req, int64_t contact, const char *channel, const char **why)
{
	sqlite3_stmt *st = hl_scoped_read(req, "SELECT substr(created_at, 1, 10), source"
		" FROM message_opt_outs WHERE contact_id = :contact AND channel = :channel"
		" AND location_id = :location");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":contact", contact);
	hl_bind_text(st, ":channel", channel);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*why = hl_sprintf(req, "the contact opted out of %s on %s%s", conv_channel_label(channel),
				  (const char *)sqlite3_column_text(st, 0),
				  how_words((const char *)sqlite3_column_text(st, 1), channel));
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : HL_EDB;
}

int conv_set_opt_out(struct hl_req *req, int64_t contact, const char *channel, int out,
		     const char *source)
{
	sqlite3_stmt *st = out
		? hl_scoped_write(req, "INSERT INTO message_opt_outs (contact_id, channel, location_id,"
				  " source) VALUES (:contact, :channel, :location, :source)"
				  " ON CONFLICT DO NOTHING")
		: hl_scoped_write(req, "DELETE FROM message_opt_outs WHERE contact_id = :contact"
				  " AND channel = :channel AND location_id = :location");
	hl_bind_int(st, ":contact", contact);
	hl_bind_text(st, ":channel", channel);
	hl_bind_text(st, ":source", source);
	int64_t changed = hl_step_changes(st);
	if (changed <= 0)
		return changed < 0 ? HL_EDB : 0;
	char data[96];
	snprintf(data, sizeof(data), "{\"contact_id\":%lld,\"channel\":\"%s\"}", (long long)contact,
		 channel); /* a channel is one of conv_channels' words */
	return hl_publish_assigned(req, out ? "consent.opted_out" : "consent.opted_in", contact,
				   HL_EVERYONE, data);
}

int conv_opt_outs_list(struct hl_req *req)
{
	int64_t contact;
	if (hl_query_int(req, "contact", 0, 1, INT64_MAX, &contact))
		return HL_EINVAL;
	if (!contact)
		return hl_reply_invalid(req, "contact", "required: the contact's id");
	int rc = conv_contact_visible(req, contact);
	if (rc <= 0)
		return rc ? rc : hl_reply_error(req, 404, "not_found", "no such contact");
	sqlite3_stmt *st = hl_scoped_read(req, "SELECT channel, source, created_at"
		" FROM message_opt_outs WHERE contact_id = :contact AND location_id = :location"
		" ORDER BY channel");
	hl_bind_int(st, ":contact", contact);
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	hl_json_key(j, "data");
	rc = hl_json_rows(j, st);
	hl_json_object_end(j);
	return rc;
}

/* POST /api/opt-outs {"contact_id", "channel"}: 201 with the list. */
int conv_opt_out(struct hl_req *req)
{
	static const char *const keys[] = { "contact_id", "channel", NULL };
	int64_t contact = 0;
	const char *channel = NULL;
	if (hl_fields_only(req, 0, keys) ||
	    hl_field_int(req, 0, "contact_id", 1, INT64_MAX, &contact) < 0 ||
	    hl_field_text(req, 0, "channel", 16, &channel) < 0)
		return HL_EINVAL;
	if (!channel || !conv_is_channel(channel))
		return hl_reply_invalid(req, "channel", "required: " CHANNEL_WORDS);
	int rc = contact ? conv_contact_visible(req, contact) : 0;
	if (rc <= 0)
		return rc < 0 ? rc : hl_reply_invalid(req, "contact_id", "no contact of this sub-account");
	if (!hl_write_begin(req) || conv_set_opt_out(req, contact, channel, 1, "person"))
		return HL_EDB;
	return hl_reply_empty(req);
}

/* DELETE /api/opt-outs/:contact/:channel: 204; messages may go again. */
int conv_opt_in(struct hl_req *req)
{
	int64_t contact;
	const char *channel = hl_param(req, "channel");
	if (hl_param_id(req, "contact", &contact))
		return HL_EINVAL;
	if (!conv_is_channel(channel))
		return hl_reply_error(req, 404, "not_found", "no such channel");
	int rc = conv_contact_visible(req, contact);
	if (rc <= 0)
		return rc < 0 ? rc : hl_reply_error(req, 404, "not_found", "no such contact");
	if (!hl_write_begin(req) || conv_set_opt_out(req, contact, channel, 0, NULL))
		return HL_EDB;
	return hl_reply_empty(req);
}

/* The service conversations.opt_out, for a provider's unsubscribe link:
 *   in:  {"email": "ann@example.com", "channel": "email"}
 *   out: {"contacts": N}, how many live contacts of the request's
 *        sub-account with that address are now opted out of the channel
 *        (each once; N is 0 for an address no contact has).
 * Recorded with source 'link'. */
int conv_opt_out_service(struct hl_req *req, const char *in, const char **out)
{
	sqlite3_stmt *st = hl_stmt(hl_write_begin(req), "SELECT json_extract(:in, '$.email'),"
				   " json_extract(:in, '$.channel')");
	hl_bind_text(st, ":in", in);
	if (!st || sqlite3_step(st) != SQLITE_ROW) {
		if (st)
			sqlite3_reset(st);
		return HL_EDB;
	}
	const char *email = (const char *)sqlite3_column_text(st, 0);
	const char *channel = (const char *)sqlite3_column_text(st, 1);
	email = email ? hl_strndup(req, email, strlen(email)) : NULL;
	channel = channel ? hl_strndup(req, channel, strlen(channel)) : NULL;
	sqlite3_reset(st);
	if (!email || !channel || !conv_is_channel(channel))
		return HL_EINVAL;
	st = hl_scoped_read(req, "SELECT id FROM contacts WHERE location_id = :location"
			    " AND email = :email COLLATE NOCASE AND deleted_at IS NULL ORDER BY id");
	hl_bind_text(st, ":email", email);
	if (!st)
		return HL_EDB;
	/* each contact with the address, however many (the opt-out writes
	 * go to other tables than the one read) */
	int n = 0, step, rc = 0;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW && ++n)
		rc = conv_set_opt_out(req, sqlite3_column_int64(st, 0), channel, 1, "link");
	sqlite3_reset(st);
	if (rc || (step != SQLITE_ROW && step != SQLITE_DONE))
		return rc ? rc : HL_EDB;
	*out = hl_sprintf(req, "{\"contacts\":%d}", n);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * conversations.c: the conversations module: a conversation per contact
 * and channel, and the messages of each thread. Its routes, migrations and
 * the helpers its parts share. Every query is scoped by the current
 * location (hl_location_id); "assigned only" users see and touch only the
 * conversations assigned to them. Every write publishes an event whose
 * data names the contact, which the contacts module counts as the
 * contact's activity. Messages written leave through the outbox
 * (outbox.c), handed to the provider module of their channel (SMS,
 * e-mail ...) through the core. Its browser pages are the inbox and a
 * thread (webui/inbox.js).
 */
#include "conversations.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

#include "migrations.h"

/* What a list or a record is built from: a write to any drops it. */
/* Each conversation's contact, by its id: contacts added keep the answer. */
#define INBOX_READS "conversations contacts:lookup message_opt_outs"

static const char *const requires[] = { "contacts", NULL };

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/conversations", .handler = conv_list,
	  .cache_ms = 60000, .reads = INBOX_READS },
	{ .method = "POST", .pattern = "/api/conversations", .handler = conv_open },
	{ .method = "POST", .pattern = "/api/conversations/inbound", .handler = conv_inbound },
	{ .method = "GET", .pattern = "/api/conversations/:id",
	  .record = "conversation", .record_sql = CONVERSATION_RECORD_SQL,
	  .cache_ms = 60000, .reads = INBOX_READS },
	{ .method = "PATCH", .pattern = "/api/conversations/:id", .handler = conv_change },
	{ .method = "POST", .pattern = "/api/conversations/:id/read", .handler = conv_read },
	{ .method = "POST", .pattern = "/api/conversations/:id/unread", .handler = conv_unread },
	{ .method = "GET", .pattern = "/api/conversations/:id/messages", .handler = conv_messages,
	  .cache_ms = 60000, .reads = "conversations messages" },
	{ .method = "POST", .pattern = "/api/conversations/:id/messages", .handler = conv_send },
	{ .method = "POST", .pattern = "/api/conversations/:id/messages/:message/retry",
	  .handler = conv_retry },
	{ .method = "GET", .pattern = "/api/saved-replies", .handler = replies_list,
	  .cache_ms = 60000, .reads = "saved_replies" },
	{ .method = "POST", .pattern = "/api/saved-replies", .handler = replies_create,
	  .access = HL_ACCESS_LOCATION_ADMIN },
	{ .method = "PATCH", .pattern = "/api/saved-replies/:id", .handler = replies_change,
	  .access = HL_ACCESS_LOCATION_ADMIN },
	{ .method = "DELETE", .pattern = "/api/saved-replies/:id", .handler = replies_delete,
	  .access = HL_ACCESS_LOCATION_ADMIN },
	{ .method = "GET", .pattern = "/api/channels", .handler = conv_channels_list },
	{ .method = "GET", .pattern = "/api/quiet-hours", .handler = conv_quiet_hours_get },
	{ .method = "PUT", .pattern = "/api/quiet-hours", .handler = conv_quiet_hours_put,
	  .access = HL_ACCESS_LOCATION_ADMIN },
	{ .method = "GET", .pattern = "/api/opt-outs", .handler = conv_opt_outs_list },
	{ .method = "POST", .pattern = "/api/opt-outs", .handler = conv_opt_out },
	{ .method = "DELETE", .pattern = "/api/opt-outs/:contact/:channel", .handler = conv_opt_in },
};

/* What providers hear comes here (received.c). */
static const struct hl_inbox inbox[] = {
	{ .receive = conv_receive, .report = conv_report },
};

/* The outbox: woken by each message written (and each outcome, which
 * frees room on its channel); the period finds retries come due. */
static const struct hl_job jobs[] = {
	{ .name = "outbox", .period_ms = 1000, .slice = outbox_slice, .wake_on = "message.*" },
};

static const struct hl_event_handler handlers[] = {
	{ .event = "channel.ready", .handle = outbox_channel_ready },
};

static int init(struct hl_mod *mod)
{
	long long first_s = 30;
	int rc = hl_setting_int(mod, "send_rate", 20, 1, 100000, &conv_send_rate);
	if (!rc)
		rc = hl_setting_int(mod, "retry_first_s", 30, 1, 3600, &first_s);
	conv_retry_first_ms = first_s * 1000;
	/* A run's mark: when it started, in microseconds, and its process,
	 * so that no two runs share one. */
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	conv_boot = ((int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000) ^ ((int64_t)getpid() << 44);
	return rc;
}

/* The browser pages (webui/inbox.js): the inbox, in the menu, opening
 * with its first page; a thread beside it. */
static const char *const inbox_uses[] = { "inbox.css", "inbox-thread.js", "segments.js",
					    "merge-fields.js", NULL };
/* Saved replies (webui/saved-replies.js), opened from the inbox. */
static const char *const replies_uses[] = { "inbox.css", "merge-fields.js", NULL };
/* The Channels page, for the sub-account's admins: each channel and the
 * module that delivers it, whose page (/channels/NAME) sets it up. */
static const char *const channels_uses[] = { "channels.css", NULL };

static const struct hl_page pages[] = {
	{ .path = "/conversations", .script = "inbox.js", .label = "Conversations", .order = 25,
	  .data = "/api/conversations", .uses = inbox_uses, .search = "search.js" },
	{ .path = "/conversations/:id", .script = "inbox.js", .order = 25, .uses = inbox_uses },
	{ .path = "/saved-replies", .script = "saved-replies.js", .order = 25,
	  .data = "/api/saved-replies", .uses = replies_uses },
	{ .path = "/channels", .script = "channels.js", .label = "Channels", .order = 90,
	  .access = HL_ACCESS_LOCATION_ADMIN, .data = "/api/channels", .uses = channels_uses },
};

/* What is kept by the sub-account's days, made again when its zone changes
 * (through the migration's moves view, which knows how a day is counted). */
static const struct hl_recount recounts[] = {
	{ "received_days", "DELETE FROM received_days WHERE location_id = :location" },
	{ "received_days", "INSERT INTO received_day_moves SELECT location_id, created_at, 1 FROM messages"
	  " WHERE location_id = :location AND direction = 'inbound'" },
};

static const struct hl_service services[] = {
	{ "conversations.opt_out", conv_opt_out_service },
};

/* The records people know, as the audit log names them: a conversation
 * and a message by the contact they are with. */
static const struct hl_record_kind records[] = {
	{ .table = "conversations", .noun = "conversation",
	  .name_sql = "SELECT 'with ' || COALESCE(NULLIF(trim(c.first_name || ' ' || c.last_name), ''),"
		      " c.email, c.phone) FROM conversations v JOIN contacts c ON c.id = v.contact_id"
		      " WHERE v.id = :id" },
	{ .table = "messages", .noun = "message",
	  .name_sql = "SELECT CASE m.direction WHEN 'inbound' THEN 'from ' ELSE 'to ' END"
		      " || COALESCE(NULLIF(trim(c.first_name || ' ' || c.last_name), ''), c.email, c.phone)"
		      " FROM messages m JOIN conversations v ON v.id = m.conversation_id"
		      " JOIN contacts c ON c.id = v.contact_id WHERE m.id = :id" },
};

/* How a message reads on its contact's timeline: its channel, its way and
 * the start of its text, linking to its conversation. */
#define MESSAGE_LINE(way) "SELECT CASE channel WHEN 'sms' THEN 'SMS' WHEN 'email' THEN 'E-mail'" \
	" WHEN 'whatsapp' THEN 'WhatsApp' WHEN 'webchat' THEN 'Web chat'" \
	" ELSE upper(substr(channel, 1, 1)) || substr(channel, 2) END || ' " way ": '" \
	" || substr(body, 1, 140), '/conversations/' || conversation_id FROM messages" \
	" WHERE id = :subject AND location_id = :location"

static const struct hl_event_line event_lines[] = {
	{ "message.sent", MESSAGE_LINE("sent") },
	{ "message.received", MESSAGE_LINE("received") },
};

HL_MODULE(.name = "conversations", .version = "0.3.0", .requires = requires, .init = init,
	  .summary = "conversations and their messages", .migrations = HL_TABLE(migrations),
	  .routes = HL_TABLE(routes), .jobs = HL_TABLE(jobs), .handlers = HL_TABLE(handlers),
	  .pages = HL_TABLE(pages), .inbox = HL_TABLE(inbox), .services = HL_TABLE(services),
	  .recounts = HL_TABLE(recounts), .records = HL_TABLE(records),
	  .event_lines = HL_TABLE(event_lines));

/* As the CHECK of migration 001 lists them, and how a person calls each. */
const struct conv_channel conv_channels[CONV_CHANNELS] = {
	{ "sms", "SMS" }, { "email", "e-mail" }, { "whatsapp", "WhatsApp" },
	{ "facebook", "Facebook" }, { "instagram", "Instagram" }, { "webchat", "web chat" },
	{ "phone", "phone" },
};

static const struct conv_channel *channel_of(const char *s)
{
	for (int i = 0; s && i < CONV_CHANNELS; i++)
		if (!strcmp(s, conv_channels[i].name))
			return &conv_channels[i];
	return NULL;
}

int conv_is_channel(const char *s)
{
	return channel_of(s) != NULL;
}

const char *conv_channel_label(const char *channel)
{
	const struct conv_channel *c = channel_of(channel);
	return c ? c->label : channel;
}

int conv_publish(struct hl_req *req, const char *event, int64_t subject, int64_t contact,
		 int64_t conversation, int64_t message, const char *channel)
{
	/* Ids are numbers and channels one of conv_is_channel's words, so
	 * nothing here needs escaping. */
	const char *data = hl_sprintf(req, "{\"contact_id\":%lld", (long long)contact);
	if (conversation)
		data = hl_sprintf(req, "%s,\"conversation_id\":%lld", data, (long long)conversation);
	if (message)
		data = hl_sprintf(req, "%s,\"message_id\":%lld", data, (long long)message);
	if (channel)
		data = hl_sprintf(req, "%s,\"channel\":\"%s\"", data, channel);
	/* On the live channel a user who sees only the conversations assigned
	 * to them hears only of those. */
	int64_t assigned = hl_scoped_write_int(req, "SELECT assigned_to FROM conversations"
					       " WHERE id = :id AND location_id = :location", conversation);
	return assigned < 0 ? (int)assigned
			    : hl_publish_assigned(req, event, subject, assigned, hl_sprintf(req, "%s}", data));
}

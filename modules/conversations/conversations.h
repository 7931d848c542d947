/* SPDX-License-Identifier: MIT */
/*
 * conversations.h: the conversations module's parts. conversations.c
 * registers them (one conversation's GET as data); list.c answers the
 * inbox, record.c what the writes answer and who may see one;
 * messages.c a thread and the messages users send; inbound.c the hook a
 * provider calls with a message received; write.c opens, changes and marks
 * conversations read.
 */
#ifndef CONVERSATIONS_H
#define CONVERSATIONS_H

#include <hyperlevel/hyperlevel.h>

/* The inbox order: the last message's time, or the opening's for a
 * conversation without messages (migration 002 indexes it). */
#define INBOX_KEY "coalesce(cv.last_message_at, cv.created_at)"

/* A conversation as the list and the record write it (cv: conversations,
 * c: its contact, joined by a LEFT JOIN to keep conversations outermost). */
#define CONVERSATION_COLUMNS "cv.id, cv.contact_id," \
	" trim(c.first_name || ' ' || c.last_name) AS contact_name, cv.channel," \
	" cv.assigned_to, iif(cv.starred, 'true', 'false') AS json_starred, cv.unread_count," \
	" cv.last_message_at, cv.last_message_preview, cv.created_at," \
	" iif(EXISTS (SELECT 1 FROM message_opt_outs o WHERE o.contact_id = cv.contact_id" \
	" AND o.channel = cv.channel), 'true', 'false') AS json_opted_out"
/* One conversation of the location with its contact's name, by :id (and
 * :me, for "assigned only" callers): GET /api/conversations/:id, and what
 * the writes answer. */
#define CONVERSATION_RECORD_SQL "SELECT " CONVERSATION_COLUMNS \
	" FROM conversations cv LEFT JOIN contacts c ON c.id = cv.contact_id" \
	" WHERE cv.id = :id AND cv.location_id = :location AND (:me = 0 OR cv.assigned_to = :me)"

/* A message as a thread and the writes answer it (m: messages). */
#define MESSAGE_COLUMNS "m.id, m.conversation_id, m.direction, m.channel, m.subject, m.body," \
	" m.status, m.status_reason, m.created_at, coalesce(m.attachments, '[]') AS json_attachments," \
	" m.html"

/* The longest message body, in characters (a preview keeps the first
 * 200 of the last message). */
#define BODY_MAX 10000

/* The channels the schema takes, and how a person calls each ("sms",
 * "SMS"). */
#define CONV_CHANNELS 7
struct conv_channel {
	const char *name, *label;
};
extern const struct conv_channel conv_channels[CONV_CHANNELS];
/* The channels, as a 422 names them. */
#define CHANNEL_WORDS "sms, email, whatsapp, facebook, instagram, webchat or phone"
/* Whether `s` is a channel the schema takes ("sms", "email" ...). */
int conv_is_channel(const char *s);
/* Whether `contact` is a live contact of the sub-account the caller may
 * see (an "assigned only" caller: one they own): 1, 0, HL_EDB. */
int conv_contact_visible(struct hl_req *req, int64_t contact);
/* How a person calls channel `channel`: "SMS", "e-mail" ... */
const char *conv_channel_label(const char *channel);
/* Publish `event` about `subject` with data naming the contact, and the
 * conversation, message and channel when given (0 / NULL: left out). */
int conv_publish(struct hl_req *req, const char *event, int64_t subject, int64_t contact,
		 int64_t conversation, int64_t message, const char *channel);

/* A conversation of the location the caller may see, read for a write:
 * its contact and channel. 1 when found, 0 when not, HL_EDB. */
struct conversation {
	int64_t id, contact;
	char channel[16];
};
int conv_find(struct hl_req *req, int64_t id, struct conversation *out);
/* The contact's conversation on `channel`, opened (assigned to
 * `assigned`, 0: nobody) and conversation.opened published when there is
 * none: 1 when opened, 0 when found, HL_EDB. Inside a write. */
int conv_find_or_open(struct hl_req *req, int64_t contact, const char *channel,
		      int64_t assigned, struct conversation *out);
/* `text` with its merge fields ("{{contact.first_name|there}}") filled
 * from contact `contact`, into *out (`text` itself when it has none): 0,
 * or HL_EINVAL after a 422 naming `member`, or HL_EDB, HL_ENOMEM
 * (merge.c). Contact 0 only checks that each field is one, and fills
 * none (a saved reply, written for whoever it will be sent to). */
int conv_merge(struct hl_req *req, int64_t contact, const char *member, const char *text,
	       const char **out);
/* Add a message to conversation `cv` and bring the conversation's last
 * message, preview (`preview`'s first 200 characters, or the body's when
 * NULL) and (for an inbound one) unread count up to date; *id is the new
 * message's. 0 or HL_EDB. */
int conv_add_message(struct hl_req *req, const struct conversation *cv, int inbound,
		     const char *channel, const char *body, const char *preview, int64_t *id);

/* An e-mail written in the app as its reader sees it (markdown.c): the
 * HTML of its Markdown and its words on one line, in the arena; both
 * NULL for another channel, whose body is read as written. 0 or
 * HL_ENOMEM. */
struct conv_rendering {
	const char *html;
	const char *words;
};
int conv_render(struct hl_req *req, const char *channel, const char *body,
		struct conv_rendering *out);
/* The members "body" (required) and "channel" (optional, NULL when
 * absent) of the request's body: 0, or HL_EINVAL after a 422. */
int conv_read_message(struct hl_req *req, const char **body, const char **channel);
/* Answer message `id` with `status`. */
int conv_reply_message(struct hl_req *req, int status, int64_t id);

int conv_list(struct hl_req *req);                 /* list.c */
/* Answer conversation `id` of the location with `status`; 404 if none
 * (or not the caller's, for "assigned only" callers). */
int conv_reply_record(struct hl_req *req, int status, int64_t id);
int conv_messages(struct hl_req *req);             /* messages.c */
int conv_send(struct hl_req *req);
int conv_inbound(struct hl_req *req);              /* inbound.c */
/* Whether contact `contact` asked for no messages on `channel`: 1 with
 * *why the sentence a person reads ("the contact opted out of SMS on
 * 2026-12-06, replying STOP"), 0, or HL_EDB. */
int conv_opted_out(struct hl_req *req, int64_t contact, const char *channel, const char **why);
/* Record contact `contact`'s opt-out of `channel` (`source`: "reply",
 * "person" or "link"), or take it back (`out` 0). 0 or HL_EDB. */
int conv_set_opt_out(struct hl_req *req, int64_t contact, const char *channel, int out,
		     const char *source);
int conv_opt_outs_list(struct hl_req *req);        /* consent.c */
int conv_opt_out_service(struct hl_req *req, const char *in, const char **out);
int conv_opt_out(struct hl_req *req);
int conv_opt_in(struct hl_req *req);
/* The inbox of the core (hl_receive, hl_report): received.c. */
/* Tell the assignee of `conversation` (none: nobody) that its contact
 * wrote `body`, in their bell. 0 or HL_EDB. */
int conv_tell_reply(struct hl_req *req, int64_t conversation, const char *body);
int conv_receive(struct hl_req *req, const struct hl_incoming *m);
int conv_report(struct hl_req *req, const struct hl_report *r);
/* When a marketing text of sub-account `location` may go, at `now_s`
 * (seconds since 1970): 0 at once, else the end of its quiet hours (in
 * seconds), whose time of day is *until_min (minutes after midnight);
 * HL_EDB. */
int64_t quiet_until(struct hl_job_run *run, int64_t location, int64_t now_s, int *until_min);
int conv_quiet_hours_get(struct hl_req *req);      /* quiet.c */
int conv_quiet_hours_put(struct hl_req *req);
int conv_channels_list(struct hl_req *req);        /* channels.c */
int conv_retry(struct hl_req *req);                /* outbox.c */
/* Put outbound message `message` in the outbox, due now. 0 or HL_EDB. */
int conv_queue(struct hl_req *req, int64_t message);
/* The outbox job, the outcome of a send, and a channel set up. */
int outbox_slice(struct hl_job_run *run);
int outbox_settle(struct hl_job_run *run, const struct hl_outcome *o);
int outbox_channel_ready(struct hl_job_run *run, const struct hl_event *ev);
/* Settings: messages a second per sub-account; the first back-off. */
extern long long conv_send_rate, conv_retry_first_ms;
/* This run's mark on the messages it hands over (outbox.c; set in init). */
extern int64_t conv_boot;
int conv_open(struct hl_req *req);                 /* write.c */
int conv_change(struct hl_req *req);
int conv_read(struct hl_req *req);
int conv_unread(struct hl_req *req);
int replies_list(struct hl_req *req);              /* replies.c */
int replies_create(struct hl_req *req);
int replies_change(struct hl_req *req);
int replies_delete(struct hl_req *req);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * send.c: a message sent through the relay: an SMTP submission (STARTTLS
 * or SMTPS, AUTH when smtp_user is set, certificates always verified),
 * from the sub-account's sender to the contact, written by mime.c. Its
 * Message-ID is the reference a reply's In-Reply-To names. The outcome
 * is the core's reading of the relay's reply: 250 sent, 4xx tried again,
 * 5xx failed, in the relay's words. prepare runs on the scheduler thread
 * (it reads the sender), conclude on the sending thread.
 *
 * What the conversations module may add in the message's data:
 *   {"to_name": "Ann Lee", "in_reply_to": "<...>", "references": "<...> <...>",
 *    "marketing": true, "attachments": [3, 4]}
 * A marketing message carries a signed unsubscribe link (unsubscribe.c)
 * in List-Unsubscribe, and at the end of its text.
 */
#include "email.h"

#include <stdlib.h>
#include <string.h>

#define SENDER_SQL \
	"SELECT s.from_name, s.from_address, s.reply_to," \
	" json_extract(:data, '$.to_name'), json_extract(:data, '$.in_reply_to')," \
	" json_extract(:data, '$.references'), json_extract(:data, '$.marketing')," \
	" (SELECT u.reason FROM email_undeliverable u WHERE u.location_id = s.location_id" \
	"  AND u.address = :to)," \
	" json_extract(:data, '$.attachments')" \
	" FROM email_senders s WHERE s.location_id = :location"

/* A header's value from the data: NULL when it holds a line break (it
 * is the owner's, but a header is one line). */
static const char *one_line(struct hl_send *s, sqlite3_stmt *st, int col)
{
	const char *v = (const char *)sqlite3_column_text(st, col);
	return v && !strpbrk(v, "\r\n") ? hl_send_sprintf(s, "%s", v) : NULL;
}

/* Reads the sender and the data into `m`, the files it names too: 0,
 * HL_ENOENT (no sender), HL_EINVAL (an address that bounced, a file no
 * longer kept), HL_EDB. */
static int read_sender(struct hl_job_run *run, struct hl_send *s, const struct hl_outgoing *o,
		       struct mail *m)
{
	sqlite3_stmt *st = hl_stmt_scoped(hl_job_db(run), o->location_id, SENDER_SQL);
	if (!st)
		return HL_EDB;
	hl_bind_text(st, ":data", o->data ? o->data : "{}");
	hl_bind_text(st, ":to", o->to);
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(st);
		if (rc != SQLITE_DONE)
			return HL_EDB;
		hl_send_refuse(s, "e-mail is not set up for this sub-account: its admin sets the"
			       " sender's address in Settings, Channels");
		return HL_ENOENT;
	}
	m->from_name = one_line(s, st, 0);
	m->from = hl_send_sprintf(s, "%s", (const char *)sqlite3_column_text(st, 1));
	m->reply_to = one_line(s, st, 2);
	m->to_name = one_line(s, st, 3);
	m->in_reply_to = one_line(s, st, 4);
	m->references = one_line(s, st, 5);
	m->unsubscribe = sqlite3_column_int(st, 6)
		? email_unsubscribe_link(run, s, o->location_id, o->to) : NULL;
	const char *bounced = (const char *)sqlite3_column_text(st, 7);
	const char *files = (const char *)sqlite3_column_text(st, 8);
	files = files ? hl_send_sprintf(s, "%s", files) : NULL;
	if (bounced)
		hl_send_refuse(s, "%s takes no mail: an earlier message bounced (%s)", o->to, bounced);
	sqlite3_reset(st);
	if (bounced)
		return HL_EINVAL;
	return files ? email_read_files(run, s, o->location_id, files, m) : 0;
}

int email_prepare(struct hl_job_run *run, struct hl_send *s, const struct hl_outgoing *o)
{
	if (!*email_relay.url) {
		hl_send_refuse(s, "no e-mail relay is set up on this server: its operator sets"
			       " smtp_url");
		return HL_ENOENT;
	}
	if (!o->to || !hl_is_email(o->to)) {
		hl_send_refuse(s, "%s is not an e-mail address", o->to ? o->to : "(none)");
		return HL_EINVAL;
	}
	struct mail m = { .to = o->to, .subject = o->subject, .markdown = o->body ? o->body : "",
			  .date = time(NULL) };
	int rc = read_sender(run, s, o, &m);
	if (rc)
		return rc;
	char id[MESSAGE_ID_MAX];
	if ((rc = email_message_id(run, o->location_id, m.from, id)))
		return rc;
	m.message_id = id;
	char *text;
	size_t len;
	if ((rc = mail_write(&m, &text, &len)))
		return rc;
	const char *to[] = { o->to, NULL };
	rc = hl_send_smtp(s, email_relay.url, m.from, to, text, len);
	free(text);
	if (rc)
		return rc;
	if (*email_relay.user)
		hl_send_auth(s, email_relay.user, email_relay.password);
	if (*email_relay.ca_file)
		hl_send_ca_file(s, email_relay.ca_file);
	hl_send_reference(s, id);
	return 0;
}

void email_conclude(struct hl_send *s)
{
	(void)s; /* the core's reading of SMTP replies is the one wanted */
}

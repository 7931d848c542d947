/* SPDX-License-Identifier: MIT */
/*
 * email.h: the email module's parts. email.c registers them and reads the
 * relay's settings; settings.c answers and changes a sub-account's sender
 * (its name, address and reply-to) and sends it a test; mime.c writes a
 * message as RFC 5322 and MIME say; send.c delivers the "email" channel
 * through the relay (prepare and conclude, called by the core's sender);
 * tests.c is the job that sends the test messages; inbound.c takes mail
 * that arrives, read by parse.c; unsubscribe.c signs and answers the
 * links of marketing mail.
 */
#ifndef EMAIL_H
#define EMAIL_H

#include <stdio.h>
#include <time.h>

#include <hyperlevel/hyperlevel.h>

/* The relay every sub-account's mail leaves through: smtp_url (smtp://
 * with STARTTLS, or smtps://), smtp_user, smtp_password, smtp_ca_file;
 * each "" when unset. */
struct relay {
	const char *url, *user, *password, *ca_file;
};
extern struct relay email_relay;
/* The largest attachment of mail received that is kept, in bytes
 * (attachment_max_mb). */
extern size_t email_attachment_max;
/* A new email_attachments id, in SQL: random, so that a user who sees only
 * their own conversations cannot name another's file in a message they
 * send; at most 2^52, which JavaScript reads exactly. */
#define EMAIL_NEW_FILE_ID "((random() & 4503599627370495) + 1)"


/* ---- a message (mime.c) ---------------------------------------------- */

/* A file sent with a message. */
struct mail_file {
	const char *name, *type;   /* "plan.pdf", "application/pdf" */
	const unsigned char *data;
	size_t len;
};

struct mail {
	const char *from_name;     /* NULL: the address alone */
	const char *from;          /* the sender's address */
	const char *reply_to;      /* NULL: none */
	const char *to_name, *to;  /* the recipient */
	const char *subject;
	const char *markdown;      /* the body as written: the plain part */
	const char *message_id;    /* "<...@domain>" */
	const char *in_reply_to;   /* "<...>" or NULL */
	const char *references;    /* "<...> <...>" or NULL */
	const char *unsubscribe;   /* a marketing message's one-click link, or NULL */
	time_t date;
	const struct mail_file *files;   /* attached, after the text */
	size_t nfiles;
};

/* `m` as a whole message, CRLF line ends, into `out` (malloc'd, *len
 * bytes): a multipart/alternative of the plain text and its HTML
 * (Markdown rendered by cmark), quoted-printable, inside a multipart/mixed
 * with the files when there are any (base64); headers with other
 * than printable ASCII encoded per RFC 2047, so no value can start a
 * header of its own. 0, HL_ENOMEM. */
int mail_write(const struct mail *m, char **out, size_t *len);
#define MESSAGE_ID_MAX 300
/* Whether `name` (a sender's) may be written in a header: no control
 * characters, at most 200 bytes. */
int mail_name_ok(const char *name);

/* ---- the parts ---------------------------------------------------------- */

int email_settings_get(struct hl_req *req);   /* settings.c */
int email_settings_put(struct hl_req *req);
int email_test_post(struct hl_req *req);
int email_test_get(struct hl_req *req);
int email_prepare(struct hl_job_run *run, struct hl_send *s, const struct hl_outgoing *m);
void email_conclude(struct hl_send *s);      /* send.c */
int email_tests_job(struct hl_job_run *run);  /* tests.c */
int email_inbound(struct hl_req *req);        /* inbound.c */
int email_inbound_key(struct hl_req *req);
int email_attachment_get(struct hl_req *req);
int email_file_upload(struct hl_req *req);    /* files.c */
int email_attachments_named(struct hl_req *req);
/* The files `ids` (a JSON array of their ids) names into m->files, in the
 * send's memory: 0, HL_EINVAL (one is gone: refused), HL_EDB. */
int email_read_files(struct hl_job_run *run, struct hl_send *s, int64_t location,
		     const char *ids, struct mail *m);
int email_unsubscribe_page(struct hl_req *req); /* unsubscribe.c */
/* A new Message-ID for mail of sub-account `location` from `address`,
 * signed by the server ("<random.mac@domain>"): 0, HL_EDB. */
int email_message_id(struct hl_job_run *run, int64_t location, const char *address,
		     char out[MESSAGE_ID_MAX]);
/* Whether `id` is one email_message_id made for `location`: 1, 0, HL_EDB. */
int email_message_id_ours(struct hl_req *req, int64_t location, const char *id);
int email_unsubscribe(struct hl_req *req);
/* A marketing message's signed unsubscribe link for `address`, in the
 * send's memory, or NULL without public_url. */
const char *email_unsubscribe_link(struct hl_job_run *run, struct hl_send *s, int64_t location,
				   const char *address);

#endif

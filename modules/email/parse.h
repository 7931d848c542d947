/* SPDX-License-Identifier: MIT */
/*
 * parse.h: reading a message as it arrived (raw MIME) into what the
 * server keeps of it (parse.c, over GMime): kept apart from the module so
 * that the fuzz target reads mail exactly as the server does.
 */
#ifndef EMAIL_PARSE_H
#define EMAIL_PARSE_H

#include <stddef.h>

struct attachment {
	char *name, *type;   /* "contract.pdf", "application/pdf" */
	unsigned char *data;
	size_t len;
	int too_big;         /* over the limit: named, not kept (data NULL) */
};

/* Strings are UTF-8 and NUL-terminated, each NULL when the message has
 * none; all owned by the struct (received_free). */
struct received {
	char *from, *from_name;     /* the sender's address and name */
	char *to;                   /* Delivered-To, else the first To */
	char *subject;
	char *message_id;           /* "<...>" */
	/* The Message-IDs ("<...>") of the messages it replies to,
	 * nearest first: In-Reply-To's, then References' backwards. */
	char **answers;
	size_t nanswers;
	char *text;                 /* the plain text, or the HTML read as text */
	char *warning;              /* why the text is the raw message: broken MIME */
	struct attachment *attachments;
	size_t nattachments;
	/* A delivery status notification (RFC 3464) saying a message did
	 * not reach its recipient: the original's Message-ID, the recipient,
	 * and the reporting server's words ("550 5.1.1 ... No such user"). */
	int report;   /* a delivery status notification at all: not mail from a person */
	int bounce;   /* one saying the delivery failed */
	char *bounced_id, *bounced_to, *bounce_reason;
	size_t more_attachments;   /* past ATTACHMENTS_MAX: counted, not kept */
};

/* The most attachments of one message that are kept. */
#define ATTACHMENTS_MAX 100
/* The most messages one is read as replying to. */
#define ANSWERS_MAX 20

/* Once per process, before the first parse. */
void received_init(void);
/* `raw` (`len` bytes) read into `out`, attachments over `attachment_max`
 * bytes named but not kept. Never fails on the message's content: what
 * cannot be read as MIME is kept as text with a warning. 0, or -1 when
 * memory ran out. */
int received_parse(const char *raw, size_t len, size_t attachment_max, struct received *out);
void received_free(struct received *r);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * framing.h: where a request's body ends, as its head tells it, and how
 * the HTTP layer ends a connection whose framing is in doubt (framing.c).
 */
#ifndef HL_FRAMING_H
#define HL_FRAMING_H

struct mg_request_info;

/* What refuses a head: its status (400, 411, 431), the error's code and
 * a sentence saying why. */
struct framing_refusal {
	int status;
	const char *code, *why;
};

/* Whether the head `ri` frames its body one way only (RFC 9112): 0 with
 * *length the body's length (-1: none), or HL_EINVAL with *no filled. */
int framing_check(const struct mg_request_info *ri, long long *length,
		  struct framing_refusal *no);

/* Make civetweb close the connection after this request's answer instead
 * of reading another request from it. */
void framing_close(struct mg_request_info *ri);

#endif

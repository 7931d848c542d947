/* SPDX-License-Identifier: MIT */
/*
 * framing.h: where a request's body ends, as its head tells it, and how
 * the HTTP layer ends a connection whose framing is in doubt (framing.c).
 */
#ifndef HL_FRAMING_H
#define HL_FRAMING_H

struct mg_request_info;

/* Whether the head `ri` frames its body one way only (RFC 9112): 0, or the
 * status that refuses it (400, 411, 431) with *why set to a sentence and
 * *code to the error's code. On success *length is the body's length, or
 * -1 when there is none. */
int framing_check(const struct mg_request_info *ri, long long *length, const char **code,
		  const char **why);

/* Make civetweb close the connection after this request's answer instead
 * of reading another request from it. */
void framing_close(struct mg_request_info *ri);

#endif

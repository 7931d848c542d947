/* SPDX-License-Identifier: MIT */
/*
 * answer.h: putting an answer on the wire (answer.c), for the HTTP layer
 * and streamed answers (stream.c).
 */
#ifndef HL_ANSWER_H
#define HL_ANSWER_H

#include <stddef.h>

struct hl_req;

/* 1xx, 204 and 304 answers have no body, so no Content-Type or -Length. */
int answer_has_body(int status);
/* The status line and headers of r's answer into dst; the length, as
 * snprintf counts it. */
int answer_head(const struct hl_req *r, char *dst, size_t cap);
/* The Content-Security-Policy every answer gets (its value), unless the
 * answer's `csp` replaces it. */
extern const char answer_csp[];

/* Write part of the answer: in pieces of SEND_PIECE, so that a client
 * that reads it slower than min_rate_kb once body_timeout_s have passed
 * since the request began loses it (civetweb's own write waits
 * header_timeout_s only for no progress at all). 0, or -1 once the answer
 * is cut short or the client has gone (r->cut: the connection closes). */
#define SEND_PIECE (64 * 1024)
int answer_write(struct hl_req *r, const void *data, size_t len);
/* Send r's whole answer (its head alone for a HEAD). */
void answer_send(struct hl_req *r, int head_only);
/* Compress a text answer of 1 KB or more for a client that accepts it;
 * the compressed copy takes the place of the body. */
void answer_compress(struct hl_req *r);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * body.h: reading a request's body (body.c).
 */
#ifndef HL_BODY_H
#define HL_BODY_H

struct hl_req;
struct mg_request_info;

/* Whether the request declares a body (a transfer coding was refused
 * before: framing.c). */
int body_left(const struct mg_request_info *ri);
/* Read the body for r's route and, for a JSON route, parse it; answers
 * 4xx or 503 itself. Returns 0 to go on, -1 after answering. */
int body_read(struct hl_req *r, const struct mg_request_info *ri);

#endif

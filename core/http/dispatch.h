/* SPDX-License-Identifier: MIT */
/*
 * dispatch.h: a routed request's way through the core (dispatch.c).
 */
#ifndef HL_DISPATCH_H
#define HL_DISPATCH_H

#include <stddef.h>

struct hl_req;
struct mg_request_info;

/* Answer 405 with the Allow header of the methods the path has. */
void dispatch_405(struct hl_req *r);
/* Run the route r->match found: access, body, the read cache, the
 * handler; an answer is always given (a 500 or 503 when the handler gave
 * none). */
void dispatch_route(struct hl_req *r, const struct mg_request_info *ri);
/* End r's transaction: commit (or, with an error answer, roll back) and
 * give back the connections, then send or drop its events. A failed
 * commit replaces the answer with a 500. */
void dispatch_finish(struct hl_req *r);
/* Answer GET `path`?`query` (query may be NULL) as the caller of `outer`
 * would be answered, with X-Location-Id `location` (NULL: none) and no
 * compression, in outer's nested request: for the app's document, which
 * carries the first answers a signed-in page needs (early.c). Returns the
 * status, or 0 when no GET route has the path; *body and *len are the
 * answer's, valid until the next call. A session renewal it makes is
 * passed on in outer's Set-Cookie. Counted in the metrics as any answer. */
int dispatch_inside(struct hl_req *outer, const char *path, const char *query,
		       const char *location, const char **body, size_t *len);

#endif

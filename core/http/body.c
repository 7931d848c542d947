/* SPDX-License-Identifier: MIT */
/*
 * body.c: reading a request's body for its route: within the route's
 * size, piece by piece under the guard's watch (a slow sender loses its
 * worker, not ours), a few large uploads at a time, parsed when JSON.
 */
#include "http/body.h"
#include "http/guard.h"
#include "request/request.h"
#include "server.h"

#include <civetweb.h>
#include <stdatomic.h>
#include <string.h>
#include <strings.h>

static int is_json_type(const char *ct)
{
	if (!ct)
		return 0;
	size_t n = strlen("application/json");
	return !strncasecmp(ct, "application/json", n) && (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ');
}

/* A client that sent "Expect: 100-continue" waits for our word before it
 * sends the body; civetweb gives it only for its own file uploads. */
static int answer_expect(struct hl_req *r)
{
	const char *expect = hl_header(r, "Expect");
	if (!expect)
		return 0;
	if (strcasecmp(expect, "100-continue")) {
		hl_reply_error(r, 417, "expectation_failed", "only Expect: 100-continue is understood");
		return -1;
	}
	static const char go_on[] = "HTTP/1.1 100 Continue\r\n\r\n";
	mg_write(r->conn, go_on, sizeof(go_on) - 1);
	return 0;
}

#define BODY_PIECE (64 * 1024) /* read at a time, so the guard sees progress */

/* Read the body into r->body, piece by piece, until its declared length.
 * 0, or -1 after answering. */
static int read_pieces(struct hl_req *r, size_t declared)
{
	int strays = 0;
	while (r->body.len < declared) {
		/* Memory grows with what arrives, not with what is declared. */
		size_t want = declared - r->body.len < BODY_PIECE ? declared - r->body.len : BODY_PIECE;
		if (buf_reserve(&r->body, want)) {
			hl_reply_error(r, 503, "unavailable", "out of memory");
			return -1;
		}
		int got = mg_read(r->conn, r->body.data + r->body.len, want);
		if (got > 0) {
			r->body.len += (size_t)got;
			guard_body_progress(r->guard, r->body.len);
		} else if (guard_was_cut(r->guard) || !got) { /* cut, or no progress for long */
			hl_reply_error(r, 408, "request_timeout", "the body came too slowly");
			return -1;
		} else if (strays++ == 2) { /* past a signal meant for the last state */
			hl_reply_error(r, 400, "incomplete_body",
				       "the body ended before its Content-Length");
			return -1;
		}
	}
	r->body.data[r->body.len] = '\0';
	r->body_read = 1;
	return 0;
}

/* Read the whole body under the guard's watch; answers 4xx itself. */
static int receive_body(struct hl_req *r, long long declared, size_t max)
{
	if ((size_t)declared > max) {
		hl_reply_error(r, 413, "too_large", "the body may hold at most %zu bytes", max);
		return -1;
	}
	if (answer_expect(r))
		return -1;
	/* No read connection waits on a slow client (see DESIGN: hostile clients). */
	request_return_reader(r);
	guard_enter(r->guard, GUARD_BODY);
	int rc = read_pieces(r, (size_t)declared);
	guard_enter(r->guard, GUARD_WORK);
	return rc;
}

int body_left(const struct mg_request_info *ri)
{
	return ri->content_length > 0; /* a transfer coding was refused (head_is_sound) */
}

/* A body over max_body_kb (a route that takes more, such as an import)
 * takes one of LARGE_BODIES places, so that uploads cannot hold more than
 * LARGE_BODIES times the largest in memory. 0, or -1 after a 503. */
#define LARGE_BODIES 4

static int take_large_place(struct hl_req *r, long long declared)
{
	struct server *srv = r->srv;
	if (declared <= CONFIG_LIVE(srv->cfg, max_body_kb) * 1024)
		return 0;
	if (atomic_fetch_add(&srv->large_bodies, 1) >= LARGE_BODIES) {
		atomic_fetch_sub(&srv->large_bodies, 1);
		request_add_header(r, "Retry-After: 10");
		hl_reply_error(r, 503, "busy", "%d large uploads are under way; try again soon",
			       LARGE_BODIES);
		return -1;
	}
	r->large_body = 1;
	return 0;
}

/* Read the body and, for a JSON route, parse it; answers 4xx itself.
 * Returns 0 to go on. */
int body_read(struct hl_req *r, const struct mg_request_info *ri)
{
	if (!body_left(ri))
		return 0;
	const struct hl_route *route = &r->match.entry->route;
	size_t max_kb = (size_t)CONFIG_LIVE(r->srv->cfg, max_body_kb);
	if (route->max_body_kb > max_kb)
		max_kb = route->max_body_kb;
	if ((size_t)ri->content_length <= max_kb * 1024 && take_large_place(r, ri->content_length))
		return -1;
	if (receive_body(r, ri->content_length, max_kb * 1024))
		return -1;
	if (route->flags & HL_ROUTE_RAW_BODY || !r->body.len)
		return 0;
	if (!is_json_type(hl_header(r, "Content-Type"))) {
		hl_reply_error(r, 415, "unsupported_media_type",
			       "send the body as application/json");
		return -1;
	}
	size_t err_at;
	int rc = json_parse(&r->json, &r->arena, r->body.data, r->body.len,
			    (int)(r->body.len / 2 + 2), &err_at);
	if (rc) {
		hl_reply_error(r, 400, "invalid_json", "the body is not valid JSON (at byte %zu)",
			       err_at);
		return -1;
	}
	r->has_json = 1;
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * dispatch.c: the path of a routed request through the core: access,
 * body, the read cache, the handler, and the end of its transaction (the
 * audit of a module's rows, the commit, the live streams a change of
 * rights concerns, the events). http.c calls it for each request; early.c
 * for the answers the app's document carries (dispatch_inside).
 */
#include "http/dispatch.h"
#include "auth/audit.h"
#include "auth/auth.h"
#include "db/db.h"
#include "http/body.h"
#include "http/cache.h"
#include "http/live.h"
#include "http/metrics.h"
#include "lib/log.h"
#include "platform/events.h"
#include "request/answer.h"
#include "request/request.h"
#include "server.h"

#include <civetweb.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void dispatch_405(struct hl_req *r)
{
	char allow[64] = "";
	for (int m = 0; m < M_COUNT; m++)
		if (r->match.allowed & (1u << m)) {
			if (*allow)
				strcat(allow, ", ");
			strcat(allow, method_name(m));
			if (m == M_GET)
				strcat(allow, ", HEAD");
		}
	hl_reply_error(r, 405, "method_not_allowed", "%s is not allowed here; use %s",
		       r->method, allow);
	request_add_header(r, "Allow: %s", allow);
}

void dispatch_route(struct hl_req *r, const struct mg_request_info *ri)
{
	const struct route_entry *e = r->match.entry;
	if (request_parse_query(r)) {
		hl_reply_error(r, 400, "bad_request", "the query string has a bad %%-escape, or text that is not UTF-8");
		return;
	}
	/* A request answered inside another has no body: the outer one's is
	 * not its to read. */
	if (auth_admit(r) || (!r->headers_set && body_read(r, ri)))
		return;
	if (cache_serve(r->srv->cache, r))
		return;
	int rc = e->route.handler ? e->route.handler(r)
		: hl_reply_path_record(r, e->route.record, e->route.record_sql);
	/* A check answered 4xx and the handler passed its HL_EINVAL on. */
	if (rc == HL_EINVAL && r->replied && r->status >= 400 && r->status < 500)
		rc = 0;
	if (r->stream) {
		/* The head is out: a failure can only cut the body short. */
		if (rc < 0)
			log_error("%s %s: module %s: %s; the stream was cut short", r->method,
				  e->route.pattern, e->owner, hl_strerror(rc));
		stream_end(r, rc >= 0);
		cache_finish(r->srv->cache, r); /* a stream is never kept */
		return;
	}
	if ((rc < 0 || !r->replied) && r->no_reader) {
		request_reply_unavailable(r);
	} else if ((rc < 0 || !r->replied) && (db_overran(r->reader) || db_overran(r->writer))) {
		log_warn("%s %s: stopped after query_timeout_ms", r->method, e->route.pattern);
		hl_reply_error(r, 503, "too_slow", "the request took too long and was stopped");
	} else if (rc < 0 || !r->replied) {
		if (rc < 0)
			log_error("%s %s: module %s: %s", r->method, e->route.pattern, e->owner,
				  hl_strerror(rc));
		else
			log_error("%s %s: module %s gave no answer", r->method, e->route.pattern,
				  e->owner);
		hl_reply_error(r, 500, "internal", "the server could not answer this request");
	}
	cache_finish(r->srv->cache, r);
}

/* Commit or roll back the write, give back the connections. HL_EDB when
 * the commit failed. */
static int finish(struct hl_req *r)
{
	int rc = 0;
	if (r->writer) {
		/* The core audits its own writes by name; a module's are audited
		 * row by row, in the same transaction. */
		int module = r->match.entry && r->match.entry->module;
		int keep = r->status > 0 && r->status < 400;
		if (keep && module && audit_module_writes(r))
			keep = 0, rc = HL_EDB;
		db_forget_changes(r->writer);
		r->statements += db_conn_reset(r->writer);
		if (keep)
			rc = db_commit(r->writer);
		else
			db_rollback(r->writer);
		/* Before the writer is free: no event a later write publishes may
		 * reach a live stream the change concerns before it is held. */
		if (keep && !rc && r->rights.changed)
			live_recheck(r->srv->live, r->rights.user, r->rights.location);
		db_write_unlock(r->srv->db, r->writer);
		r->writer = NULL;
	}
	if (r->reader)
		r->statements += db_conn_reset(r->reader);
	db_return(r->srv->db, r->reader);
	r->reader = NULL;
	return rc;
}

void dispatch_finish(struct hl_req *r)
{
	if (r->out.oom && !r->streamed) { /* before the commit: a 503 must not follow a saved write */
		request_reset_answer(r);
		hl_reply_error(r, 503, "unavailable", "out of memory");
	}
	int failed = finish(r);
	if (failed)
		hl_reply_error(r, 500, "internal", "the change could not be saved");
	/* Events follow the write: sent once it committed (or, without one,
	 * after a success answer), before the answer leaves, so a client's
	 * next request comes after them; dropped with an error answer. */
	events_request_end(r->srv->events, !failed && r->status > 0 && r->status < 400);
}

/* Copies the Set-Cookie lines of `from`'s extra headers to `to`'s. */
static void pass_cookies(struct hl_req *to, const struct hl_req *from)
{
	static const char name[] = "Set-Cookie:";
	const char *p = from->headers.data, *end = p ? p + from->headers.len : NULL;
	while (p && p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *next = eol ? eol + 1 : end;
		if ((size_t)(next - p) > sizeof(name) && !strncasecmp(p, name, sizeof(name) - 1))
			buf_append(&to->headers, p, (size_t)(next - p));
		p = next;
	}
}

int dispatch_inside(struct hl_req *outer, const char *path, const char *query,
		       const char *location, const char **body, size_t *len)
{
	struct hl_req *r = outer->nested;
	if (!r) {
		if (!(r = malloc(sizeof(*r))))
			return HL_ENOMEM;
		request_init(r, outer->srv);
		r->guard = outer->guard;
		outer->nested = r;
	}
	const char *const headers[] = { "X-Location-Id", location, "Accept-Encoding", NULL, NULL };
	struct server *srv = outer->srv;
	request_end(r);
	request_begin(r, outer->conn, "GET", path, strlen(path), query);
	r->headers_set = headers;
	r->started_us = now_us();
	if (router_match(srv->router, "GET", path, r->path_len, &r->match)) {
		r->headers_set = NULL;
		return 0;
	}
	r->metrics_slot = r->match.entry->id;
	dispatch_route(r, mg_get_request_info(outer->conn));
	if (r->out.oom) {
		request_reset_answer(r);
		hl_reply_error(r, 503, "unavailable", "out of memory");
	}
	finish(r); /* a GET: nothing to commit */
	size_t plain = answer_has_body(r->status) ? r->out.len - HEAD_ROOM : 0;
	metrics_route(srv->metrics, r->metrics_slot, r->status, now_us() - r->started_us, 0, plain, 0,
		      r->statements);
	pass_cookies(outer, r);
	r->headers_set = NULL;
	*body = r->out.data + HEAD_ROOM;
	*len = r->out.len - HEAD_ROOM;
	return r->status;
}

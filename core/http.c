/* SPDX-License-Identifier: MIT */
/*
 * http.c: civetweb set up for speed, and the path of every request through
 * the core: route, access, body, handler, transaction end, answer.
 *
 * civetweb is told to keep connections alive and to disable Nagle
 * (tcp_nodelay): with Nagle and two writes per answer every answer waits
 * for a delayed ACK. Each answer leaves in one mg_write: the headers are
 * written into the room kept in front of the body (HEAD_ROOM), so neither
 * a second send nor a copy of the body is needed. A worker thread owns a
 * connection for its life, so there must be more threads than clients.
 */
#include "auth.h"
#include "cache.h"
#include "compress.h"
#include "db.h"
#include "events.h"
#include "framing.h"
#include "guard.h"
#include "live.h"
#include "metrics.h"
#include "server.h"
#include "log.h"
#include "request.h"

#include <arpa/inet.h>
#include <civetweb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const char security_headers[] =
	"X-Content-Type-Options: nosniff\r\n"
	"X-Frame-Options: DENY\r\n"
	"Referrer-Policy: same-origin\r\n"
	"Cross-Origin-Opener-Policy: same-origin\r\n";

const char http_csp[] = "default-src 'self'; img-src 'self' data:; object-src 'none';"
	" base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

static const char *status_text(int status)
{
	switch (status) {
	case 200: return "OK";
	case 201: return "Created";
	case 202: return "Accepted";
	case 204: return "No Content";
	case 304: return "Not Modified";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 409: return "Conflict";
	case 411: return "Length Required";
	case 413: return "Content Too Large";
	case 415: return "Unsupported Media Type";
	case 417: return "Expectation Failed";
	case 422: return "Unprocessable Content";
	case 429: return "Too Many Requests";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 503: return "Service Unavailable";
	}
	return status < 300 ? "OK" : status < 500 ? "Client Error" : "Server Error";
}

/* The Date header, formatted once a second per thread. */
static const char *http_date(void)
{
	static __thread char text[40];
	static __thread time_t when;
	time_t now = time(NULL);
	if (now != when) {
		struct tm tm;
		gmtime_r(&now, &tm);
		strftime(text, sizeof(text), "%a, %d %b %Y %H:%M:%S GMT", &tm);
		when = now;
	}
	return text;
}

/* 1xx, 204 and 304 answers have no body, so no Content-Type or -Length. */
static int has_body(int status)
{
	return status >= 200 && status != 204 && status != 304;
}

int http_format_head(const struct hl_req *r, char *dst, size_t cap)
{
	char type_and_length[256] = "";
	const char *type = r->content_type ? r->content_type : "application/octet-stream";
	if (r->stream) /* the connection closes after a stream, whatever happens */
		snprintf(type_and_length, sizeof(type_and_length),
			 "Content-Type: %s\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n",
			 type);
	else if (has_body(r->status))
		snprintf(type_and_length, sizeof(type_and_length),
			 "Content-Type: %s\r\nContent-Length: %zu\r\n", type, r->out.len - HEAD_ROOM);
	return snprintf(dst, cap, "HTTP/1.1 %d %s\r\nDate: %s\r\n%sCache-Control: %s\r\n%s"
			"Content-Security-Policy: %s\r\n%s\r\n",
			r->status, status_text(r->status), http_date(), type_and_length,
			r->cache_control ? r->cache_control : "no-store", security_headers,
			r->csp ? r->csp : http_csp, r->headers.len ? r->headers.data : "");
}

int http_send(struct hl_req *r, const void *data, size_t len)
{
	const struct config *cfg = r->srv->cfg;
	for (size_t at = 0; at < len; at += SEND_PIECE) {
		size_t n = len - at < SEND_PIECE ? len - at : SEND_PIECE;
		if (mg_write(r->conn, (const char *)data + at, n) <= 0)
			return r->cut = 1, -1;
		r->sent += n;
		long long allowed = cfg->body_timeout_s * 1000000LL +
				    (long long)r->sent * 1000000 / (cfg->min_rate_kb * 1024);
		if (at + n < len && now_us() - r->started_us > allowed)
			return r->cut = 1, -1;
	}
	return 0;
}

static void send_answer(struct hl_req *r, int head_only)
{
	char head[HEAD_ROOM], *big = NULL;
	const char *body = r->out.data + HEAD_ROOM;
	size_t body_len = has_body(r->status) ? r->out.len - HEAD_ROOM : 0;
	int n = http_format_head(r, head, sizeof(head));
	if (n < 0)
		return;
	if ((size_t)n < sizeof(head) && !head_only) {
		/* The usual case: headers and body in one write (or a few
		 * pieces for a big one), no copy. */
		char *start = r->out.data + HEAD_ROOM - n;
		memcpy(start, head, (size_t)n);
		http_send(r, start, (size_t)n + body_len);
		return;
	}
	const char *h = head;
	if ((size_t)n >= sizeof(head)) { /* huge extra headers */
		if (!(big = malloc((size_t)n + 1)))
			return;
		http_format_head(r, big, (size_t)n + 1);
		h = big;
	}
	if (!http_send(r, h, (size_t)n) && !head_only && body_len)
		http_send(r, body, body_len);
	free(big);
}

/* Compress a text answer of 1 KB or more for a client that accepts it;
 * the compressed copy takes the place of the body. */
static void maybe_compress(struct hl_req *r)
{
	size_t n = r->out.len - HEAD_ROOM;
	if (!has_body(r->status) || !compress_worth(r->content_type))
		return;
	request_add_header(r, "Vary: Accept-Encoding");
	if (r->encoded)
		return;
	enum coding c = compress_choose(hl_header(r, "Accept-Encoding"));
	if (n < COMPRESS_MIN_BYTES || c == CODING_IDENTITY)
		return;
	buf_reset(&r->packed);
	if (buf_reserve(&r->packed, HEAD_ROOM))
		return;
	r->packed.len = HEAD_ROOM;
	if (compress_into(c, r->out.data + HEAD_ROOM, n, &r->packed))
		return;
	struct buf plain = r->out;
	r->out = r->packed;
	r->packed = plain;
	request_add_header(r, "Content-Encoding: %s", coding_name(c));
}

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

static int has_body_to_read(const struct mg_request_info *ri)
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
static int read_body(struct hl_req *r, const struct mg_request_info *ri)
{
	if (!has_body_to_read(ri))
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

static void answer_405(struct hl_req *r)
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

static void run_route(struct hl_req *r, const struct mg_request_info *ri)
{
	const struct route_entry *e = r->match.entry;
	if (request_parse_query(r)) {
		hl_reply_error(r, 400, "bad_request", "the query string has a bad %%-escape, or text that is not UTF-8");
		return;
	}
	/* A request answered inside another has no body: the outer one's is
	 * not its to read. */
	if (auth_admit(r) || (!r->headers_set && read_body(r, ri)))
		return;
	if (cache_serve(r->srv->cache, r))
		return;
	int rc = e->route.handler(r);
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

static int is_api_path(const char *path)
{
	return !strncmp(path, "/api", 4) && (path[4] == '/' || path[4] == '\0');
}

/* A WebSocket asked for where none is served (upgrade_elsewhere). */
static __thread int upgrade_elsewhere_asked;

static void handle(struct hl_req *r, const struct mg_request_info *ri)
{
	int rc = router_match(r->srv->router, r->method, r->path, r->path_len, &r->match);
	int get = !strcmp(r->method, "GET") || !strcmp(r->method, "HEAD");
	if (upgrade_elsewhere_asked) {
		hl_reply_error(r, 404, "not_found", "no WebSocket here; live updates are at /api/live");
	} else if (rc == HL_ENOENT && get && !is_api_path(r->path) && r->srv->web_root) {
		r->metrics_slot = METRICS_STATIC(r->srv->metrics);
		static_serve(r);
	} else if (rc == HL_ENOENT) {
		hl_reply_error(r, 404, "not_found", "nothing here");
	} else if (rc) {
		answer_405(r);
	} else {
		r->metrics_slot = r->match.entry->id;
		run_route(r, ri);
	}
	if (r->out.oom && !r->streamed) { /* before the commit: a 503 must not follow a saved write */
		request_reset_answer(r);
		hl_reply_error(r, 503, "unavailable", "out of memory");
	}
	int failed = request_finish(r);
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

int http_answer_inside(struct hl_req *outer, const char *path, const char *query,
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
	run_route(r, mg_get_request_info(outer->conn));
	if (r->out.oom) {
		request_reset_answer(r);
		hl_reply_error(r, 503, "unavailable", "out of memory");
	}
	request_finish(r); /* a GET: nothing to commit */
	size_t plain = has_body(r->status) ? r->out.len - HEAD_ROOM : 0;
	metrics_route(srv->metrics, r->metrics_slot, r->status, now_us() - r->started_us, 0, plain, 0,
		      r->statements);
	pass_cookies(outer, r);
	r->headers_set = NULL;
	*body = r->out.data + HEAD_ROOM;
	*len = r->out.len - HEAD_ROOM;
	return r->status;
}

/* Slow requests are logged by route pattern only: never ids, queries or
 * bodies, which may name people. */
static void log_if_slow(const struct hl_req *r, long long ms)
{
	long long limit = CONFIG_LIVE(r->srv->cfg, slow_request_ms);
	const char *what = r->match.entry ? r->match.entry->route.pattern
		: r->metrics_slot == METRICS_STATIC(r->srv->metrics) ? "(static)" : "(no route)";
	if (limit && ms >= limit)
		log_info("[slow] %lld ms %s %s -> %d", ms, r->method, what, r->status);
}

/* The head's framing (framing.c); 1 when sound, else 0 after answering. */
static int head_is_sound(struct hl_req *r, const struct mg_request_info *ri)
{
	long long length;
	struct framing_refusal no;
	if (!framing_check(ri, &length, &no))
		return 1;
	hl_reply_error(r, no.status, no.code, "%s", no.why);
	return 0;
}

static void close_after_answer(struct hl_req *r, const struct mg_request_info *ri)
{
	framing_close((struct mg_request_info *)ri);
	if (!r->streamed)
		request_add_header(r, "Connection: close");
}

/* Whether the connection must close after r's answer because where its
 * body ends is in doubt: a head refused for how it frames the body, or an
 * error answered before the body was read. What follows would otherwise
 * be read as the next request: behind a proxy that reuses connections, as
 * another client's. */
static int must_close(const struct hl_req *r, const struct mg_request_info *ri, int head_sound)
{
	return !head_sound || (r->status >= 400 && ri->content_length > 0 && !r->body_read);
}

static int dispatch(struct mg_connection *conn, void *data)
{
	struct server *srv = data;
	struct hl_req *r = mg_get_thread_pointer(conn);
	const struct mg_request_info *ri = mg_get_request_info(conn);
	long long start = now_us();
	r->started_us = start;
	const char *path = ri->local_uri_raw ? ri->local_uri_raw : "/";
	srv->inflight++;
	metrics_begin(srv->metrics);
	request_begin(r, conn, ri->request_method, path, strlen(path), ri->query_string);
	r->metrics_slot = METRICS_NO_ROUTE(srv->metrics);
	guard_enter(r->guard, GUARD_WORK);
	int head_sound = 1;
	if (srv->draining)
		hl_reply_error(r, 503, "unavailable", "the server is stopping");
	else if ((head_sound = head_is_sound(r, ri)))
		handle(r, ri);
	int closing = must_close(r, ri, head_sound);
	if (closing)
		close_after_answer(r, ri);
	size_t plain = has_body(r->status) ? r->out.len - HEAD_ROOM : 0;
	if (r->plain_len)
		plain = r->plain_len; /* a compressed answer from the cache */
	int head_only = !strcmp(r->method, "HEAD");
	size_t sent = r->stream_sent;
	if (!r->streamed) {
		maybe_compress(r);
		send_answer(r, head_only);
		sent = has_body(r->status) && !head_only ? r->out.len - HEAD_ROOM : 0;
	}
	long long us = now_us() - start;
	metrics_end(srv->metrics, r->metrics_slot, r->status, us, r->body.len, plain, sent,
		    r->statements);
	log_if_slow(r, us / 1000);
	int status = r->status;
	if (r->large_body)
		atomic_fetch_sub(&srv->large_bodies, 1);
	/* civetweb reads what is left of the body before the next head. */
	if (r->cut && !closing) /* the answer is out: say it to civetweb alone */
		framing_close((struct mg_request_info *)ri);
	guard_enter(r->guard, (has_body_to_read(ri) && !r->body_read) || r->cut ? GUARD_DRAIN
										 : GUARD_HEAD);
	request_end(r);
	srv->inflight--;
	return status;
}

static void *thread_begin(const struct mg_context *ctx, int type)
{
	if (type != 1)
		return NULL;
	struct hl_req *r = malloc(sizeof(*r));
	if (!r)
		fatal("out of memory starting a worker thread");
	struct server *srv = mg_get_user_data(ctx);
	request_init(r, srv);
	r->guard = guard_attach(srv->guard);
	return r;
}

static void thread_end(const struct mg_context *ctx, int type, void *p)
{
	(void)ctx;
	(void)type;
	if (p) {
		request_release(p);
		free(p);
	}
	compress_thread_release();
}

static int connection_opened(const struct mg_connection *conn, void **data)
{
	struct server *s = mg_get_user_data(mg_get_context(conn));
	struct hl_req *r = mg_get_thread_pointer(conn);
	*data = NULL;
	metrics_connection(s->metrics, 1);
	if (r)
		guard_enter(r->guard, GUARD_HEAD);
	return 0;
}

static void connection_closed(const struct mg_connection *conn)
{
	struct server *s = mg_get_user_data(mg_get_context(conn));
	struct hl_req *r = mg_get_thread_pointer(conn);
	metrics_connection(s->metrics, -1);
	/* A WebSocket handshake civetweb could not write leaves the place the
	 * route reserved for it: given back here, not at the thread's next. */
	live_upgrade_abandon(s->live);
	if (r) {
		guard_enter(r->guard, GUARD_FREE);
		/* The next connection may come to any of the idle workers: kept
		 * for it, the buffers would add up to what a hundred workers
		 * ever held, not what the open connections need. */
		request_release(r);
	}
}

/* GET /api/live as a WebSocket: civetweb sends such requests here, not to
 * dispatch, and answers the handshake itself (live_route.c). */
static int upgrade_connect(const struct mg_connection *conn, void *data)
{
	live_upgrade_begin(((struct server *)data)->live);
	dispatch((struct mg_connection *)conn, data);
	return live_upgrade_accepted() ? 0 : 1;
}

/* A WebSocket asked for on any other path: civetweb would answer a bare
 * text 404 of its own; this one is the API's JSON 404, and civetweb then
 * closes the connection (the handshake was refused). */
static int upgrade_elsewhere(const struct mg_connection *conn, void *data)
{
	upgrade_elsewhere_asked = 1;
	dispatch((struct mg_connection *)conn, data);
	upgrade_elsewhere_asked = 0;
	return 1;
}

static void upgrade_ready(struct mg_connection *conn, void *data)
{
	live_upgrade_ready(((struct server *)data)->live, conn);
}

/* After the socket was taken civetweb reads from its stand-in, which
 * fails at once: nothing arrives here. */
static int upgrade_data(struct mg_connection *conn, int bits, char *data, size_t len, void *arg)
{
	(void)conn, (void)bits, (void)data, (void)len, (void)arg;
	return 0;
}

static void upgrade_closed(const struct mg_connection *conn, void *data)
{
	(void)conn;
	live_upgrade_abandon(((struct server *)data)->live);
}

static int civetweb_log(const struct mg_connection *conn, const char *message)
{
	(void)conn;
	log_warn("http: %s", message);
	return 1;
}

/* Who may call what is auth.c's to decide, inside dispatch. Without a
 * handler of its own here civetweb looks for an .htpasswd file at each
 * request: a stat() of "/.htpasswd" per request, for nothing. */
static int admit_to_dispatch(struct mg_connection *conn, void *data)
{
	(void)conn, (void)data;
	return 1;
}

int http_start(struct server *s)
{
	char listen[300], threads[16], keep_alive[24], head[24];
	snprintf(listen, sizeof(listen), "%s:%lld", s->cfg->bind, s->cfg->port);
	snprintf(threads, sizeof(threads), "%lld", s->cfg->threads);
	snprintf(keep_alive, sizeof(keep_alive), "%lld", s->cfg->keep_alive_s * 1000);
	snprintf(head, sizeof(head), "%lld", s->cfg->header_timeout_s * 1000);
	/* civetweb times the head from its first byte (keep_alive for a kept
	 * connection's next one), and a read or write that makes no progress
	 * with request_timeout; the guard bounds the body. */
	const char *options[] = {
		"listening_ports", listen,
		"num_threads", threads,
		"enable_keep_alive", "yes",
		"keep_alive_timeout_ms", keep_alive,
		"request_timeout_ms", head,
		"tcp_nodelay", "1",
		"decode_url", "no",
		"enable_auth_domain_check", "no",
		"listen_backlog", "1024",
		/* civetweb answers a CORS preflight itself, before any handler,
		 * granting every origin by default; the CSRF rule (auth.c) rests
		 * on never granting one, so an OPTIONS comes to dispatch (405). */
		"access_control_allow_origin", "",
		"access_control_allow_methods", "",
		"access_control_allow_headers", "",
		NULL,
	};
	struct mg_callbacks cb;
	memset(&cb, 0, sizeof(cb));
	cb.init_thread = thread_begin;
	cb.exit_thread = thread_end;
	cb.log_message = civetweb_log;
	cb.init_connection = connection_opened;
	cb.connection_closed = connection_closed;
	if (!(s->guard = guard_new(s->cfg, (int)s->cfg->threads)))
		return HL_ENOMEM;
	s->mg = mg_start(&cb, s, options);
	if (!s->mg) {
		guard_free(s->guard);
		s->guard = NULL;
		log_error("cannot listen on %s (is the port taken?)", listen);
		return HL_EIO;
	}
	mg_set_request_handler(s->mg, "/", dispatch, s);
	mg_set_auth_handler(s->mg, "/", admit_to_dispatch, s);
	mg_set_websocket_handler(s->mg, "/api/live", upgrade_connect, upgrade_ready, upgrade_data,
				 upgrade_closed, s);
	mg_set_websocket_handler(s->mg, "/", upgrade_elsewhere, upgrade_ready, upgrade_data,
				 upgrade_closed, s);
	return 0;
}

/* civetweb's listening thread notices the stop flag only when its poll()
 * returns, which without traffic takes up to two seconds. Connecting to
 * ourselves wakes it, so a restart is quick. */
struct waker {
	struct server *srv;
	_Atomic int done;
};

static void *wake_listener(void *arg)
{
	struct waker *w = arg;
	for (int i = 0; i < 100 && !w->done; i++) {
		struct timespec pause = { 0, 20 * 1000 * 1000 };
		nanosleep(&pause, NULL);
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		struct sockaddr_in addr = { .sin_family = AF_INET,
					    .sin_port = htons((uint16_t)w->srv->cfg->port) };
		if (inet_pton(AF_INET, w->srv->cfg->bind, &addr.sin_addr) != 1 ||
		    !addr.sin_addr.s_addr)
			inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
		if (fd >= 0) {
			connect(fd, (struct sockaddr *)&addr, sizeof(addr));
			close(fd);
		}
	}
	return NULL;
}

/* civetweb stops writing once its stop flag is set, so requests in flight
 * must finish before mg_stop: new ones get 503 meanwhile. */
static void drain(struct server *s)
{
	s->draining = 1;
	long long deadline = now_us() + 30 * 1000000LL;
	while (s->inflight > 0 && now_us() < deadline) {
		struct timespec pause = { 0, 5 * 1000 * 1000 };
		nanosleep(&pause, NULL);
	}
}

void http_stop(struct server *s)
{
	if (!s->mg)
		return;
	drain(s);
	guard_close_idle(s->guard);
	struct waker w = { s, 0 };
	pthread_t t;
	int woke = !pthread_create(&t, NULL, wake_listener, &w);
	mg_stop(s->mg);
	w.done = 1;
	if (woke)
		pthread_join(t, NULL);
	s->mg = NULL;
	guard_free(s->guard);
	s->guard = NULL;
}

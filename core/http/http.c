/* SPDX-License-Identifier: MIT */
/*
 * http.c: civetweb set up for speed, and every request's way from its
 * head to its answer: the head's framing, the route or the web folder
 * (dispatch.c, static.c), the answer on the wire, the metrics.
 *
 * civetweb is told to keep connections alive and to disable Nagle
 * (tcp_nodelay): with Nagle and two writes per answer every answer waits
 * for a delayed ACK. Each answer leaves in one mg_write: the headers are
 * written into the room kept in front of the body (HEAD_ROOM), so neither
 * a second send nor a copy of the body is needed. A worker thread owns a
 * connection for its life, so there must be more threads than clients.
 */
#include "http/http.h"
#include "auth/auth.h"
#include "db/db.h"
#include "http/body.h"
#include "http/cache.h"
#include "http/dispatch.h"
#include "http/framing.h"
#include "http/guard.h"
#include "http/live.h"
#include "http/metrics.h"
#include "lib/compress.h"
#include "lib/log.h"
#include "platform/events.h"
#include "request/answer.h"
#include "request/request.h"
#include "server.h"

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
		dispatch_405(r);
	} else {
		r->metrics_slot = r->match.entry->id;
		dispatch_route(r, ri);
	}
	dispatch_finish(r);
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

static int serve(struct mg_connection *conn, void *data)
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
	size_t plain = answer_has_body(r->status) ? r->out.len - HEAD_ROOM : 0;
	if (r->plain_len)
		plain = r->plain_len; /* a compressed answer from the cache */
	int head_only = !strcmp(r->method, "HEAD");
	size_t sent = r->stream_sent;
	if (!r->streamed) {
		answer_compress(r);
		answer_send(r, head_only);
		sent = answer_has_body(r->status) && !head_only ? r->out.len - HEAD_ROOM : 0;
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
	guard_enter(r->guard, (body_left(ri) && !r->body_read) || r->cut ? GUARD_DRAIN
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
 * serve, and answers the handshake itself (live_route.c). */
static int upgrade_connect(const struct mg_connection *conn, void *data)
{
	live_upgrade_begin(((struct server *)data)->live);
	serve((struct mg_connection *)conn, data);
	return live_upgrade_accepted() ? 0 : 1;
}

/* A WebSocket asked for on any other path: civetweb would answer a bare
 * text 404 of its own; this one is the API's JSON 404, and civetweb then
 * closes the connection (the handshake was refused). */
static int upgrade_elsewhere(const struct mg_connection *conn, void *data)
{
	upgrade_elsewhere_asked = 1;
	serve((struct mg_connection *)conn, data);
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

/* Who may call what is auth.c's to decide, inside serve. Without a
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
		 * on never granting one, so an OPTIONS comes to serve (405). */
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
	mg_set_request_handler(s->mg, "/", serve, s);
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

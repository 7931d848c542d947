/* SPDX-License-Identifier: MIT */
/*
 * live_route.c: GET /api/live, the door to the live channel (live.h).
 *
 * The request goes through the core like any other (sign-in, location,
 * rate limit), then here: the Origin must be the server's own, the
 * locations asked for must be the caller's, and a place must be free: one
 * of live_connections, and within the user's and the address's share
 * (live_per_user, live_per_address), so that no one caller can take every
 * place (a stream needs nothing from its client to stay open).
 * Then the connection leaves civetweb:
 *   - an event stream (Accept: text/event-stream) at once: its head is
 *     written here and its socket handed to the channel;
 *   - a WebSocket in two steps, because civetweb answers the handshake
 *     itself between them: the route runs inside civetweb's connect
 *     callback and leaves what it decided in this thread's `pending`;
 *     civetweb writes 101; the ready callback takes the socket
 *     (live_upgrade_ready). Nothing else runs on the thread between.
 */
#include "auth/auth.h"
#include "http/live.h"
#include "http/takeover.h"
#include "lib/log.h"
#include "request/request.h"
#include "request/router.h"
#include "server.h"

#include <civetweb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define ANSWERED 1 /* a helper answered the request (an error) */

static int live_open(struct hl_req *r);

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/live", .handler = live_open },
};

int live_register(struct router *r)
{
	return router_add_table(r, routes, sizeof(routes) / sizeof(routes[0]), "core");
}

/* A WebSocket handshake in progress on this thread, and what the route
 * decided for it. */
static __thread int upgrading;
static __thread int pending_ready;
static __thread struct live_client pending;
static __thread int64_t *pending_locations;

/* ---- what the request asks ------------------------------------------------------ */

/* The sequence number to resume after: the Last-Event-ID an EventSource
 * sends when it reconnects by itself (newer than the `since` its URL was
 * made with), or `since`; without either, the last one published, so
 * nothing published while the connection is handed over is missed. 0, or
 * ANSWERED after a 400. */
static int resume_point(struct hl_req *r, uint64_t *since)
{
	const char *v = hl_header(r, "Last-Event-ID");
	if (!v || !*v)
		v = hl_query(r, "since");
	*since = live_last_seq(r->srv->live);
	if (!v || !*v)
		return 0;
	size_t digits = strspn(v, "0123456789");
	if (!digits || digits > 19 || v[digits]) {
		hl_reply_error(r, 400, "bad_request", "since must be the seq of a message received");
		return ANSWERED;
	}
	*since = strtoull(v, NULL, 10);
	return 0;
}

static int compare_ids(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Every sub-account of the caller's agency (agency staff who see all). */
static int agency_locations(struct hl_req *r, int64_t *ids, int *n)
{
	if (!role_is_agency(r->who.role) || r->who.assigned_only || r->who.token_location) {
		hl_reply_error(r, 403, "forbidden", "only agency staff who see everything may listen"
			       " to the whole agency");
		return ANSWERED;
	}
	sqlite3_stmt *st = hl_stmt(hl_read(r), "SELECT id FROM locations WHERE agency_id = :agency"
				   " AND disabled_at IS NULL ORDER BY id LIMIT :most");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":agency", r->who.agency_id);
	hl_bind_int(st, ":most", LIVE_LOCATIONS_MAX);
	int rc;
	for (*n = 0; (rc = sqlite3_step(st)) == SQLITE_ROW;)
		ids[(*n)++] = sqlite3_column_int64(st, 0);
	return rc == SQLITE_DONE ? 0 : HL_EDB;
}

/* locations=1,2,3: each one the caller may open. */
static int listed_locations(struct hl_req *r, const char *list, int64_t *ids, int *n)
{
	*n = 0;
	for (const char *p = list; *p;) {
		size_t digits = strspn(p, "0123456789");
		long long id = digits && digits < 19 ? strtoll(p, NULL, 10) : 0;
		if (!id || (p[digits] && p[digits] != ',') || *n == LIVE_LOCATIONS_MAX) {
			hl_reply_error(r, 400, "bad_request", "locations must be up to %d sub-account ids,"
				       " separated by commas", LIVE_LOCATIONS_MAX);
			return ANSWERED;
		}
		if (!auth_may_open(r, id)) {
			hl_reply_error(r, 404, "not_found", "no such sub-account: %lld", id);
			return ANSWERED;
		}
		ids[(*n)++] = id;
		p += digits + (p[digits] == ',');
	}
	return 0;
}

/* The locations the client listens to, sorted and without repeats: the
 * current one, those listed, or the agency's. 0, ANSWERED, or an HL_E
 * code. */
static int choose_locations(struct hl_req *r, int64_t *ids, int *n)
{
	const char *scope = hl_query(r, "scope"), *list = hl_query(r, "locations");
	int rc = 0;
	if (scope && strcmp(scope, "agency")) {
		hl_reply_error(r, 400, "bad_request", "scope may only be \"agency\"");
		return ANSWERED;
	}
	if (scope)
		rc = agency_locations(r, ids, n);
	else if (list)
		rc = listed_locations(r, list, ids, n);
	else
		ids[0] = r->location_id, *n = 1;
	if (!rc && !*n) {
		hl_reply_error(r, 404, "no_location", "no sub-account to listen to");
		return ANSWERED;
	}
	if (rc)
		return rc;
	qsort(ids, (size_t)*n, sizeof(*ids), compare_ids);
	int kept = 1;
	for (int i = 1; i < *n; i++)
		if (ids[i] != ids[kept - 1])
			ids[kept++] = ids[i];
	*n = kept;
	return 0;
}

/* ---- the hand-over ------------------------------------------------------------ */

/* The address live_per_address counts c's client by: the same key as the
 * rate limit's, and nothing for a caller on this machine unless
 * rate_limit_loopback says so (a proxy on the same host without
 * trusted_proxies would otherwise share one address among everyone). */
static void count_address(struct hl_req *r, struct live_client *c)
{
	c->address[0] = '\0';
	if (!auth_is_loopback(auth_client(r)) || CONFIG_LIVE(r->srv->cfg, rate_limit_loopback))
		snprintf(c->address, sizeof(c->address), "address:%s", auth_client_key(r));
}

/* A place for `c`: 0, or ANSWERED after a 503 (every place is taken) or a
 * 429 (the user's or the address's share is). */
static int take_place(struct hl_req *r, struct live_client *c)
{
	const struct config *cfg = r->srv->cfg;
	count_address(r, c);
	switch (live_reserve(r->srv->live, c)) {
	case LIVE_PLACE_TAKEN:
		return 0;
	case LIVE_USER_TAKEN:
		request_add_header(r, "Retry-After: 30");
		hl_reply_error(r, 429, "too_many_streams", "you have %lld live connections open, as"
			       " many as one person may; close one", cfg->live_per_user);
		return ANSWERED;
	case LIVE_ADDRESS_TAKEN:
		request_add_header(r, "Retry-After: 30");
		hl_reply_error(r, 429, "too_many_streams", "%lld live connections are open from your"
			       " address, as many as one address may", cfg->live_per_address);
		return ANSWERED;
	default:
		request_add_header(r, "Retry-After: 5");
		hl_reply_error(r, 503, "busy", "the server holds as many live connections as it may;"
			       " try again");
		return ANSWERED;
	}
}

static int open_event_stream(struct hl_req *r, struct live_client *c)
{
	static const char head[] =
		"HTTP/1.1 200 OK\r\n"
		"Content-Type: text/event-stream; charset=utf-8\r\n"
		"Cache-Control: no-store\r\n"
		"X-Accel-Buffering: no\r\n"
		"X-Content-Type-Options: nosniff\r\n"
		"Connection: close\r\n\r\n";
	int fd = http_take_socket(r->conn);
	if (fd < 0)
		return fd;
	mg_disable_connection_keep_alive(r->conn);
	/* A fresh socket's buffer takes a head this small whole. */
	if (send(fd, head, sizeof(head) - 1, MSG_NOSIGNAL) != (ssize_t)(sizeof(head) - 1)) {
		close(fd);
		return HL_EIO;
	}
	r->status = 200;
	return live_adopt(r->srv->live, c, fd);
}

static int prepare_upgrade(struct hl_req *r, const struct live_client *c)
{
	if (http_socket_check(r->conn))
		return HL_EIO;
	int64_t *copy = malloc((size_t)c->nlocations * sizeof(*copy));
	if (!copy)
		return HL_ENOMEM;
	memcpy(copy, c->locations, (size_t)c->nlocations * sizeof(*copy));
	pending = *c;
	pending.locations = pending_locations = copy;
	pending_ready = 1;
	r->status = 101;
	return 0;
}

static int live_open(struct hl_req *r)
{
	struct live_client c = { .who = r->who };
	const char *accept = hl_header(r, "Accept"), *key = hl_header(r, "Sec-WebSocket-Key");
	if (strcmp(r->method, "GET"))
		return hl_reply_error(r, 405, "method_not_allowed", "live updates are asked for with GET");
	if (!r->srv->live)
		return hl_reply_error(r, 503, "live_off", "live updates are turned off here");
	/* only our own pages may open it with the browser's cookie */
	if (!auth_from_our_pages(r, 0))
		return hl_reply_error(r, 403, "wrong_origin", "live updates are for this server's own"
				      " pages");
	if (!upgrading && !(accept && strstr(accept, "text/event-stream")))
		return hl_reply_error(r, 400, "bad_request", "open a WebSocket (Upgrade: websocket)"
				      " or an event stream (Accept: text/event-stream)");
	/* civetweb cannot answer a key of another length: refused before a
	 * place is taken for it. */
	if (upgrading && (!key || strlen(key) != 24))
		return hl_reply_error(r, 400, "bad_request", "Sec-WebSocket-Key must be 16 bytes in base64");
	c.kind = upgrading ? LIVE_WEBSOCKET : LIVE_EVENT_STREAM;
	int64_t *ids = hl_alloc(r, LIVE_LOCATIONS_MAX * sizeof(*ids));
	if (!ids)
		return HL_ENOMEM;
	int rc = resume_point(r, &c.since);
	if (!rc)
		rc = choose_locations(r, ids, &c.nlocations);
	if (rc)
		return rc == ANSWERED ? 0 : rc;
	c.locations = ids;
	if (take_place(r, &c))
		return 0;
	rc = c.kind == LIVE_WEBSOCKET ? prepare_upgrade(r, &c) : open_event_stream(r, &c);
	if (rc == HL_EIO || (rc && c.kind == LIVE_WEBSOCKET)) {
		/* Nothing was written, nothing handed over: answer as usual. */
		live_unreserve(r->srv->live, &c);
		if (rc != HL_EIO)
			return rc;
		return hl_reply_error(r, 503, "unavailable", "live updates are not available");
	}
	if (rc)
		return rc; /* live_adopt gave the place back */
	r->replied = 1;
	r->streamed = 1;
	return 0;
}

/* ---- civetweb's WebSocket callbacks (http.c) --------------------------------------- */

void live_upgrade_begin(struct live *l)
{
	/* A handshake civetweb could not write calls neither the ready nor
	 * the close callback: what the route prepared for it goes now. */
	live_upgrade_abandon(l);
	upgrading = 1;
}

int live_upgrade_accepted(void)
{
	upgrading = 0;
	return pending_ready;
}

void live_upgrade_abandon(struct live *l)
{
	if (!pending_ready)
		return;
	pending_ready = 0;
	free(pending_locations);
	pending_locations = NULL;
	live_unreserve(l, &pending);
}

void live_upgrade_ready(struct live *l, struct mg_connection *conn)
{
	if (!pending_ready)
		return;
	int fd = http_take_socket(conn);
	if (fd < 0) {
		/* The 101 is out: close the WebSocket the way it says. */
		mg_websocket_write(conn, MG_WEBSOCKET_OPCODE_CONNECTION_CLOSE, "\x03\xf3", 2);
		live_upgrade_abandon(l);
		return;
	}
	pending_ready = 0;
	live_adopt(l, &pending, fd);
	free(pending_locations);
	pending_locations = NULL;
}

/* SPDX-License-Identifier: MIT */
/*
 * live.h: the live channel. Events the modules publish reach the people
 * looking at their location, over WebSocket or Server-Sent Events, on one
 * thread of their own, outside civetweb's worker pool.
 *
 * The parts, and the file of each:
 *   live_route.c  GET /api/live: who may listen to what, and the hand-over
 *                 of the connection's socket to the channel;
 *   live_ring.c   the events of the last minute, numbered, kept for
 *                 clients that come back (resume by sequence number);
 *   live.c        the connections and the thread that serves them: fan-out
 *                 into each connection's outbound queue, writes, pings,
 *                 the cut-off of slow clients, re-checking sessions.
 *
 * A connection's states, and the function that moves it on:
 *   RESERVED  a place counted against live_connections, live_per_user and
 *             live_per_address: live_reserve
 *   -> ADOPTED its socket handed to the channel's thread: live_adopt (or
 *             the place is given back: live_unreserve)
 *   OPEN      subscribed, catching up from its sequence number, then fed
 *             each event of its locations it may see
 *   -> HELD    its caller's rights changed (live_recheck) or its session's
 *             time is up: sent nothing until checked again, which happens
 *             before the next events go out; then OPEN again, narrowed to
 *             what it may still see and sent what it was held from, or
 *   -> CLOSED  by the client, a broken frame, a backlog over live_backlog_kb,
 *             a missed pong, an ended session, nothing left it may see, or
 *             the server's stop; a last frame says why (WebSocket close
 *             code, or a "bye" frame).
 */
#ifndef HL_LIVE_H
#define HL_LIVE_H

#include <hyperlevel/hyperlevel.h>

#include "db/db.h"
#include "lib/config.h"
#include "request/request.h"

#include <stdint.h>

#define LIVE_LOCATIONS_MAX 1000 /* locations one connection listens to */

struct live;

enum live_kind { LIVE_WEBSOCKET, LIVE_EVENT_STREAM };

/* Who is listening, to what, from where: filled by the route, copied by
 * live_adopt. */
struct live_client {
	enum live_kind kind;
	struct identity who;       /* as the request was admitted */
	const int64_t *locations;  /* sorted, without repeats */
	int nlocations;
	uint64_t since;            /* sent what follows it */
	char address[64];          /* the client's address as live_per_address
	                            * counts it; "": not counted */
};

/* Start the channel's thread. `db` lends the connections that re-check
 * sessions. 0, HL_ENOMEM or HL_EIO. */
int live_new(struct live **out, const struct config *cfg, struct db *db);
/* Close every live connection (a last frame saying the server stops),
 * stop the thread, free everything. NULL is ignored. */
void live_free(struct live *l);

/* The events listener (events_listen): numbers `e` and queues it for the
 * channel's thread. Only copies; any thread. */
void live_publish(void *live, const struct hl_event *e);

/* The number of the last event published: a client is sent what follows
 * it even when published while its connection is handed over. */
uint64_t live_last_seq(struct live *l);

/* What live_reserve says. */
enum live_place {
	LIVE_PLACE_TAKEN,   /* counted */
	LIVE_ALL_TAKEN,     /* live_connections are open (or the channel stops) */
	LIVE_USER_TAKEN,    /* the user holds live_per_user */
	LIVE_ADDRESS_TAKEN, /* the address holds live_per_address */
};
/* Count a place for one more connection of c's user from c's address. */
enum live_place live_reserve(struct live *l, const struct live_client *c);
/* Give back a place reserved for `c` that was never adopted. */
void live_unreserve(struct live *l, const struct live_client *c);
/* Hand `fd` (a connected socket, its HTTP head already answered) with a
 * reserved place to the channel, which owns both from now on, even when
 * this fails (HL_ENOMEM: the socket is closed). Any thread. */
int live_adopt(struct live *l, const struct live_client *c, int fd);

/* What `user` (0: anyone) or the people of `location` (0: any) may see
 * has changed, and the change has committed: their connections are held
 * before the next event goes out and checked again at once. Any thread;
 * a NULL `l` is ignored. */
void live_recheck(struct live *l, int64_t user, int64_t location);

/* The figures since the start, for the metrics. Any thread. */
struct live_stat {
	long long connections;  /* open now */
	long long opened;       /* since the start */
	long long kept;         /* events kept for clients that come back */
	long long frames;       /* event frames queued for connections */
	long long bytes;        /* written to connections */
	long long slow;         /* cut off for a backlog over the bound */
	long long signed_out;   /* closed because their session ended */
	long long rechecked;    /* checked again after a change of rights */
	long long refused;      /* refused for live_per_user or live_per_address */
	long long dropped;      /* events not kept: the ring was full */
	uint64_t seq;           /* the last sequence number given */
};
void live_snapshot(struct live *l, struct live_stat *out);

/* GET /api/live (live_route.c). */
int live_register(struct router *r);

/* Inside the WebSocket handshake of civetweb (http.c): say the request
 * asks for one, run it through the route, ask whether it accepted the
 * upgrade; then, once
 * civetweb answered 101, take the socket; or drop what the route
 * prepared when the handshake went no further. On the worker thread. */
void live_upgrade_begin(struct live *l);
int live_upgrade_accepted(void);
void live_upgrade_ready(struct live *l, struct mg_connection *conn);
void live_upgrade_abandon(struct live *l);

#endif

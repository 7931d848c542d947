/* SPDX-License-Identifier: MIT */
/*
 * guard.h: bounds on how long one connection may hold a worker thread.
 *
 * civetweb gives each open connection a worker thread of its own, and
 * blocks inside its reads: a client that sends its body a byte at a time
 * would keep its worker for as long as it likes, and a few hundred such
 * clients would keep every worker. The guard watches each worker's state
 * and, when a state has lasted past its bound, interrupts the worker's
 * blocking read with a signal, so civetweb's poll() returns and the
 * connection is closed. The bounds:
 *
 *   head     civetweb's own: the head must arrive whole within
 *            header_timeout_s (keep_alive_s for the next one on a kept
 *            connection);
 *   body     body_timeout_s plus one second for every min_rate_kb KB
 *            received: a body that arrives at min_rate_kb KB/s or faster
 *            is never cut;
 *   pressed  when more than 7/8 of the workers hold a connection, an idle
 *            kept connection or a head older than a quarter of a second
 *            is closed at once, and a body gets one second instead of
 *            body_timeout_s, so that clients who make the server wait
 *            cannot shut out those who do not;
 *   closing  when the server stops, a connection waiting for a head is
 *            closed at once: civetweb would notice its stop only at its
 *            next poll() quantum, two seconds later;
 *   drain    a body left unread by an answer (413, 401 ...) gets a second
 *            to arrive before the connection is closed.
 *
 * A worker moves through the states below; only it writes its slot, the
 * guard's thread only reads slots and sends signals.
 */
#ifndef HL_GUARD_H
#define HL_GUARD_H

#include <stddef.h>

struct config;
struct guard;
struct guard_slot;

enum guard_state {
	GUARD_FREE,  /* no connection */
	GUARD_HEAD,  /* waiting for a request's head (a new or kept connection) */
	GUARD_BODY,  /* reading a request's body */
	GUARD_WORK,  /* answering: the guard never interrupts it */
	GUARD_DRAIN, /* answered without reading the whole body (civetweb reads
	              * the rest before the next head), or with the answer cut
	              * short: the connection is closed within a second */
};

struct guard_counts {
	unsigned long long heads_closed;  /* idle or slow heads closed under pressure */
	unsigned long long bodies_cut;    /* bodies too slow */
	int busy;                         /* workers holding a connection now */
};

/* The guard for `threads` workers, its thread started; NULL when out of
 * memory or when the thread cannot start (after logging why). */
struct guard *guard_new(const struct config *cfg, int threads);
/* Stop the thread and free; accepts NULL. */
void guard_free(struct guard *g);

/* The server stops: close every connection waiting for a head, now and
 * until guard_free. Accepts NULL. */
void guard_close_idle(struct guard *g);

/* The calling worker's slot, taken once when the thread starts; NULL
 * when every slot is taken (the worker then goes unguarded). */
struct guard_slot *guard_attach(struct guard *g);
/* The calling worker enters `state` now. */
void guard_enter(struct guard_slot *s, enum guard_state state);
/* A body read has `got` bytes so far. */
void guard_body_progress(struct guard_slot *s, size_t got);
/* Whether the worker's current body was cut short by the guard. */
int guard_was_cut(const struct guard_slot *s);

void guard_read_counts(struct guard *g, struct guard_counts *out);

#endif

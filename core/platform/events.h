/* SPDX-License-Identifier: MIT */
/*
 * events.h: the events modules publish (hl_publish, hl_job_publish), on
 * their way from the transaction that made them happen to the event
 * handlers that react to them.
 *
 * An event's states, and the function that moves it on:
 *   PENDING   on the list of its request (one per HTTP worker thread) or
 *             of its job run: event_list_add
 *   -> gone   the transaction rolled back: event_list_clear
 *   -> handed over once it committed: events_commit (events_request_end
 *             for a request), which shows it to the listener and queues it
 *             when a handler matches (else frees it)
 *   QUEUED    owned by the queue, in hand-over order, up to
 *             EVENTS_QUEUE_MAX events (and EVENTS_QUEUE_BYTES); past that
 *             the newest is dropped, counted and logged
 *   -> DELIVERED by the scheduler thread: events_deliver takes it, passes
 *             it to every matching handler in module load order, frees it.
 * Nothing is persisted: delivery is at most once (see hyperlevel.h).
 */
#ifndef HL_EVENTS_H
#define HL_EVENTS_H

#include <hyperlevel/hyperlevel.h>

#include "platform/module.h"

#include <stddef.h>
#include <stdint.h>

#define EVENT_NAME_MAX 64             /* bytes of a name or a pattern */
#define EVENT_DATA_MAX (64 * 1024)    /* bytes of an event's data */
#define EVENTS_QUEUE_MAX 65536        /* events waiting for handlers */
#define EVENTS_QUEUE_BYTES (64 << 20) /* their memory */

struct events;
struct event;

/* The events one transaction published, in order; it owns them. Starts
 * zeroed. */
struct event_list {
	struct event *head, *tail;
	int n;
	size_t bytes;
};

/* Whether `name` is an event name: "noun.verb", of [a-z0-9_.], with at
 * least one dot, no dot first or last and no two in a row, at most
 * EVENT_NAME_MAX bytes. */
int events_name_ok(const char *name);
/* Whether `pattern` is a handler's event: a name, or a prefix ending in
 * ".*" ("contact.*") whose part before the ".*" has a name's characters. */
int events_pattern_ok(const char *pattern);
/* Whether the handler pattern `pattern` takes the event `name`. */
int events_match(const char *pattern, const char *name);

/* Check and copy an event onto `l`. 0; HL_EINVAL for a bad name, or data
 * (NULL meaning "{}") that is not a JSON object; HL_ETOOBIG for data over
 * EVENT_DATA_MAX or a list already at the queue's bounds; HL_ENOMEM. */
int event_list_add(struct event_list *l, const char *name, int64_t location_id,
		   int64_t subject_id, int64_t assigned_to, const char *data);
/* An event of the request being served for user `user` alone, about
 * record `subject_id`: published for no location (0) and assigned to
 * them, which the live channel sends to that user's connections only,
 * whatever they follow (notify.c's notice.created). As hl_publish. */
int events_publish_private(const char *name, int64_t user, int64_t subject_id);
/* Free the list's events (a rolled-back transaction) and empty it. */
void event_list_clear(struct event_list *l);
/* Put `from`'s events after `to`'s, in order (`from` is left empty): a
 * part of a transaction that was kept (a savepoint released). */
void event_list_move(struct event_list *to, struct event_list *from);

/* The delivery queue for the handlers of the loaded modules, `handlers`
 * (kept, not copied: they must outlive it; n may be 0). 0 or HL_ENOMEM. */
int events_new(struct events **out, const struct mod_handler *handlers, int n);
/* Free the queue and what it still holds (NULL is ignored). */
void events_free(struct events *ev);

/* Hand `l`'s events over after its transaction committed (`l` is left
 * empty). With `ev` NULL (no server) they are dropped. Any thread. */
void events_commit(struct events *ev, struct event_list *l);
/* After a request's transaction ended: hand over what its handler
 * published when `committed` (a success answer, the write saved), else
 * drop it. On the request's worker thread. */
void events_request_end(struct events *ev, int committed);

/* The hook for the live channel: `fn` sees every event handed over, with
 * or without a handler, in hand-over order, then NULL once the events of
 * one transaction are all handed over. It is called on the thread that
 * committed, with the queue's lock held, so it must only copy what it
 * needs (the event lives until it returns) and never publish. One
 * listener; NULL removes it. */
typedef void event_listener(void *arg, const struct hl_event *e);
void events_listen(struct events *ev, event_listener *fn, void *arg);

/* For the scheduler: `wake(arg, e, queued)` is called (with the queue's
 * lock held) for each event handed over, `queued` when a handler takes it
 * and it was queued for delivery (jobs woken by an event need the others
 * too, hl_job.wake_on); NULL stops the calls. events_queued reads the
 * queue's length without its lock. */
typedef void event_waker(void *arg, const struct hl_event *e, int queued);
void events_on_queue(struct events *ev, event_waker *wake, void *arg);
int events_queued(const struct events *ev);

/* Deliver queued events, the oldest first, until the queue is empty or
 * `budget_us` has passed (an event's handlers all run once it is taken).
 * `call` runs one handler for one event, in a transaction of its own, and
 * returns its result: 0, or a negative HL_E code after rolling back.
 * Returns 1 when events remain. On the scheduler thread only. */
typedef int event_call(void *arg, const struct mod_handler *h, const struct hl_event *e);
int events_deliver(struct events *ev, event_call *call, void *arg, long long budget_us);

/* The figures since the start, for the metrics. Any thread. */
struct event_stat {
	long long published;  /* events handed over after a commit */
	long long delivered;  /* handler calls that committed */
	long long failed;     /* handler calls that failed (rolled back) */
	long long dropped;    /* events not queued: the queue was full */
	long long queued;     /* events waiting now */
	int handlers;         /* handlers of the loaded modules */
};
void events_snapshot(struct events *ev, struct event_stat *out);

#endif

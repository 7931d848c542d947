/* SPDX-License-Identifier: MIT */
/*
 * live_ring.h: the events of the last minute, numbered, for the live
 * channel (live_ring.c): published on any thread, read and let go by the
 * channel's thread only.
 *
 * Sequence numbers start at the server's start time in microseconds, so a
 * number a client kept from before a restart is always older than the
 * ring and asks for a reload, never for someone else's events. Entries
 * [tail, head) are kept; a publisher only writes past head, and only the
 * channel's thread moves tail, so it reads them without the lock.
 */
#ifndef HL_LIVE_RING_H
#define HL_LIVE_RING_H

#include <hyperlevel/hyperlevel.h>

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define LIVE_RING_SLOTS 16384           /* events kept at most */
#define LIVE_RING_BYTES (8 << 20)       /* and their JSON text */
#define LIVE_KEEP_US (60 * 1000000LL)   /* how long a client may be away */
#define LIVE_DATA_MAX 4096              /* an event's data sent whole, else null */

struct live_entry {
	uint64_t seq;
	int64_t location_id;
	int64_t assigned_to; /* hl_event's: HL_EVERYONE, 0, or a user */
	long long at_us;     /* when it was numbered (now_us) */
	uint32_t len;
	char *json;          /* {"type":"event","seq":...} */
};

struct live_ring {
	pthread_mutex_t lock;
	struct live_entry slots[LIVE_RING_SLOTS];
	uint64_t head, tail;  /* under lock; tail moves on the reader only */
	size_t bytes;         /* of the kept entries' JSON */
	int wake_due;         /* under lock: 1 the reader must be woken, 2 it was */
	long long dropped;    /* under lock: events not kept, the ring full */
	uint64_t dropped_at;  /* under lock: head when the last one was dropped */
};

/* Start empty, numbering from now. 0. */
void ring_init(struct live_ring *r);
void ring_release(struct live_ring *r);

/* Number `e` and keep it as JSON: 0, or 1 when the ring is half full and
 * the reader must be woken now, before the transaction's last event;
 * HL_ENOMEM or HL_ETOOBIG (the ring is full: the reader is far behind)
 * after counting it dropped. */
int ring_push(struct live_ring *r, const struct hl_event *e);
/* After a publisher's last push: 1 when the reader must be woken (events
 * came since it last looked and nobody woke it yet), else 0. */
int ring_wake_due(struct live_ring *r);

/* The reader's side. ring_head: the next number to give, and how many
 * events were dropped since the start (the wake-up is re-armed). ring_at: the entry `seq`, which must be
 * in [tail, head). ring_trim: let go of entries older than LIVE_KEEP_US,
 * or the oldest while over half the slots or bytes, never at or past
 * `keep_from`. ring_bounds: the first kept, the next to give, and head
 * when an event was last dropped (0: never). */
uint64_t ring_head(struct live_ring *r, long long *dropped);
static inline const struct live_entry *ring_at(const struct live_ring *r, uint64_t seq)
{
	return &r->slots[seq % LIVE_RING_SLOTS];
}
void ring_trim(struct live_ring *r, uint64_t keep_from, long long now);
void ring_bounds(struct live_ring *r, uint64_t *oldest, uint64_t *next, uint64_t *dropped_at);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * live_ring.c: the live channel's events of the last minute (live_ring.h).
 */
#include "http/live_ring.h"
#include "lib/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void ring_init(struct live_ring *r)
{
	struct timespec now;
	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&r->lock, NULL);
	clock_gettime(CLOCK_REALTIME, &now);
	r->head = r->tail = (uint64_t)now.tv_sec * 1000000 + (uint64_t)now.tv_nsec / 1000;
}

void ring_release(struct live_ring *r)
{
	for (uint64_t s = r->tail; s < r->head; s++)
		free(r->slots[s % LIVE_RING_SLOTS].json);
	pthread_mutex_destroy(&r->lock);
}

/* The frame's JSON; the name has no characters to escape (events.c checks
 * names) and the data is a JSON object already. Line breaks, which JSON
 * allows only as white space, become spaces: an event stream's message
 * is one data line. */
static char *frame_json(const struct hl_event *e, uint64_t seq, uint32_t *len)
{
	size_t dlen = strlen(e->data);
	const char *data = dlen <= LIVE_DATA_MAX ? e->data : "null";
	size_t cap = strlen(e->name) + (dlen <= LIVE_DATA_MAX ? dlen : 4) + 160;
	char *json = malloc(cap);
	if (!json)
		return NULL;
	int n = snprintf(json, cap,
		"{\"type\":\"event\",\"seq\":%llu,\"event\":\"%s\",\"location_id\":%lld,"
		"\"id\":%lld,\"data\":%s}", (unsigned long long)seq, e->name,
		(long long)e->location_id, (long long)e->subject_id, data);
	*len = (uint32_t)n;
	for (char *p = json; (p = strpbrk(p, "\r\n"));)
		*p = ' ';
	return json;
}

int ring_push(struct live_ring *r, const struct hl_event *e)
{
	pthread_mutex_lock(&r->lock);
	int rc = 0;
	if (r->head - r->tail >= LIVE_RING_SLOTS || r->bytes >= LIVE_RING_BYTES) {
		rc = HL_ETOOBIG;
		r->dropped_at = r->head;
	} else {
		struct live_entry *x = &r->slots[r->head % LIVE_RING_SLOTS];
		x->json = frame_json(e, r->head, &x->len);
		if (!x->json) {
			rc = HL_ENOMEM;
		} else {
			x->seq = r->head;
			x->location_id = e->location_id;
			x->assigned_to = e->assigned_to;
			x->at_us = now_us();
			r->bytes += x->len;
			r->head++;
			if (!r->wake_due)
				r->wake_due = 1;
			/* A big transaction: the reader makes room as it goes. */
			if (r->wake_due == 1 && (r->head - r->tail >= LIVE_RING_SLOTS / 2 ||
						 r->bytes >= LIVE_RING_BYTES / 2)) {
				r->wake_due = 2;
				rc = 1;
			}
		}
	}
	if (rc < 0)
		r->dropped++;
	pthread_mutex_unlock(&r->lock);
	return rc;
}

int ring_wake_due(struct live_ring *r)
{
	pthread_mutex_lock(&r->lock);
	int due = r->wake_due == 1;
	if (due)
		r->wake_due = 2; /* told: until the reader looks */
	pthread_mutex_unlock(&r->lock);
	return due;
}

uint64_t ring_head(struct live_ring *r, long long *dropped)
{
	pthread_mutex_lock(&r->lock);
	uint64_t head = r->head;
	*dropped = r->dropped;
	r->wake_due = 0;
	pthread_mutex_unlock(&r->lock);
	return head;
}

void ring_bounds(struct live_ring *r, uint64_t *oldest, uint64_t *next, uint64_t *dropped_at)
{
	pthread_mutex_lock(&r->lock);
	*oldest = r->tail;
	*next = r->head;
	*dropped_at = r->dropped_at;
	pthread_mutex_unlock(&r->lock);
}

void ring_trim(struct live_ring *r, uint64_t keep_from, long long now)
{
	pthread_mutex_lock(&r->lock);
	while (r->tail < keep_from && r->tail < r->head) {
		struct live_entry *x = &r->slots[r->tail % LIVE_RING_SLOTS];
		int crowded = r->head - r->tail > LIVE_RING_SLOTS / 2 || r->bytes > LIVE_RING_BYTES / 2;
		if (!crowded && now - x->at_us < LIVE_KEEP_US)
			break;
		r->bytes -= x->len;
		free(x->json);
		x->json = NULL;
		r->tail++;
	}
	pthread_mutex_unlock(&r->lock);
}

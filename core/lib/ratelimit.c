/* SPDX-License-Identifier: MIT */
/*
 * ratelimit.c: the fixed-window counters of ratelimit.h.
 */
#include "lib/ratelimit.h"

#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef LIMITER_SLOTS /* the unit test makes a small table to fill */
#define LIMITER_SLOTS 8192
#endif
#define SLOTS LIMITER_SLOTS /* power of two */
#define PROBES 16           /* slots looked at for a key before one is reused */

struct slot {
	unsigned char key[16]; /* keyed hash of the key */
	time_t window;         /* start of the slot's window; 0: free */
	long count;
};

struct limiter {
	pthread_mutex_t lock;
	int window_s;
	int strict;
	unsigned char secret[crypto_generichash_KEYBYTES];
	struct slot slots[SLOTS];
};

struct limiter *limiter_new(int window_s, int strict)
{
	struct limiter *l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	pthread_mutex_init(&l->lock, NULL);
	l->window_s = window_s;
	l->strict = strict;
	randombytes_buf(l->secret, sizeof(l->secret));
	return l;
}

void limiter_free(struct limiter *l)
{
	if (!l)
		return;
	pthread_mutex_destroy(&l->lock);
	free(l);
}

/* The slot of `key`, made (or reused) when `create`; NULL when it has
 * none (or, strict and full, cannot get one). Every probe is looked at,
 * whatever is free, so a slot freed by a refund hides no other key.
 * Called with the lock held. */
static struct slot *find(struct limiter *l, const char *key, time_t now, int create)
{
	unsigned char digest[16];
	crypto_generichash(digest, sizeof(digest), (const unsigned char *)key, strlen(key),
			   l->secret, sizeof(l->secret));
	uint32_t h;
	memcpy(&h, digest, sizeof(h));
	struct slot *stale = NULL, *oldest = NULL;
	for (int i = 0; i < PROBES; i++) {
		struct slot *s = &l->slots[(h + (uint32_t)i) & (SLOTS - 1)];
		int live = s->window && now - s->window < l->window_s;
		if (s->window && !memcmp(s->key, digest, sizeof(digest))) {
			if (!live) { /* a new window */
				s->window = now;
				s->count = 0;
			}
			return s;
		}
		if (!live && !stale)
			stale = s;
		else if (live && (!oldest || s->window < oldest->window))
			oldest = s;
	}
	struct slot *reuse = stale ? stale : l->strict ? NULL : oldest;
	if (!create || !reuse)
		return NULL;
	memcpy(reuse->key, digest, sizeof(digest));
	reuse->window = now;
	reuse->count = 0;
	return reuse;
}

static void describe(const struct limiter *l, const struct slot *s, long max, time_t now,
		     struct limit *out)
{
	out->limit = max;
	out->remaining = s && s->count < max ? max - s->count : s ? 0 : max;
	out->reset_s = s ? (long)(s->window + l->window_s - now) : l->window_s;
}

int limiter_hit(struct limiter *l, const char *key, long max, struct limit *out)
{
	time_t now = time(NULL);
	pthread_mutex_lock(&l->lock);
	struct slot *s = find(l, key, now, 1);
	int ok = !s || s->count < max; /* no slot: strict and full, nothing recorded */
	if (s && ok)
		s->count++;
	describe(l, s, max, now, out);
	pthread_mutex_unlock(&l->lock);
	return ok;
}

int limiter_over(struct limiter *l, const char *key, long max, struct limit *out)
{
	time_t now = time(NULL);
	pthread_mutex_lock(&l->lock);
	struct slot *s = find(l, key, now, 0);
	int over = s && s->count >= max;
	describe(l, s, max, now, out);
	pthread_mutex_unlock(&l->lock);
	return over;
}

void limiter_refund(struct limiter *l, const char *key)
{
	pthread_mutex_lock(&l->lock);
	struct slot *s = find(l, key, time(NULL), 0);
	if (s && s->count > 0)
		s->count--;
	if (s && !s->count) /* free, so good sign-ins never fill a strict table */
		s->window = 0;
	pthread_mutex_unlock(&l->lock);
}

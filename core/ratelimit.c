/* SPDX-License-Identifier: MIT */
/*
 * ratelimit.c: the fixed-window counters of ratelimit.h.
 */
#include "ratelimit.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLOTS 8192 /* power of two */
#define PROBES 16  /* slots looked at for a key before one is reused */

struct slot {
	char key[72];
	time_t window; /* start of the slot's window; 0: free */
	long count;
};

struct limiter {
	pthread_mutex_t lock;
	int window_s;
	struct slot slots[SLOTS];
};

struct limiter *limiter_new(int window_s)
{
	struct limiter *l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	pthread_mutex_init(&l->lock, NULL);
	l->window_s = window_s;
	return l;
}

void limiter_free(struct limiter *l)
{
	if (!l)
		return;
	pthread_mutex_destroy(&l->lock);
	free(l);
}

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* The slot of `key`, made (or reused) when `create`; NULL otherwise.
 * Called with the lock held. */
static struct slot *find(struct limiter *l, const char *key, time_t now, int create)
{
	uint32_t h = hash(key);
	struct slot *oldest = NULL;
	for (int i = 0; i < PROBES; i++) {
		struct slot *s = &l->slots[(h + (uint32_t)i) & (SLOTS - 1)];
		if (s->window && !strcmp(s->key, key)) {
			if (now - s->window >= l->window_s) { /* a new window */
				s->window = now;
				s->count = 0;
			}
			return s;
		}
		if (!oldest || s->window < oldest->window)
			oldest = s;
	}
	if (!create)
		return NULL;
	snprintf(oldest->key, sizeof(oldest->key), "%s", key);
	oldest->window = now;
	oldest->count = 0;
	return oldest;
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
	int ok = s->count < max;
	if (ok)
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

void limiter_forget(struct limiter *l, const char *key)
{
	pthread_mutex_lock(&l->lock);
	struct slot *s = find(l, key, time(NULL), 0);
	if (s)
		s->window = 0;
	pthread_mutex_unlock(&l->lock);
}

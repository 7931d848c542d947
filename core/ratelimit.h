/* SPDX-License-Identifier: MIT */
/*
 * ratelimit.h: counting what a caller did in a fixed window of time, to
 * refuse a caller who does too much (429) without slowing anyone else.
 *
 * A limiter is a fixed-size table of keys ("ip:1.2.3.4", "user:7") with a
 * count for the current window each; when it is full, the entry whose
 * window ended longest ago is reused, so memory stays bounded whatever the
 * number of callers. One mutex guards it: each call is a few dozen
 * instructions.
 */
#ifndef HL_RATELIMIT_H
#define HL_RATELIMIT_H

#include <stdint.h>

struct limiter;

struct limit {
	long limit;      /* the most allowed per window */
	long remaining;  /* left in this window after this call */
	long reset_s;    /* seconds until the window ends */
};

struct limiter *limiter_new(int window_s);
void limiter_free(struct limiter *l);

/* Count one event for `key` and say whether it stays within `max`. */
int limiter_hit(struct limiter *l, const char *key, long max, struct limit *out);
/* Whether `key` has already reached `max` (counts nothing). */
int limiter_over(struct limiter *l, const char *key, long max, struct limit *out);
/* Forget `key` (e.g. failed sign-ins after a successful one). */
void limiter_forget(struct limiter *l, const char *key);

#endif

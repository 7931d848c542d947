/* SPDX-License-Identifier: MIT */
/*
 * ratelimit.h: counting what a caller did in a fixed window of time, to
 * refuse a caller who does too much (429) without slowing anyone else.
 *
 * A limiter is a fixed-size table of keys ("ip:1.2.3.4", "user:7") with a
 * count for the current window each, so memory stays bounded whatever the
 * number of callers. Keys are stored as a keyed hash (a secret drawn at
 * start), so no key is cut short and nobody can compute keys that collide.
 * When the slots a key may use are all busy, a lenient limiter reuses the
 * one whose window started first; a strict one (sign-ins) never reuses a
 * live slot, so an attacker cannot push a victim's counter out, and lets
 * the key through uncounted: in a strict table "no slot" means "nothing
 * recorded", never "refused", so a full table locks nobody out. Callers
 * keep a strict table from filling by putting in it only keys an attacker
 * cannot make up (accounts that exist). A slot whose count is taken back
 * to zero is free again. One mutex guards it.
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

struct limiter *limiter_new(int window_s, int strict);
void limiter_free(struct limiter *l);

/* Count one event for `key` and say whether it stays within `max` (1) or
 * is refused (0). A strict limiter with no slot for `key` says 1 and
 * counts nothing. */
int limiter_hit(struct limiter *l, const char *key, long max, struct limit *out);
/* Whether `key` has already reached `max` (counts nothing). */
int limiter_over(struct limiter *l, const char *key, long max, struct limit *out);
/* Take back one event of `key` (a sign-in that succeeded); at zero its
 * slot is freed. */
void limiter_refund(struct limiter *l, const char *key);

#endif

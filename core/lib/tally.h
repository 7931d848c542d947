/* SPDX-License-Identifier: MIT */
/*
 * tally.h: how many of something each key holds now ("user:7" holds 3 live
 * connections), so that no key may hold more than its share (tally.c).
 *
 * Unlike a rate limiter (ratelimit.h), which counts what happened in a
 * window of time, a tally goes up when a thing is taken and down when it
 * is given back. A key is kept only while it holds something, so memory
 * follows what is held. One mutex guards it; any thread.
 */
#ifndef HL_TALLY_H
#define HL_TALLY_H

struct tally;

/* NULL when out of memory. */
struct tally *tally_new(void);
/* Accepts NULL. */
void tally_free(struct tally *t);

/* Count one more for `key` unless it holds `max` already: 0, HL_ETOOBIG
 * (nothing counted), or HL_ENOMEM. */
int tally_take(struct tally *t, const char *key, long long max);
/* Give back one that tally_take counted for `key`. */
void tally_give(struct tally *t, const char *key);
/* What `key` holds now. */
long long tally_count(struct tally *t, const char *key);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * cache.h: the read cache: whole answers of read-only routes, kept in
 * memory and served again until a write changes what they were built from.
 *
 * A route asks for it with cache_ms (the longest an answer may be kept)
 * and reads (the tables it is built from). The key is the route, the
 * location, the caller's visibility (role, and the user when limited to
 * assigned records), the path and the query sorted by name. An entry holds
 * a stamp of its tables' change counters (changes.h) taken before the
 * answer was computed; it is served only while the stamp is current and its
 * time has not run out. Routes of a location compare only that location's
 * counters, so a write in one sub-account keeps the others' answers.
 *
 * Identical misses arriving together are computed once: the first request
 * leads, the others wait for its answer. Compressed variants are kept with
 * the entry, made on first demand, so a hit never compresses. Memory is
 * bounded (cache_mb) with least-recently-used eviction, in shards so that
 * hits on different keys do not queue on one lock.
 */
#ifndef HL_CACHE_H
#define HL_CACHE_H

#include "db/changes.h"
#include "lib/config.h"
#include "request/router.h"

#include <stdint.h>

struct cache;
struct hl_req;

/* A cache of cfg->cache_mb; *out is NULL (and 0 returned) when the
 * settings turn it off. */
int cache_new(struct cache **out, const struct config *cfg, const struct changes *ch);
void cache_free(struct cache *c);

/* Resolve each cached route's tables, once migrations are done. HL_EINVAL
 * after one log line when a route names a table the database lacks. */
int cache_prepare(struct cache *c, const struct router *rt);

/* Before the handler of a GET: 1 when the answer was served from the cache
 * (hit, or the answer of an identical request computed meanwhile); 0 when
 * the handler must run, after which cache_finish keeps its answer. */
int cache_serve(struct cache *c, struct hl_req *r);
void cache_finish(struct cache *c, struct hl_req *r);

/* `invalidated` counts the misses that found the route's answer kept but
 * made out of date by a write: the reads a write cost. An answer no one
 * asks for again is not counted. */
struct cache_stats {
	uint64_t hits, misses, invalidated;
};
/* Per route (by route_entry id); zeros for a route that is not cached. */
struct cache_stats cache_route_stats(const struct cache *c, int route_id);
/* Entries and bytes held now. */
void cache_usage(const struct cache *c, uint64_t *entries, uint64_t *bytes);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * cache.c: the read cache of cache.h.
 *
 * Invariants: an entry is in its shard's hash table from the moment a
 * request leads its computation until it is dropped; it is on the LRU list
 * only once ready. A dropped entry is freed when its last reader lets go
 * (refs). Everything in a shard is guarded by the shard's lock, except a
 * ready entry's identity body, which never changes, and its variants, which
 * are set once under the lock and never change afterwards.
 */
#include "http/cache.h"
#include "db/db.h"
#include "lib/compress.h"
#include "lib/hash.h"
#include "lib/log.h"
#include "request/request.h"
#include "server.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SHARDS 16
#define MAX_READS 32 /* tables a route reads, a view's counted: the widgets' data read 18 */
#define WAIT_MS 30000 /* a waiter computes itself after this */

enum state { PENDING, READY, DROPPED };

struct body {
	char *data; /* NULL: not made yet */
	size_t len;
	int useless; /* compressing did not make it smaller */
};

struct entry {
	struct entry *chain;       /* next in the hash bucket */
	struct entry *newer, *older; /* the LRU list, when ready */
	uint64_t hash;
	uint64_t stamp;
	long long expires_us;
	enum state state;
	int refs;
	int route_id;
	const char *content_type;
	struct body variant[3];    /* by enum coding; identity always, once ready */
	size_t bytes;              /* accounted to the shard */
	size_t key_len;
	char key[];
};

struct shard {
	pthread_mutex_t lock;
	pthread_cond_t settled;   /* a pending entry became ready or dropped */
	struct entry **bucket;
	size_t nbuckets, count;
	struct entry lru;         /* sentinel: lru.newer is the oldest */
	size_t bytes, limit;
};

struct cached_route {
	int cached;
	int ntables;
	int tables[MAX_READS];
	int per_location;         /* compare only the caller's location */
	long long ttl_us;
	_Atomic uint64_t hits, misses, invalidated;
};

struct cache {
	const struct changes *changes;
	struct cached_route *routes; /* by route_entry id */
	int nroutes;
	size_t limit;
	struct shard shard[SHARDS];
};

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = hash_fnv1a(s, n);
	return h ^ (h >> 29);
}

int cache_new(struct cache **out, const struct config *cfg, const struct changes *ch)
{
	*out = NULL;
	if (!cfg->result_cache)
		return 0;
	struct cache *c = calloc(1, sizeof(*c));
	if (!c)
		return HL_ENOMEM;
	c->changes = ch;
	c->limit = (size_t)cfg->cache_mb << 20;
	for (int i = 0; i < SHARDS; i++) {
		struct shard *s = &c->shard[i];
		pthread_condattr_t attr;
		pthread_condattr_init(&attr);
		pthread_condattr_setclock(&attr, CLOCK_MONOTONIC); /* as now_us() */
		pthread_mutex_init(&s->lock, NULL);
		pthread_cond_init(&s->settled, &attr);
		pthread_condattr_destroy(&attr);
		s->lru.newer = s->lru.older = &s->lru;
		s->limit = c->limit / SHARDS;
		s->nbuckets = 256;
		if (!(s->bucket = calloc(s->nbuckets, sizeof(*s->bucket)))) {
			cache_free(c);
			return HL_ENOMEM;
		}
	}
	*out = c;
	return 0;
}

static void entry_free(struct entry *e)
{
	for (int i = 0; i < 3; i++)
		free(e->variant[i].data);
	free(e);
}

void cache_free(struct cache *c)
{
	if (!c)
		return;
	for (int i = 0; i < SHARDS; i++) {
		struct shard *s = &c->shard[i];
		for (size_t b = 0; s->bucket && b < s->nbuckets; b++)
			for (struct entry *e = s->bucket[b], *next; e; e = next) {
				next = e->chain;
				entry_free(e);
			}
		free(s->bucket);
		pthread_mutex_destroy(&s->lock);
		pthread_cond_destroy(&s->settled);
	}
	free(c->routes);
	free(c);
}

/* ---- routes ------------------------------------------------------------ */

/* Add table `t` to what the route reads, once; 1 when there is no room.
 * `edits` (CHANGES_EDITS_ONLY or 0): the route only looks rows of it up,
 * unless it also reads it otherwise. */
static int add_read(struct cached_route *cr, int t, int edits)
{
	for (int i = 0; i < cr->ntables; i++)
		if ((cr->tables[i] & ~CHANGES_EDITS_ONLY) == t) {
			cr->tables[i] &= edits | ~CHANGES_EDITS_ONLY;
			return 0;
		}
	if (cr->ntables == MAX_READS)
		return 1;
	cr->tables[cr->ntables++] = t | edits;
	return 0;
}

/* The length of the table's name in an entry of `reads`, `n` bytes long,
 * without its suffixes: "?", a wanted module's table, perhaps absent, and
 * ":lookup" (CHANGES_EDITS_ONLY), in either order. */
static size_t read_name(const char *p, size_t n, int *optional, int *edits)
{
	static const char lookup[] = ":lookup";
	size_t k = sizeof(lookup) - 1;
	*optional = *edits = 0;
	for (;;) {
		if (n && p[n - 1] == '?' && !*optional) {
			*optional = 1;
			n--;
		} else if (n > k && !memcmp(p + n - k, lookup, k) && !*edits) {
			*edits = CHANGES_EDITS_ONLY;
			n -= k;
		} else {
			return n;
		}
	}
}

static int resolve_reads(struct cache *c, const struct route_entry *e, struct cached_route *cr)
{
	const char *p = e->route.reads ? e->route.reads : "";
	while (*p) {
		size_t n = strcspn(p, " ,"), len;
		int optional, edits;
		if (n && (len = read_name(p, n, &optional, &edits))) {
			char name[128];
			snprintf(name, sizeof(name), "%.*s", (int)len, p);
			int t = changes_table_id(c->changes, name);
			const int *view_tables;
			int nview = t < 0 ? changes_view_tables(c->changes, name, &view_tables) : -1;
			if ((t < 0 && nview < 0 && optional) || nview > 0) {
				/* A view another module publishes: the tables it reads. */
				int full = 0;
				for (int k = 0; k < nview; k++)
					full |= add_read(cr, view_tables[k], edits);
				if (full) {
					log_error("module %s: %s %s reads '%s', whose tables are too many"
						  " for the cache", e->owner, e->route.method,
						  e->route.pattern, name);
					return HL_EINVAL;
				}
				p += n + (p[n] != '\0');
				continue;
			}
			const char *why = t < 0 ? "which is not a table or view of the database"
				: changes_is_virtual(c->changes, t)
					? "a virtual table; name the tables it is built from"
				: add_read(cr, t, edits) ? "one table too many for the cache" : NULL;
			if (why) {
				log_error("module %s: %s %s reads '%s', %s", e->owner, e->route.method,
					  e->route.pattern, name, why);
				return HL_EINVAL;
			}
		}
		p += n + (p[n] != '\0');
	}
	if (!cr->ntables) {
		log_error("module %s: %s %s is cached but names no table it reads", e->owner,
			  e->route.method, e->route.pattern);
		return HL_EINVAL;
	}
	return 0;
}

int cache_prepare(struct cache *c, const struct router *rt)
{
	int n;
	const struct route_entry *const *all = router_entries(rt, &n);
	if (!c)
		return 0;
	if (!(c->routes = calloc((size_t)n + 1, sizeof(*c->routes))))
		return HL_ENOMEM;
	c->nroutes = n;
	for (int i = 0; i < n; i++) {
		const struct route_entry *e = all[i];
		if (!e || !e->route.cache_ms || strcmp(e->route.method, "GET"))
			continue;
		struct cached_route *cr = &c->routes[e->id];
		if (resolve_reads(c, e, cr))
			return HL_EINVAL;
		cr->cached = 1;
		cr->ttl_us = (long long)e->route.cache_ms * 1000;
		cr->per_location = !(e->route.flags & HL_ROUTE_NO_LOCATION) &&
				   (e->route.access == HL_ACCESS_USER ||
				    e->route.access == HL_ACCESS_LOCATION_ADMIN);
	}
	return 0;
}

struct cache_stats cache_route_stats(const struct cache *c, int route_id)
{
	struct cache_stats st = { 0, 0, 0 };
	if (c && route_id >= 0 && route_id < c->nroutes) {
		st.hits = c->routes[route_id].hits;
		st.misses = c->routes[route_id].misses;
		st.invalidated = c->routes[route_id].invalidated;
	}
	return st;
}

void cache_usage(const struct cache *c, uint64_t *entries, uint64_t *bytes)
{
	*entries = *bytes = 0;
	for (int i = 0; c && i < SHARDS; i++) {
		struct shard *s = (struct shard *)&c->shard[i];
		pthread_mutex_lock(&s->lock);
		*entries += s->count;
		*bytes += s->bytes;
		pthread_mutex_unlock(&s->lock);
	}
}

/* ---- keys ---------------------------------------------------------------- */

#define KEY_MAX 2048
#define KEY_MAX_PAIRS 32

struct key {
	char *p;
	size_t n, cap;
	int full;
};

static void key_put(struct key *k, const void *v, size_t n)
{
	if (k->n + n > k->cap) {
		k->full = 1;
		return;
	}
	memcpy(k->p + k->n, v, n);
	k->n += n;
}

/* Strings go in with their length first, so no value can pose as two. */
static void key_put_string(struct key *k, const char *s)
{
	uint32_t n = (uint32_t)strlen(s);
	key_put(k, &n, sizeof(n));
	key_put(k, s, n);
}

/* The query's pairs sorted by name, and a repeated name's values kept in
 * their order (hl_query answers the first), without the location_id the
 * core chose the location by (the location has its own place in the key;
 * for a route of no location it is a parameter like any other). -1 when
 * there are too many. */
static int sorted_query(const struct hl_req *r, const struct query_pair **out)
{
	int n = 0;
	for (int i = 0; i < r->nquery; i++) {
		const struct query_pair *q = &r->query[i];
		if (r->location_id && !strcmp(q->name, "location_id"))
			continue;
		if (n == KEY_MAX_PAIRS)
			return -1;
		int j = n++;
		for (; j > 0 && strcmp(q->name, out[j - 1]->name) < 0; j--)
			out[j] = out[j - 1];
		out[j] = q;
	}
	return n;
}

static int per_user(const struct hl_req *r)
{
	return !!(r->match.entry->route.flags & HL_ROUTE_PER_USER);
}

/* The key of a request; 0 when it is too long to be worth caching. */
static size_t make_key(const struct hl_req *r, char *buf, size_t cap)
{
	struct key k = { buf, 0, cap, 0 };
	const struct query_pair *pairs[KEY_MAX_PAIRS];
	int npairs = sorted_query(r, pairs);
	int32_t route = r->match.entry->id, role = (int32_t)r->who.role;
	int64_t user = r->who.assigned_only || per_user(r) ? r->who.user_id : 0;
	if (npairs < 0)
		return 0;
	key_put(&k, &route, sizeof(route));
	key_put(&k, &r->location_id, sizeof(r->location_id));
	key_put(&k, &r->who.agency_id, sizeof(r->who.agency_id)); /* routes of no location */
	key_put(&k, &role, sizeof(role));
	key_put(&k, &user, sizeof(user));
	key_put(&k, r->path, r->path_len);
	for (int i = 0; i < npairs; i++) {
		key_put_string(&k, pairs[i]->name);
		key_put_string(&k, pairs[i]->value);
	}
	return k.full ? 0 : k.n;
}

/* ---- the table and the LRU list (shard lock held) ----------------------- */

static struct shard *shard_of(struct cache *c, uint64_t hash)
{
	return &c->shard[(hash >> 56) % SHARDS];
}

static struct entry *find(struct shard *s, uint64_t hash, const char *key, size_t len)
{
	for (struct entry *e = s->bucket[hash & (s->nbuckets - 1)]; e; e = e->chain)
		if (e->hash == hash && e->key_len == len && !memcmp(e->key, key, len))
			return e;
	return NULL;
}

static void grow(struct shard *s)
{
	size_t n = s->nbuckets * 2;
	struct entry **b = calloc(n, sizeof(*b));
	if (!b)
		return; /* longer chains, still correct */
	for (size_t i = 0; i < s->nbuckets; i++)
		for (struct entry *e = s->bucket[i], *next; e; e = next) {
			next = e->chain;
			e->chain = b[e->hash & (n - 1)];
			b[e->hash & (n - 1)] = e;
		}
	free(s->bucket);
	s->bucket = b;
	s->nbuckets = n;
}

static void insert(struct shard *s, struct entry *e)
{
	if (s->count >= s->nbuckets * 2)
		grow(s);
	struct entry **head = &s->bucket[e->hash & (s->nbuckets - 1)];
	e->chain = *head;
	*head = e;
	s->count++;
}

static void lru_remove(struct entry *e)
{
	e->newer->older = e->older;
	e->older->newer = e->newer;
}

/* Make `e` the newest: just before the sentinel. */
static void lru_touch(struct shard *s, struct entry *e)
{
	if (e->older)
		lru_remove(e);
	e->newer = &s->lru;
	e->older = s->lru.older;
	s->lru.older->newer = e;
	s->lru.older = e;
}

static void drop(struct shard *s, struct entry *e)
{
	struct entry **p = &s->bucket[e->hash & (s->nbuckets - 1)];
	while (*p != e)
		p = &(*p)->chain;
	*p = e->chain;
	s->count--;
	if (e->state == READY) {
		lru_remove(e);
		s->bytes -= e->bytes;
	}
	e->state = DROPPED;
	pthread_cond_broadcast(&s->settled);
	if (!e->refs)
		entry_free(e);
}

static void evict(struct shard *s)
{
	while (s->bytes > s->limit && s->lru.newer != &s->lru)
		drop(s, s->lru.newer);
}

static void release(struct shard *s, struct entry *e)
{
	pthread_mutex_lock(&s->lock);
	if (!--e->refs && e->state == DROPPED)
		entry_free(e);
	pthread_mutex_unlock(&s->lock);
}

/* ---- answers ------------------------------------------------------------- */

/* The entry's body in `coding`, compressed now (outside the lock) if no
 * request asked for it before; NULL when compressing does not pay. */
static const struct body *variant(struct shard *s, struct hl_req *r, struct entry *e,
				  enum coding coding)
{
	struct body *v = &e->variant[coding];
	pthread_mutex_lock(&s->lock);
	int known = v->data || v->useless;
	pthread_mutex_unlock(&s->lock);
	if (known)
		return v->data ? v : NULL;
	buf_reset(&r->packed);
	int failed = compress_into(coding, e->variant[CODING_IDENTITY].data,
				   e->variant[CODING_IDENTITY].len, &r->packed);
	char *copy = failed ? NULL : malloc(r->packed.len);
	if (copy)
		memcpy(copy, r->packed.data, r->packed.len);
	pthread_mutex_lock(&s->lock);
	if (!v->data && !v->useless && (copy || failed)) {
		v->data = copy;
		v->len = copy ? r->packed.len : 0;
		v->useless = failed;
		if (copy && e->state == READY) {
			e->bytes += v->len;
			s->bytes += v->len;
			evict(s);
		}
		copy = NULL;
	}
	pthread_mutex_unlock(&s->lock);
	free(copy); /* another request was quicker */
	return v->data ? v : NULL;
}

/* Answer from a ready entry the request holds a reference to. */
static void answer_from(struct shard *s, struct hl_req *r, struct entry *e, const char *how)
{
	const struct body *b = &e->variant[CODING_IDENTITY];
	enum coding coding = CODING_IDENTITY;
	if (b->len >= COMPRESS_MIN_BYTES && compress_worth(e->content_type)) {
		coding = compress_choose(hl_header(r, "Accept-Encoding"));
		const struct body *v = coding ? variant(s, r, e, coding) : NULL;
		if (v)
			b = v;
		else
			coding = CODING_IDENTITY;
	}
	request_reset_answer(r);
	buf_append(&r->out, b->data, b->len);
	r->status = 200;
	r->content_type = e->content_type;
	r->encoded = 1; /* final: the HTTP layer must not compress it again */
	r->plain_len = e->variant[CODING_IDENTITY].len;
	r->replied = 1;
	if (coding)
		request_add_header(r, "Content-Encoding: %s", coding_name(coding));
	request_add_header(r, "X-Cache: %s", how);
}

static struct entry *new_entry(uint64_t hash, const char *key, size_t len, uint64_t stamp,
			       int route_id)
{
	struct entry *e = calloc(1, sizeof(*e) + len);
	if (!e)
		return NULL;
	e->hash = hash;
	e->stamp = stamp;
	e->route_id = route_id;
	e->state = PENDING;
	e->refs = 1; /* the leading request's */
	e->key_len = len;
	memcpy(e->key, key, len);
	return e;
}

static long long deadline_in(long long us, struct timespec *ts)
{
	monotonic_in(us, ts);
	return now_us() + us;
}

/* Wait, with the shard locked, until the request computing `e` has kept
 * or dropped it; WAIT_MS at most. */
static void wait_for_leader(struct shard *s, struct entry *e)
{
	struct timespec until;
	long long give_up = deadline_in(WAIT_MS * 1000LL, &until);
	e->refs++;
	while (e->state == PENDING && now_us() < give_up)
		pthread_cond_timedwait(&s->settled, &s->lock, &until);
	if (!--e->refs && e->state == DROPPED)
		entry_free(e);
}

int cache_serve(struct cache *c, struct hl_req *r)
{
	struct cached_route *cr = c ? &c->routes[r->match.entry->id] : NULL;
	char key[KEY_MAX];
	size_t len = cr && cr->cached ? make_key(r, key, sizeof(key)) : 0;
	if (!len)
		return 0;
	uint64_t hash = hash_bytes(key, len);
	struct shard *s = shard_of(c, hash);
	int64_t location = cr->per_location ? r->location_id : 0;
	/* Authentication read with the request's connection: end that read,
	 * so the answer's snapshot begins after the stamp (changes.h). */
	if (r->reader)
		r->statements += db_conn_reset(r->reader);
	int waited = 0;
	pthread_mutex_lock(&s->lock);
	/* The stamp of the request's arrival. An answer made from a snapshot
	 * begun at it serves the request, though a write may land while the
	 * request waits for it: the write and the request overlap. */
	uint64_t stamp = changes_stamp(c->changes, cr->tables, cr->ntables, location);
	for (;;) {
		struct entry *e = find(s, hash, key, len);
		if (e && e->state == READY && e->stamp == stamp && now_us() < e->expires_us) {
			e->refs++;
			lru_touch(s, e);
			pthread_mutex_unlock(&s->lock);
			cr->hits++;
			answer_from(s, r, e, "hit");
			release(s, e);
			return 1;
		}
		if (e && e->state == PENDING && e->stamp == stamp && !waited) {
			wait_for_leader(s, e);
			waited = 1;
			continue;
		}
		if (waited)
			break; /* the answer was not kept, or is already out of date:
				* compute it, without the cache, rather than queue again */
		if (e && e->state == READY && e->stamp != stamp)
			cr->invalidated++;
		if (e)
			drop(s, e); /* out of date, or being made from an older snapshot */
		if ((e = new_entry(hash, key, len, stamp, r->match.entry->id))) {
			insert(s, e);
			r->cache_entry = e;
		}
		break;
	}
	pthread_mutex_unlock(&s->lock);
	cr->misses++;
	return 0;
}

/* Whether the handler's answer may be served to every caller the key
 * stands for. */
static int may_keep(const struct hl_req *r, const struct shard *s)
{
	size_t len = r->out.len - HEAD_ROOM;
	return r->status == 200 && r->replied && !r->out.oom && !r->encoded && r->content_type &&
	       !r->uncached &&
	       len <= s->limit / 2 && /* one answer may not empty a shard */
	       /* an answer made for one user, under a key shared by several */
	       !(r->asked_user && !r->who.assigned_only && !per_user(r));
}

void cache_finish(struct cache *c, struct hl_req *r)
{
	struct entry *e = r->cache_entry;
	if (!e) {
		if (c && c->routes[r->match.entry->id].cached)
			request_add_header(r, "X-Cache: miss");
		return;
	}
	r->cache_entry = NULL;
	struct shard *s = shard_of(c, e->hash);
	int keep = may_keep(r, s);
	struct body *b = &e->variant[CODING_IDENTITY];
	size_t len = r->out.len - HEAD_ROOM;
	if (keep && (b->data = malloc(len ? len : 1))) {
		memcpy(b->data, r->out.data + HEAD_ROOM, len);
		b->len = len;
		e->content_type = r->content_type;
		e->expires_us = now_us() + c->routes[e->route_id].ttl_us;
	}
	pthread_mutex_lock(&s->lock);
	if (b->data && e->state == PENDING) {
		e->state = READY;
		e->bytes = sizeof(*e) + e->key_len + len;
		s->bytes += e->bytes;
		lru_touch(s, e);
		pthread_cond_broadcast(&s->settled);
		evict(s);
	} else if (e->state == PENDING) {
		drop(s, e);
	}
	int ready = e->state == READY;
	pthread_mutex_unlock(&s->lock);
	if (ready)
		answer_from(s, r, e, "miss");
	else
		request_add_header(r, "X-Cache: miss");
	release(s, e);
}

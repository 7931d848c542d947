/* SPDX-License-Identifier: MIT */
/*
 * sqlalloc.c: SQLite's allocator, with a cache of small blocks per
 * connection (see sqlalloc.h for why).
 *
 * Every block has an 8-byte header before it holding its usable size, as
 * SQLite's own system allocator does; small sizes are rounded up to a
 * multiple of SQLALLOC_STEP so that a freed block fits the next request of
 * its class. The thread's current cache is a thread-local pointer: nothing
 * is shared between threads, so nothing is locked.
 */
#include "db/sqlalloc.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HEADER sizeof(int64_t)

static _Thread_local struct sqlalloc_cache *current;

static size_t rounded(int n)
{
	size_t size = n > 0 ? (size_t)n : 1;
	if (size <= SQLALLOC_SMALL_MAX)
		return (size + SQLALLOC_STEP - 1) / SQLALLOC_STEP * SQLALLOC_STEP;
	return (size + 7) & ~(size_t)7;
}

static size_t *header_of(void *p)
{
	return (size_t *)((char *)p - HEADER);
}

static size_t class_of(size_t size)
{
	return size / SQLALLOC_STEP - 1;
}

static void *block_malloc(int n)
{
	size_t size = rounded(n);
	struct sqlalloc_cache *c = current;
	if (c && size <= SQLALLOC_SMALL_MAX) {
		size_t k = class_of(size);
		void **block = c->free[k];
		if (block) {
			c->free[k] = *block;
			c->kept[k] -= size;
			c->bytes -= size;
			return block;
		}
	}
	size_t *h = malloc(HEADER + size);
	if (!h)
		return NULL;
	*h = size;
	return (char *)h + HEADER;
}

static void block_free(void *p)
{
	if (!p)
		return;
	size_t size = *header_of(p);
	struct sqlalloc_cache *c = current;
	if (c && size <= SQLALLOC_SMALL_MAX && c->kept[class_of(size)] + size <= SQLALLOC_CLASS_KEPT) {
		size_t k = class_of(size);
		*(void **)p = c->free[k];
		c->free[k] = p;
		c->kept[k] += size;
		c->bytes += size;
		return;
	}
	free(header_of(p));
}

static void *block_realloc(void *p, int n)
{
	size_t old = *header_of(p), want = rounded(n);
	if (want == old)
		return p;
	if (old > SQLALLOC_SMALL_MAX && want > SQLALLOC_SMALL_MAX) {
		/* glibc may grow a large block in place */
		size_t *h = realloc(header_of(p), HEADER + want);
		if (!h)
			return NULL;
		*h = want;
		return (char *)h + HEADER;
	}
	void *q = block_malloc(n);
	if (!q)
		return NULL;
	memcpy(q, p, old < want ? old : want);
	block_free(p);
	return q;
}

static int block_size(void *p)
{
	return p ? (int)*header_of(p) : 0;
}

static int block_roundup(int n)
{
	return (int)rounded(n);
}

static int block_init(void *unused)
{
	(void)unused;
	return SQLITE_OK;
}

static void block_shutdown(void *unused)
{
	(void)unused;
}

void sqlalloc_install(void)
{
	static const sqlite3_mem_methods methods = {
		block_malloc, block_free, block_realloc, block_size,
		block_roundup, block_init, block_shutdown, NULL,
	};
	sqlite3_config(SQLITE_CONFIG_MALLOC, &methods);
}

int sqlalloc_enter(struct sqlalloc_cache *c)
{
	if (current)
		return 0;
	current = c;
	return 1;
}

void sqlalloc_leave(void)
{
	current = NULL;
}

void sqlalloc_drain(struct sqlalloc_cache *c)
{
	for (size_t k = 0; k < SQLALLOC_CLASSES; k++) {
		while (c->free[k]) {
			void **block = c->free[k];
			c->free[k] = *block;
			free(header_of(block));
		}
		c->kept[k] = 0;
	}
	c->bytes = 0;
}

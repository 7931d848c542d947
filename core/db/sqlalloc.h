/* SPDX-License-Identifier: MIT */
/*
 * sqlalloc.h: SQLite's memory allocator, with a cache of small blocks per
 * database connection.
 *
 * Debian builds SQLite without lookaside (SQLITE_OMIT_LOOKASIDE), so each
 * request's statements make about 150 small malloc/free pairs. glibc keeps
 * freed small blocks in a cache per thread, and civetweb spreads requests
 * over all its workers (128 by default): each worker's cache filled in
 * turn, and the resident set grew for over an hour of steady load before
 * it would level off. Here the small blocks freed while a thread holds a
 * connection go to that connection's own cache instead, as lookaside
 * would have it: connections are few (twice the cores, and the writer), so
 * what they keep is bounded and is reached within the first minute.
 *
 * A cache is used only by the thread that holds its connection (db.c lends
 * each to one thread at a time), so it takes no lock.
 */
#ifndef HL_SQLALLOC_H
#define HL_SQLALLOC_H

#include <stddef.h>

#define SQLALLOC_STEP      32   /* small sizes are rounded up to a multiple */
#define SQLALLOC_SMALL_MAX 1024 /* larger blocks go straight to malloc */
#define SQLALLOC_CLASSES   (SQLALLOC_SMALL_MAX / SQLALLOC_STEP)
/* The most one cache keeps of each class, in bytes (1 MB at most in all):
 * a bound per class, not for the whole cache, or one query's many blocks
 * of one size would fill it and leave every other size to malloc. Blocks
 * beyond it go back to malloc. */
#define SQLALLOC_CLASS_KEPT (32 * 1024)

struct sqlalloc_cache {
	void *free[SQLALLOC_CLASSES];   /* singly linked through the blocks */
	size_t kept[SQLALLOC_CLASSES];  /* bytes in each list */
	size_t bytes;                   /* in all of them */
};

/* Make this SQLite's allocator. Only before SQLite is first used: after,
 * SQLite keeps the allocator it started with (and the caches stay empty,
 * as no free reaches them). */
void sqlalloc_install(void);

/* Let blocks freed by this thread go to `c` until sqlalloc_leave. Returns 1
 * if `c` became the thread's cache, 0 if the thread already had one (a
 * request that holds a reader and then takes the writer): leave only what
 * you entered. */
int sqlalloc_enter(struct sqlalloc_cache *c);
void sqlalloc_leave(void);

/* Free the blocks `c` keeps; its connection must not be in use. */
void sqlalloc_drain(struct sqlalloc_cache *c);

#endif

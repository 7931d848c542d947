/* SPDX-License-Identifier: MIT */
/*
 * arena.h: bump allocation for one request or one job slice.
 *
 * Everything allocated is freed at once by arena_reset. The first block is
 * kept across resets, so a worker thread serving small requests allocates
 * nothing after its first request. Allocation failure aborts the process
 * (as Redis does): a request cannot go on without its memory, and the sizes
 * asked for are bounded by the request limits.
 */
#ifndef HL_ARENA_H
#define HL_ARENA_H

#include <stddef.h>

struct arena_block;

struct arena {
	struct arena_block *head; /* the block being filled; newest first */
	struct arena_block *keep; /* the first ARENA_BLOCK-sized block: survives resets */
	size_t used;              /* bytes used in head */
};

void *arena_alloc(struct arena *a, size_t n);
char *arena_strndup(struct arena *a, const char *s, size_t n);
/* Free every allocation; keep the first block for the next use. */
void arena_reset(struct arena *a);
/* Free everything. */
void arena_release(struct arena *a);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * arena.c: the bump allocator of arena.h. Blocks form a list, newest first;
 * the first ARENA_BLOCK-sized one (a->keep) survives arena_reset.
 */
#include "lib/arena.h"
#include "lib/log.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK (16 * 1024)
#define ARENA_ALIGN 16

struct arena_block {
	struct arena_block *next;
	size_t size;
	_Alignas(ARENA_ALIGN) unsigned char data[];
};

static struct arena_block *block_new(size_t size, struct arena_block *next)
{
	struct arena_block *b = malloc(sizeof(*b) + size);
	if (!b)
		fatal("out of memory allocating %zu bytes", size);
	b->next = next;
	b->size = size;
	return b;
}

void *arena_alloc(struct arena *a, size_t n)
{
	if (n > SIZE_MAX / 2)
		fatal("an allocation of %zu bytes was asked for", n);
	n = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	if (!n)
		n = ARENA_ALIGN;
	if (a->head && a->used + n <= a->head->size) {
		void *p = a->head->data + a->used;
		a->used += n;
		return p;
	}
	if (n > ARENA_BLOCK / 4 && a->head) {
		/* A big piece gets a block of its own behind the head, so the
		 * head's free space is not wasted. */
		struct arena_block *big = block_new(n, a->head->next);
		a->head->next = big;
		return big->data;
	}
	a->head = block_new(n > ARENA_BLOCK ? n : ARENA_BLOCK, a->head);
	if (!a->keep && a->head->size == ARENA_BLOCK)
		a->keep = a->head;
	a->used = n;
	return a->head->data;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n < SIZE_MAX ? n + 1 : n); /* SIZE_MAX: refused there */
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void arena_reset(struct arena *a)
{
	for (struct arena_block *b = a->head, *next; b; b = next) {
		next = b->next;
		if (b != a->keep)
			free(b);
	}
	a->head = a->keep;
	if (a->keep)
		a->keep->next = NULL;
	a->used = 0;
}

void arena_release(struct arena *a)
{
	arena_reset(a);
	free(a->keep);
	a->head = a->keep = NULL;
}

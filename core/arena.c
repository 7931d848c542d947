/* SPDX-License-Identifier: MIT */
/*
 * arena.c: the bump allocator of arena.h. Blocks form a list, newest first;
 * the oldest (first allocated, ARENA_BLOCK bytes) survives arena_reset.
 */
#include "arena.h"
#include "log.h"

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
	n = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	if (!n)
		n = ARENA_ALIGN;
	if (!a->head || a->used + n > a->head->size) {
		size_t size = n > ARENA_BLOCK ? n : ARENA_BLOCK;
		if (n > ARENA_BLOCK / 4 && a->head) {
			/* A big piece gets a block of its own behind the head,
			 * so the head's free space is not wasted. */
			struct arena_block *big = block_new(n, a->head->next);
			a->head->next = big;
			return big->data;
		}
		a->head = block_new(size, a->head);
		a->used = 0;
	}
	void *p = a->head->data + a->used;
	a->used += n;
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void arena_reset(struct arena *a)
{
	struct arena_block *b = a->head;
	if (!b)
		return;
	while (b->next) {
		struct arena_block *next = b->next;
		free(b);
		b = next;
	}
	if (b->size != ARENA_BLOCK) {
		free(b);
		b = NULL;
	}
	a->head = b;
	a->used = 0;
}

void arena_release(struct arena *a)
{
	arena_reset(a);
	free(a->head);
	a->head = NULL;
	a->used = 0;
}

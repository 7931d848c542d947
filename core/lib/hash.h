/* SPDX-License-Identifier: MIT */
/*
 * hash.h: FNV-1a over bytes, the one hash the core uses for its tables'
 * keys (the statement cache, the answer cache) and for the document's
 * ETag. Not for anything an attacker's choice of keys could hurt more than
 * a long probe: none of its tables is keyed by client input alone.
 */
#ifndef HL_HASH_H
#define HL_HASH_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t hash_fnv1a(const void *data, size_t n)
{
	const unsigned char *p = data;
	uint64_t h = 14695981039346656037ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

#endif

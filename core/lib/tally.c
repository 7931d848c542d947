/* SPDX-License-Identifier: MIT */
/*
 * tally.c: the counts of tally.h, in a hash table of chained entries, one
 * allocation per key that holds something. Keys come from the server
 * (user ids, client addresses), not from what a client may choose at will,
 * and each holds at most its `max`, so the chains stay short.
 */
#include "lib/tally.h"

#include <hyperlevel/hyperlevel.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BUCKETS 1024 /* power of two */

struct entry {
	struct entry *next;
	long long count;
	char key[];
};

struct tally {
	pthread_mutex_t lock;
	struct entry *bucket[BUCKETS];
};

struct tally *tally_new(void)
{
	struct tally *t = calloc(1, sizeof(*t));
	if (t)
		pthread_mutex_init(&t->lock, NULL);
	return t;
}

void tally_free(struct tally *t)
{
	if (!t)
		return;
	for (int i = 0; i < BUCKETS; i++)
		for (struct entry *e = t->bucket[i], *next; e; e = next) {
			next = e->next;
			free(e);
		}
	pthread_mutex_destroy(&t->lock);
	free(t);
}

/* FNV-1a. */
static struct entry **chain_of(struct tally *t, const char *key)
{
	uint32_t h = 2166136261u;
	for (const unsigned char *p = (const unsigned char *)key; *p; p++)
		h = (h ^ *p) * 16777619u;
	return &t->bucket[h & (BUCKETS - 1)];
}

/* The link that points at `key`'s entry, or at the chain's end. */
static struct entry **find(struct tally *t, const char *key)
{
	struct entry **at = chain_of(t, key);
	while (*at && strcmp((*at)->key, key))
		at = &(*at)->next;
	return at;
}

int tally_take(struct tally *t, const char *key, long long max)
{
	int rc = 0;
	pthread_mutex_lock(&t->lock);
	struct entry **at = find(t, key);
	if (*at && (*at)->count >= max) {
		rc = HL_ETOOBIG;
	} else if (*at) {
		(*at)->count++;
	} else if (max < 1) {
		rc = HL_ETOOBIG;
	} else {
		size_t n = strlen(key) + 1;
		struct entry *e = malloc(sizeof(*e) + n);
		if (e) {
			memcpy(e->key, key, n);
			e->count = 1;
			e->next = NULL;
			*at = e;
		} else {
			rc = HL_ENOMEM;
		}
	}
	pthread_mutex_unlock(&t->lock);
	return rc;
}

void tally_give(struct tally *t, const char *key)
{
	pthread_mutex_lock(&t->lock);
	struct entry **at = find(t, key);
	struct entry *e = *at;
	if (e && --e->count <= 0) {
		*at = e->next;
		free(e);
	}
	pthread_mutex_unlock(&t->lock);
}

long long tally_count(struct tally *t, const char *key)
{
	pthread_mutex_lock(&t->lock);
	struct entry *e = *find(t, key);
	long long n = e ? e->count : 0;
	pthread_mutex_unlock(&t->lock);
	return n;
}

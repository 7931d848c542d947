/* SPDX-License-Identifier: MIT */
/*
 * credentials.c: the table of credentials.h.
 *
 * A slot is empty (kind 0) or holds one entry. Everything in a slot is
 * guarded by its stripe's lock; readers copy the entry out under it. The
 * slot comes from the entry's key, a keyed hash no caller can aim, so none
 * can choose tokens that crowd another's slot; keys are compared in
 * constant time.
 */
#include "auth/credentials.h"
#include "lib/log.h"

#include <pthread.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLOTS 1024  /* power of two */
#define STRIPES 32

static const char *const read_from[] = {
	"sessions", "api_tokens", "users", "locations", "user_locations",
};
#define NTABLES ((int)(sizeof(read_from) / sizeof(read_from[0])))

struct credentials {
	const struct changes *changes;
	int tables[NTABLES];
	int ntables;
	unsigned char key[crypto_generichash_KEYBYTES];
	pthread_mutex_t stripe[STRIPES];
	struct credential slot[SLOTS];
};

int credentials_new(struct credentials **out, const struct changes *ch)
{
	struct credentials *c = calloc(1, sizeof(*c));
	*out = NULL;
	if (!c)
		return HL_ENOMEM;
	c->changes = ch;
	for (int i = 0; i < NTABLES; i++) {
		int t = changes_table_id(ch, read_from[i]);
		if (t < 0) {
			log_error("table %s is not followed for changes: sessions cannot be"
				  " kept in memory", read_from[i]);
			free(c);
			return HL_EINVAL;
		}
		c->tables[c->ntables++] = t;
	}
	crypto_generichash_keygen(c->key);
	for (int i = 0; i < STRIPES; i++)
		pthread_mutex_init(&c->stripe[i], NULL);
	*out = c;
	return 0;
}

void credentials_free(struct credentials *c)
{
	if (!c)
		return;
	for (int i = 0; i < STRIPES; i++)
		pthread_mutex_destroy(&c->stripe[i]);
	sodium_memzero(c->slot, sizeof(c->slot));
	free(c);
}

uint64_t credentials_stamp(const struct credentials *c)
{
	return changes_stamp(c->changes, c->tables, c->ntables, 0);
}

void credentials_key(const struct credentials *c, enum credential_kind kind, const char *token,
		     struct credential *cr)
{
	crypto_generichash_state st;
	unsigned char k = (unsigned char)kind;
	crypto_generichash_init(&st, c->key, sizeof(c->key), CREDENTIAL_KEY);
	crypto_generichash_update(&st, &k, 1);
	crypto_generichash_update(&st, (const unsigned char *)token, strlen(token));
	crypto_generichash_final(&st, cr->key, CREDENTIAL_KEY);
	cr->kind = kind;
}

static size_t slot_of(const struct credential *cr)
{
	uint64_t v;
	memcpy(&v, cr->key, sizeof(v));
	return (size_t)v & (SLOTS - 1);
}

static pthread_mutex_t *stripe_of(struct credentials *c, size_t slot)
{
	return &c->stripe[slot % STRIPES];
}

static int holds(const struct credential *e, const struct credential *cr)
{
	return e->kind && e->kind == cr->kind && !sodium_memcmp(e->key, cr->key, CREDENTIAL_KEY);
}

static int fresh(const struct credentials *c, const struct credential *e)
{
	int64_t now = (int64_t)time(NULL);
	return e->stamp == credentials_stamp(c) && now_us() - e->read_us < CREDENTIAL_FRESH_US &&
	       (!e->expires_at || e->expires_at > now);
}

int credentials_find(struct credentials *c, struct credential *cr)
{
	size_t i = slot_of(cr);
	pthread_mutex_t *lock = stripe_of(c, i);
	pthread_mutex_lock(lock);
	int found = holds(&c->slot[i], cr) && fresh(c, &c->slot[i]);
	if (found)
		*cr = c->slot[i];
	pthread_mutex_unlock(lock);
	return found;
}

void credentials_keep(struct credentials *c, const struct credential *cr)
{
	size_t i = slot_of(cr);
	pthread_mutex_t *lock = stripe_of(c, i);
	pthread_mutex_lock(lock);
	c->slot[i] = *cr;
	c->slot[i].nopens = 0;
	pthread_mutex_unlock(lock);
}

void credentials_note_open(struct credentials *c, const struct credential *cr, uint64_t stamp,
			   int64_t want, int64_t got)
{
	size_t i = slot_of(cr);
	pthread_mutex_t *lock = stripe_of(c, i);
	pthread_mutex_lock(lock);
	struct credential *e = &c->slot[i];
	if (holds(e, cr) && e->read_us == cr->read_us && e->stamp == stamp &&
	    !credential_opens(e, want, &(int64_t){ 0 })) {
		if (e->nopens == CREDENTIAL_OPENS) { /* forget the oldest */
			memmove(&e->opens[0], &e->opens[1], sizeof(e->opens) - sizeof(e->opens[0]));
			e->nopens--;
		}
		e->opens[e->nopens].want = want;
		e->opens[e->nopens].got = got;
		e->nopens++;
	}
	pthread_mutex_unlock(lock);
}

int credential_opens(const struct credential *cr, int64_t want, int64_t *got)
{
	for (int i = 0; i < cr->nopens; i++)
		if (cr->opens[i].want == want) {
			*got = cr->opens[i].got;
			return 1;
		}
	return 0;
}

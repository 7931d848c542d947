/* SPDX-License-Identifier: MIT */
/*
 * credentials.h: the sessions and API tokens the server checked lately,
 * kept in memory so that a known caller's request reads no table.
 *
 * auth.c reads a caller from the database once, keeps what it read here,
 * and takes it from here while it is fresh. An entry is fresh while:
 *   - no commit of this server has written a table it was read from
 *     (sessions, api_tokens, users, locations, user_locations), compared
 *     by a stamp of their change counters (changes.h) taken before the read,
 *     so a sign-out, revocation, role change or disabled user made through
 *     the server takes effect on the next request;
 *   - it was read less than CREDENTIAL_FRESH_US ago, so a change made to
 *     the database by another process takes effect within a second;
 *   - its session or token has not expired.
 * An entry also remembers which locations its caller asked for lately and
 * whether each could be opened, under the same stamp.
 *
 * Entries live in a fixed table, in stripes each guarded by its own lock,
 * under a keyed hash of the token (BLAKE2b, with a key drawn at start): the
 * tokens themselves are not kept, as the database keeps only their SHA-256.
 * A newer entry replaces whatever held its slot. The table never grows: a
 * caller pushed out is read again.
 */
#ifndef HL_CREDENTIALS_H
#define HL_CREDENTIALS_H

#include "db/changes.h"
#include "request/request.h"

#include <stdint.h>

#define CREDENTIAL_FRESH_US 1000000LL
#define CREDENTIAL_OPENS 8
#define CREDENTIAL_KEY 32

enum credential_kind { CREDENTIAL_SESSION = 1, CREDENTIAL_TOKEN };

/* What a session or token stood for when it was read. */
struct credential {
	enum credential_kind kind;
	unsigned char key[CREDENTIAL_KEY]; /* credentials_key() of the token */
	struct identity who;
	int64_t expires_at;      /* unix seconds; 0: never */
	int64_t renewed_at;      /* a session's last renewal (unix seconds) */
	uint64_t stamp;          /* credentials_stamp() before the read */
	long long read_us;       /* when it was read (now_us) */
	int nopens;
	struct { int64_t want, got; } opens[CREDENTIAL_OPENS]; /* newest last */
};

struct credentials;

/* An empty table, comparing against the counters of `ch`: HL_ENOMEM, or
 * HL_EINVAL (logged) when `ch` lacks a table entries are read from. */
int credentials_new(struct credentials **out, const struct changes *ch);
void credentials_free(struct credentials *c);

/* The stamp to keep with what a read returns: take it before the read. */
uint64_t credentials_stamp(const struct credentials *c);

/* Set cr->kind and cr->key for `token` of `kind`. */
void credentials_key(const struct credentials *c, enum credential_kind kind, const char *token,
		     struct credential *cr);

/* Copy the fresh entry of cr's kind and key into *cr: 1, or 0 when there
 * is none and the caller must read the database. Any thread. */
int credentials_find(struct credentials *c, struct credential *cr);

/* Keep `cr` (its opens are ignored), replacing what its slot held. */
void credentials_keep(struct credentials *c, const struct credential *cr);

/* Remember that `cr`'s caller asking for location `want` (0: their first)
 * gets `got` (0: none they may open), read after `stamp` was taken. Kept
 * only while the entry is the one `cr` was copied from and `stamp` is its
 * own. */
void credentials_note_open(struct credentials *c, const struct credential *cr, uint64_t stamp,
			   int64_t want, int64_t got);

/* The answer remembered in `cr` for `want`: 1 with *got set, or 0. */
int credential_opens(const struct credential *cr, int64_t want, int64_t *got);

#endif

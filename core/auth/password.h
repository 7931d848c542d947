/* SPDX-License-Identifier: MIT */
/*
 * password.h: password hashes (argon2id, through libsodium).
 *
 * Hashing is memory-hard on purpose (64 MiB and tens of milliseconds each),
 * so at most as many run at once as there are cores: a burst of sign-ins
 * queues here instead of taking the machine's memory.
 */
#ifndef HL_PASSWORD_H
#define HL_PASSWORD_H

#include <sodium.h>

#define PASSWORD_MIN 8
#define PASSWORD_MAX 1024

/* The work a new hash takes: libsodium's interactive limits (64 MiB, a
 * fifth of a second), or with `least` the least argon2id allows (a test
 * suite's thousands of sign-ins; perf-seed's data set for them). */
static inline void password_work(int least, unsigned long long *ops, size_t *mem)
{
	*ops = least ? crypto_pwhash_OPSLIMIT_MIN : crypto_pwhash_OPSLIMIT_INTERACTIVE;
	*mem = least ? crypto_pwhash_MEMLIMIT_MIN : crypto_pwhash_MEMLIMIT_INTERACTIVE;
}
/* The work of this process's new hashes (password_least_work). A hash
 * keeps the work it was made with, so every hash verifies whatever this
 * says. Before any thread. */
void password_least_work(int least);
/* Hash `password` into `out`; 0, HL_ENOMEM, or HL_ETOOBIG when too many
 * are already waiting for a slot (the caller answers 503). */
int password_hash(const char *password, char out[crypto_pwhash_STRBYTES]);
/* 1 when `password` matches `hash`, 0 when not, -1 when too many are
 * waiting. With hash NULL (an unknown account) it checks against a fixed
 * hash, so the answer takes as long either way. */
int password_verify(const char *hash, const char *password);

#endif

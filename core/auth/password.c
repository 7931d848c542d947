/* SPDX-License-Identifier: MIT */
/*
 * password.c: argon2id hashes with a bound on how many are computed at once
 * (see password.h).
 */
#include "auth/password.h"
#include "lib/log.h"

#include <hyperlevel/hyperlevel.h>

#include <pthread.h>
#include <string.h>
#include <unistd.h>

/* Past this many waiting, more are refused rather than queued: a flood of
 * sign-ins must not hold every HTTP thread. */
#define MAX_WAITING 16

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t freed = PTHREAD_COND_INITIALIZER;
static int running, waiting, limit;
static unsigned long long ops = crypto_pwhash_OPSLIMIT_INTERACTIVE;
static size_t mem = crypto_pwhash_MEMLIMIT_INTERACTIVE;

void password_least_work(int least)
{
	password_work(least, &ops, &mem);
}

static int enter(void)
{
	pthread_mutex_lock(&lock);
	if (!limit) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		limit = cores > 0 ? (int)cores : 1;
	}
	if (running >= limit && waiting >= MAX_WAITING) {
		pthread_mutex_unlock(&lock);
		return -1;
	}
	waiting++;
	while (running >= limit)
		pthread_cond_wait(&freed, &lock);
	waiting--;
	running++;
	pthread_mutex_unlock(&lock);
	return 0;
}

static void leave(void)
{
	pthread_mutex_lock(&lock);
	running--;
	pthread_cond_signal(&freed);
	pthread_mutex_unlock(&lock);
}

int password_hash(const char *password, char out[crypto_pwhash_STRBYTES])
{
	if (enter())
		return HL_ETOOBIG;
	int rc = crypto_pwhash_str(out, password, strlen(password), ops, mem);
	leave();
	return rc ? HL_ENOMEM : 0;
}

/* The hash checked for accounts that do not exist, made on first use. */
static char dummy[crypto_pwhash_STRBYTES];
static pthread_once_t dummy_once = PTHREAD_ONCE_INIT;

static void make_dummy(void)
{
	if (crypto_pwhash_str(dummy, "not a password of anyone", 24, ops, mem))
		fatal("out of memory hashing a password");
}

int password_verify(const char *hash, const char *password)
{
	if (!hash)
		pthread_once(&dummy_once, make_dummy);
	if (enter())
		return -1;
	int ok = !crypto_pwhash_str_verify(hash ? hash : dummy, password, strlen(password));
	leave();
	return ok && hash;
}

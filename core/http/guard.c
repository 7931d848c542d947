/* SPDX-License-Identifier: MIT */
/*
 * guard.c: the worker watch of guard.h.
 *
 * Each worker owns one slot and writes it as it moves from state to state;
 * the guard's thread reads every slot ten times a second and, for a slot
 * whose state has outlived its bound, records the kick and sends the
 * worker GUARD_SIGNAL. The signal's handler does nothing: its only effect
 * is that the worker's poll() returns EINTR, which civetweb treats as a
 * broken connection, so the read in progress ends. A signal sent just as
 * the worker left the state may land elsewhere; everything there (SQLite,
 * civetweb's writes) retries on EINTR, and a body read that was not cut
 * retries too (see guard_was_cut). The signal is sent again on every tick
 * while the state lasts, so one that came too early is not lost.
 *
 * With every worker free there is nothing to watch, and the guard sleeps
 * until a worker leaves that state (an idle server wakes no thread ten
 * times a second). The worker wakes it only when it says it sleeps, so a
 * busy server pays no system call for it: the guard raises `asleep` and
 * then looks at the slots, a worker sets its state and then looks at
 * `asleep`, both sequentially consistent, so at least one of them sees
 * the other; the wake is sent under the lock the guard holds from its
 * look until it waits, so it cannot fall in between.
 */
#include "http/guard.h"
#include "lib/config.h"
#include "lib/log.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TICK_MS 100
#define PRESSED_GRACE_US 1000000LL /* what a body gets under pressure */
/* What a head gets under pressure. A client's head comes with or right
 * after the connection it opens, whatever the distance; a worker held
 * longer waits for someone who sends nothing, and every client queued
 * behind it waits too (a health check waited over a second at 1 s). */
#define PRESSED_HEAD_GRACE_US 250000LL

struct guard_slot {
	struct guard *guard;
	pthread_t thread;
	_Atomic int state;
	_Atomic unsigned seq;        /* bumped on every state entered */
	_Atomic unsigned kicked_seq; /* the state the guard interrupted */
	_Atomic long long since_us;  /* when the state began */
	_Atomic size_t got;          /* body bytes so far */
};

struct guard {
	struct guard_slot *slots;
	int nslots;
	_Atomic int taken;
	long long body_grace_us;
	long long bytes_per_s;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int stopping;
	_Atomic int closing; /* the server stops: no kept connection waits */
	_Atomic int asleep; /* waiting, untimed, for a worker to leave GUARD_FREE */
	_Atomic unsigned long long heads_closed, bodies_cut;
};

static void on_signal(int sig)
{
	(void)sig; /* the interruption is the point */
}

static int guard_signal(void)
{
	return SIGRTMIN + 1;
}

static int install_handler(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	return sigaction(guard_signal(), &sa, NULL);
}

/* When a body that began at `since` with `got` bytes must have ended. */
static long long body_deadline(const struct guard *g, long long since, size_t got, int pressed)
{
	long long grace = pressed ? PRESSED_GRACE_US : g->body_grace_us;
	return since + grace + (long long)got * 1000000 / g->bytes_per_s;
}

/* Whether slot `s`, in the state numbered `seq`, must be interrupted now;
 * counts it when so. */
static int overdue(struct guard *g, struct guard_slot *s, unsigned seq, long long now, int pressed)
{
	int state = atomic_load(&s->state);
	long long since = atomic_load(&s->since_us);
	if (state == GUARD_BODY &&
	    now > body_deadline(g, since, atomic_load(&s->got), pressed)) {
		if (atomic_exchange(&s->kicked_seq, seq) != seq)
			g->bodies_cut++;
		return 1;
	}
	if (state == GUARD_DRAIN && now - since > PRESSED_GRACE_US) {
		if (atomic_exchange(&s->kicked_seq, seq) != seq)
			g->bodies_cut++;
		return 1;
	}
	if (state == GUARD_HEAD && atomic_load(&g->closing))
		return 1;
	if (state == GUARD_HEAD && pressed && now - since > PRESSED_HEAD_GRACE_US) {
		if (atomic_exchange(&s->kicked_seq, seq) != seq)
			g->heads_closed++;
		return 1;
	}
	return 0;
}

static void watch(struct guard *g)
{
	long long now = now_us();
	int busy = 0;
	for (int i = 0; i < atomic_load(&g->taken) && i < g->nslots; i++)
		busy += atomic_load(&g->slots[i].state) != GUARD_FREE;
	int pressed = busy * 8 > g->nslots * 7;
	for (int i = 0; i < atomic_load(&g->taken) && i < g->nslots; i++) {
		struct guard_slot *s = &g->slots[i];
		unsigned seq = atomic_load(&s->seq);
		/* Checked again just before: a worker that has moved on since
		 * (or closed its connection) is left alone. */
		if (overdue(g, s, seq, now, pressed) && atomic_load(&s->seq) == seq)
			pthread_kill(s->thread, guard_signal());
	}
}

static int all_free(struct guard *g)
{
	for (int i = 0; i < atomic_load(&g->taken) && i < g->nslots; i++)
		if (atomic_load(&g->slots[i].state) != GUARD_FREE)
			return 0;
	return 1;
}

static void *run(void *arg)
{
	struct guard *g = arg;
	pthread_mutex_lock(&g->lock);
	while (!g->stopping) {
		if (all_free(g)) {
			atomic_store(&g->asleep, 1);
			if (all_free(g) && !g->stopping)
				pthread_cond_wait(&g->wake, &g->lock);
			atomic_store(&g->asleep, 0);
			continue;
		}
		struct timespec until;
		monotonic_in(TICK_MS * 1000, &until);
		pthread_cond_timedwait(&g->wake, &g->lock, &until);
		if (!g->stopping)
			watch(g);
	}
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

struct guard *guard_new(const struct config *cfg, int threads)
{
	struct guard *g = calloc(1, sizeof(*g));
	if (!g || !(g->slots = calloc((size_t)threads, sizeof(*g->slots)))) {
		free(g);
		return NULL;
	}
	g->nslots = threads;
	g->body_grace_us = cfg->body_timeout_s * 1000000LL;
	g->bytes_per_s = cfg->min_rate_kb * 1024;
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&g->wake, &attr);
	pthread_condattr_destroy(&attr);
	pthread_mutex_init(&g->lock, NULL);
	if (install_handler() || pthread_create(&g->thread, NULL, run, g)) {
		log_error("cannot start the worker guard");
		pthread_cond_destroy(&g->wake);
		pthread_mutex_destroy(&g->lock);
		free(g->slots);
		free(g);
		return NULL;
	}
	return g;
}

void guard_free(struct guard *g)
{
	if (!g)
		return;
	pthread_mutex_lock(&g->lock);
	g->stopping = 1;
	pthread_cond_signal(&g->wake);
	pthread_mutex_unlock(&g->lock);
	pthread_join(g->thread, NULL);
	pthread_cond_destroy(&g->wake);
	pthread_mutex_destroy(&g->lock);
	free(g->slots);
	free(g);
}

void guard_close_idle(struct guard *g)
{
	if (!g)
		return;
	atomic_store(&g->closing, 1);
	pthread_mutex_lock(&g->lock);
	pthread_cond_signal(&g->wake);
	pthread_mutex_unlock(&g->lock);
}

struct guard_slot *guard_attach(struct guard *g)
{
	int i = atomic_fetch_add(&g->taken, 1);
	if (i >= g->nslots)
		return NULL;
	g->slots[i].guard = g;
	g->slots[i].thread = pthread_self();
	atomic_store(&g->slots[i].kicked_seq, (unsigned)-1);
	return &g->slots[i];
}

void guard_enter(struct guard_slot *s, enum guard_state state)
{
	if (!s)
		return;
	atomic_store(&s->got, 0);
	atomic_store(&s->since_us, now_us());
	atomic_fetch_add(&s->seq, 1);
	atomic_store(&s->state, state);
	struct guard *g = s->guard;
	if (state != GUARD_FREE && atomic_load(&g->asleep)) {
		pthread_mutex_lock(&g->lock);
		pthread_cond_signal(&g->wake);
		pthread_mutex_unlock(&g->lock);
	}
}

void guard_body_progress(struct guard_slot *s, size_t got)
{
	if (s)
		atomic_store(&s->got, got);
}

int guard_was_cut(const struct guard_slot *s)
{
	return s && atomic_load(&s->kicked_seq) == atomic_load(&s->seq);
}

void guard_read_counts(struct guard *g, struct guard_counts *out)
{
	memset(out, 0, sizeof(*out));
	if (!g)
		return;
	out->heads_closed = g->heads_closed;
	out->bodies_cut = g->bodies_cut;
	for (int i = 0; i < atomic_load(&g->taken) && i < g->nslots; i++)
		out->busy += atomic_load(&g->slots[i].state) != GUARD_FREE;
}

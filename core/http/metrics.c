/* SPDX-License-Identifier: MIT */
/*
 * metrics.c: the counters of metrics.h.
 */
#include "http/metrics.h"
#include "lib/log.h"

#include <stdatomic.h>
#include <stdlib.h>

#define RELAXED memory_order_relaxed

struct metrics *metrics_new(int nroutes, int threads)
{
	struct metrics *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->nroutes = nroutes;
	m->threads = threads;
	m->started_us = now_us();
	if (!(m->route = calloc((size_t)nroutes + 2, sizeof(*m->route)))) {
		free(m);
		return NULL;
	}
	return m;
}

void metrics_free(struct metrics *m)
{
	if (!m)
		return;
	free(m->route);
	free(m);
}

int metrics_bucket(uint64_t us)
{
	if (us < METRICS_SUB)
		return (int)us;
	int e = 63 - __builtin_clzll(us); /* us >= 16, so e >= 4 */
	int sub = (int)(us >> (e - 4)) - METRICS_SUB;
	int b = METRICS_SUB + (e - 4) * METRICS_SUB + sub;
	return b < METRICS_BUCKETS ? b : METRICS_BUCKETS - 1;
}

double metrics_bucket_middle(int b)
{
	if (b < METRICS_SUB)
		return b + 0.5;
	int e = 4 + (b - METRICS_SUB) / METRICS_SUB;
	int sub = (b - METRICS_SUB) % METRICS_SUB;
	double width = (double)(1ull << (e - 4));
	return (METRICS_SUB + sub) * width + width / 2;
}

static void raise_peak(_Atomic int *peak, int now)
{
	int seen = atomic_load_explicit(peak, RELAXED);
	while (now > seen && !atomic_compare_exchange_weak(peak, &seen, now))
		;
}

void metrics_begin(struct metrics *m)
{
	if (m)
		raise_peak(&m->busy_peak, ++m->busy);
}

void metrics_end(struct metrics *m, int slot, int status, long long us, size_t bytes_in,
		 size_t bytes_plain, size_t bytes_sent, uint64_t statements)
{
	if (!m)
		return;
	m->busy--;
	atomic_fetch_add_explicit(&m->busy_us, (uint64_t)us, RELAXED);
	metrics_route(m, slot, status, us, bytes_in, bytes_plain, bytes_sent, statements);
}

void metrics_route(struct metrics *m, int slot, int status, long long us, size_t bytes_in,
		   size_t bytes_plain, size_t bytes_sent, uint64_t statements)
{
	if (!m)
		return;
	struct route_metrics *rm = &m->route[slot];
	atomic_fetch_add_explicit(&rm->count, 1, RELAXED);
	int cls = status / 100;
	atomic_fetch_add_explicit(&rm->status[cls >= 1 && cls <= 5 ? cls : 0], 1, RELAXED);
	atomic_fetch_add_explicit(&rm->bytes_in, bytes_in, RELAXED);
	atomic_fetch_add_explicit(&rm->bytes_plain, bytes_plain, RELAXED);
	atomic_fetch_add_explicit(&rm->bytes_sent, bytes_sent, RELAXED);
	atomic_fetch_add_explicit(&rm->time_us, (uint64_t)us, RELAXED);
	atomic_fetch_add_explicit(&rm->statements, statements, RELAXED);
	atomic_fetch_add_explicit(&rm->bucket[metrics_bucket(us > 0 ? (uint64_t)us : 0)], 1, RELAXED);
}

void metrics_connection(struct metrics *m, int delta)
{
	if (!m)
		return;
	int held = atomic_fetch_add(&m->held, delta) + delta;
	raise_peak(&m->held_peak, held);
	/* Track the stretches when every worker holds a connection. */
	if (delta > 0 && held == m->threads) {
		m->all_held_since = now_us();
	} else if (delta < 0 && held == m->threads - 1) {
		long long since = atomic_exchange(&m->all_held_since, 0);
		if (since)
			m->all_held_us += (uint64_t)(now_us() - since);
	}
}

double metrics_percentile(const struct route_metrics *rm, double q)
{
	uint64_t total = 0;
	for (int b = 0; b < METRICS_BUCKETS; b++)
		total += rm->bucket[b];
	if (!total)
		return 0;
	/* The rank of the q-th value, counted from 1. */
	uint64_t rank = (uint64_t)(q * (double)total + 0.999999);
	if (rank < 1)
		rank = 1;
	uint64_t seen = 0;
	for (int b = 0; b < METRICS_BUCKETS; b++) {
		seen += rm->bucket[b];
		if (seen >= rank)
			return metrics_bucket_middle(b);
	}
	return metrics_bucket_middle(METRICS_BUCKETS - 1);
}

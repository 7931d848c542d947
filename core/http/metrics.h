/* SPDX-License-Identifier: MIT */
/*
 * metrics.h: what the server counts about itself while it serves, cheaply
 * enough to count every request: per route pattern the requests, their
 * status classes, bytes in and out (before and after compression) and a
 * latency histogram; for the whole server the workers' use and the
 * connections they hold.
 *
 * Counters are relaxed atomics bumped by the worker that served the
 * request; nothing is locked on the request path. Latencies go into
 * log-linear buckets (16 per power of two), so a percentile read from them
 * is within about 3 % of the true value. metrics_report.c turns the figures
 * into the JSON and Prometheus answers.
 */
#ifndef HL_METRICS_H
#define HL_METRICS_H

#include <stddef.h>
#include <stdint.h>

#define METRICS_SUB 16                   /* buckets per power of two */
#define METRICS_BUCKETS (METRICS_SUB * 34) /* 1 us up to about 4.7 hours */

struct route_metrics {
	_Atomic uint64_t count;
	_Atomic uint64_t status[6];   /* by hundreds: [2] is 2xx */
	_Atomic uint64_t bytes_in;    /* request bodies */
	_Atomic uint64_t bytes_plain; /* answer bodies before compression */
	_Atomic uint64_t bytes_sent;  /* answer bodies as sent */
	_Atomic uint64_t time_us;     /* sum of latencies */
	_Atomic uint64_t statements;  /* SQL statement runs (db_conn_reset) */
	_Atomic uint32_t bucket[METRICS_BUCKETS];
};

struct metrics {
	int nroutes;                  /* route ids, then the two extra slots */
	struct route_metrics *route;
	long long started_us;
	int threads;
	_Atomic int busy, busy_peak;  /* workers inside a request */
	_Atomic uint64_t busy_us;     /* time workers spent in requests */
	_Atomic int held, held_peak;  /* connections held by a worker */
	_Atomic uint64_t all_held_us; /* time every worker held a connection,
				       * when a new client has to wait */
	_Atomic long long all_held_since;
};

/* Slots after the routes' own: files of the web folder, and requests that
 * matched no route. */
#define METRICS_STATIC(m) ((m)->nroutes)
#define METRICS_NO_ROUTE(m) ((m)->nroutes + 1)

struct metrics *metrics_new(int nroutes, int threads);
void metrics_free(struct metrics *m);

/* A request begins and ends in a worker (busy counts and time). */
void metrics_begin(struct metrics *m);
void metrics_end(struct metrics *m, int slot, int status, long long us, size_t bytes_in,
		 size_t bytes_plain, size_t bytes_sent, uint64_t statements);
/* The route's share of metrics_end alone: for an answer made inside a
 * request (dispatch_inside), whose worker time that request counts. */
void metrics_route(struct metrics *m, int slot, int status, long long us, size_t bytes_in,
		   size_t bytes_plain, size_t bytes_sent, uint64_t statements);
/* A worker takes (+1) or lets go of (-1) a connection. */
void metrics_connection(struct metrics *m, int delta);

/* The latency below which a fraction q (0.5, 0.95 ...) of the route's
 * requests fell, in microseconds; 0 without requests. */
double metrics_percentile(const struct route_metrics *rm, double q);

/* Bucket arithmetic, exposed for the unit test. */
int metrics_bucket(uint64_t us);
double metrics_bucket_middle(int bucket);

#endif

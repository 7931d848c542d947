/* SPDX-License-Identifier: MIT */
/*
 * metrics_report.c: the server's figures for people and for scrapers.
 * GET /api/admin/metrics answers JSON to agency administrators; GET /metrics
 * answers the Prometheus text format to administrators or to a scraper that
 * sends the metrics_token setting as a bearer token.
 *
 * Besides the counters of metrics.h an answer holds the read cache's use,
 * the jobs' runs, the events' deliveries, memory, the SQLite settings in force and the row counts
 * of the tables that grow with the agency's data (those with a location_id,
 * the audit log and sessions). Counting rows reads whole indexes, so the
 * counts are kept for 30 s; a count that failed is not kept.
 */
#include "admin/admin.h"
#include "db/changes.h"
#include "http/cache.h"
#include "http/guard.h"
#include "http/live.h"
#include "http/metrics.h"
#include "lib/log.h"
#include "platform/events.h"
#include "platform/jobs.h"
#include "request/request.h"
#include "server.h"

#include <malloc.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define COUNTS_KEPT_US (30 * 1000000LL)
#define MAX_JOBS 64

/* ---- gathering ------------------------------------------------------------ */

struct row_counts {
	pthread_mutex_t lock;
	long long counted_at; /* 0: never */
	int n;
	int table[CHANGES_MAX_TABLES];
	int64_t rows[CHANGES_MAX_TABLES];
};

static struct row_counts counts = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int is_big(const struct changes *ch, int t)
{
	const char *name = changes_table_name(ch, t);
	return (changes_has_location(ch, t) && strncmp(name, "sqlite_", 7)) ||
	       !strcmp(name, "audit_log") || !strcmp(name, "sessions");
}

static int count_rows(struct hl_req *req, const struct changes *ch)
{
	struct hl_db *db = hl_read(req);
	int n = 0;
	for (int t = 0; t < changes_count(ch); t++) {
		if (!is_big(ch, t))
			continue;
		char sql[200];
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM \"%s\"", changes_table_name(ch, t));
		sqlite3_stmt *st = hl_stmt(db, sql);
		if (!st || sqlite3_step(st) != SQLITE_ROW)
			return HL_EDB;
		counts.table[n] = t;
		counts.rows[n++] = sqlite3_column_int64(st, 0);
	}
	counts.n = n;
	return 0;
}

/* The row counts, counted again when older than 30 s; the lock is held
 * while the caller writes them out (release with rows_done). */
static int rows_begin(struct hl_req *req)
{
	pthread_mutex_lock(&counts.lock);
	long long now = now_us();
	if (counts.counted_at && now - counts.counted_at < COUNTS_KEPT_US)
		return 0;
	int rc = count_rows(req, db_changes(req->srv->db));
	counts.counted_at = rc ? 0 : now;
	if (rc)
		counts.n = 0;
	return rc;
}

static void rows_done(void)
{
	pthread_mutex_unlock(&counts.lock);
}

/* Where the process's memory is: resident (all of it, its peak, the
 * anonymous part, which leaves out the database's mapped pages), SQLite's
 * page caches (bounded by sqlite_cache_mb per connection) and prepared
 * statements (1,024 at most per connection), and the heap
 * the C library keeps: in use, and free but not given back. The last two
 * walk every malloc arena under its lock, which is fine for an admin's
 * request and why nothing on a hot path reads them. */
struct memory {
	long long rss, peak, anon, heap_used, heap_free;
	struct db_cache_usage sqlite;
};

static void memory(struct memory *m, const struct server *srv)
{
	char line[256];
	memset(m, 0, sizeof(*m));
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f)) {
		long long kb;
		if (sscanf(line, "VmRSS: %lld kB", &kb) == 1)
			m->rss = kb * 1024;
		else if (sscanf(line, "VmHWM: %lld kB", &kb) == 1)
			m->peak = kb * 1024;
		else if (sscanf(line, "RssAnon: %lld kB", &kb) == 1)
			m->anon = kb * 1024;
	}
	if (f)
		fclose(f);
	db_cache_usage(srv->db, &m->sqlite);
#ifdef __GLIBC__
	struct mallinfo2 mi = mallinfo2();
	m->heap_used = (long long)(mi.uordblks + mi.hblkhd);
	m->heap_free = (long long)mi.fordblks;
#endif
}

static const char *const pragmas[] = {
	"journal_mode", "synchronous", "cache_size", "mmap_size", "page_size", "temp_store",
	"busy_timeout", "foreign_keys", "recursive_triggers", "page_count", "freelist_count",
};
#define NPRAGMAS (sizeof(pragmas) / sizeof(pragmas[0]))

/* A PRAGMA's value on a read connection, as text ("" when it failed). */
static const char *pragma(struct hl_req *req, const char *name)
{
	char sql[64];
	snprintf(sql, sizeof(sql), "PRAGMA %s", name);
	sqlite3_stmt *st = hl_stmt(hl_read(req), sql);
	if (!st || sqlite3_step(st) != SQLITE_ROW)
		return "";
	return hl_strndup(req, (const char *)sqlite3_column_text(st, 0),
			  (size_t)sqlite3_column_bytes(st, 0));
}

static int is_number(const char *s)
{
	if (*s == '-')
		s++;
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* The method and pattern of a metrics slot. */
static void slot_name(const struct server *srv, int slot, const char **method, const char **pattern)
{
	int n;
	const struct route_entry *const *all = router_entries(srv->router, &n);
	*method = "GET";
	*pattern = "(static)";
	if (slot < n && all[slot]) {
		*method = all[slot]->route.method;
		*pattern = all[slot]->route.pattern;
	} else if (slot == METRICS_NO_ROUTE(srv->metrics)) {
		*method = "*";
		*pattern = "(no route)";
	} else if (slot < n) {
		*pattern = NULL; /* a route of a module whose init failed */
	}
}

/* ---- JSON ----------------------------------------------------------------- */

static void put_int(struct hl_json *j, const char *key, int64_t v)
{
	hl_json_key(j, key);
	hl_json_int(j, v);
}

static void put_ms(struct hl_json *j, const char *key, double us)
{
	hl_json_key(j, key);
	hl_json_double(j, (double)(int64_t)(us + 0.5) / 1000.0);
}

static void json_route(struct hl_json *j, const struct server *srv, int slot)
{
	const struct route_metrics *rm = &srv->metrics->route[slot];
	const char *method, *pattern;
	slot_name(srv, slot, &method, &pattern);
	if (!pattern)
		return;
	hl_json_object(j);
	hl_json_key(j, "method");
	hl_json_string(j, method);
	hl_json_key(j, "pattern");
	hl_json_string(j, pattern);
	put_int(j, "count", (int64_t)rm->count);
	hl_json_key(j, "status");
	hl_json_object(j);
	for (int c = 1; c <= 5; c++) {
		char name[4] = { (char)('0' + c), 'x', 'x', 0 };
		put_int(j, name, (int64_t)rm->status[c]);
	}
	hl_json_object_end(j);
	put_ms(j, "p50_ms", metrics_percentile(rm, 0.50));
	put_ms(j, "p95_ms", metrics_percentile(rm, 0.95));
	put_ms(j, "p99_ms", metrics_percentile(rm, 0.99));
	put_ms(j, "mean_ms", rm->count ? (double)rm->time_us / (double)rm->count : 0);
	put_int(j, "bytes_in", (int64_t)rm->bytes_in);
	put_int(j, "bytes_out", (int64_t)rm->bytes_plain);
	put_int(j, "bytes_sent", (int64_t)rm->bytes_sent);
	put_int(j, "statements", (int64_t)rm->statements);
	struct cache_stats cs = cache_route_stats(srv->cache, slot);
	put_int(j, "cache_hits", (int64_t)cs.hits);
	put_int(j, "cache_misses", (int64_t)cs.misses);
	put_int(j, "cache_invalidated", (int64_t)cs.invalidated);
	hl_json_object_end(j);
}

static void json_workers(struct hl_json *j, const struct server *srv)
{
	const struct metrics *m = srv->metrics;
	double up_us = (double)(now_us() - m->started_us);
	hl_json_key(j, "workers");
	hl_json_object(j);
	put_int(j, "threads", m->threads);
	put_int(j, "busy", m->busy);
	put_int(j, "busy_peak", m->busy_peak);
	hl_json_key(j, "utilisation");
	hl_json_double(j, up_us > 0 ? (double)m->busy_us / (up_us * m->threads) : 0);
	put_int(j, "connections", m->held);
	put_int(j, "connections_peak", m->held_peak);
	long long since = m->all_held_since;
	put_ms(j, "all_workers_held_ms",
		(double)m->all_held_us + (since ? (double)(now_us() - since) : 0));
	struct guard_counts g;
	guard_read_counts(srv->guard, &g);
	put_int(j, "slow_heads_closed", (int64_t)g.heads_closed);
	put_int(j, "slow_bodies_cut", (int64_t)g.bodies_cut);
	hl_json_object_end(j);
}

static void json_jobs(struct hl_json *j, struct jobs *jobs)
{
	struct job_stat st[MAX_JOBS];
	int n = jobs ? jobs_snapshot(jobs, st, MAX_JOBS) : 0;
	hl_json_key(j, "jobs");
	hl_json_array(j);
	for (int i = 0; i < n && i < MAX_JOBS; i++) {
		hl_json_object(j);
		hl_json_key(j, "name");
		hl_json_string(j, st[i].name);
		put_int(j, "runs", st[i].runs);
		put_int(j, "failures", st[i].failures);
		put_int(j, "overruns", st[i].overruns);
		put_int(j, "last_ms", st[i].last_ms);
		put_int(j, "max_ms", st[i].max_ms);
		put_int(j, "total_ms", st[i].total_ms);
		put_int(j, "next_in_ms", st[i].next_in_ms);
		put_int(j, "period_ms", st[i].period_ms);
		hl_json_object_end(j);
	}
	hl_json_array_end(j);
}

static void json_events(struct hl_json *j, struct events *events)
{
	struct event_stat st;
	events_snapshot(events, &st);
	hl_json_key(j, "events");
	hl_json_object(j);
	put_int(j, "handlers", st.handlers);
	put_int(j, "published", st.published);
	put_int(j, "delivered", st.delivered);
	put_int(j, "failed", st.failed);
	put_int(j, "dropped", st.dropped);
	put_int(j, "queued", st.queued);
	hl_json_object_end(j);
}

static void json_live(struct hl_json *j, struct live *live)
{
	struct live_stat st;
	live_snapshot(live, &st);
	hl_json_key(j, "live");
	hl_json_object(j);
	put_int(j, "connections", st.connections);
	put_int(j, "opened", st.opened);
	put_int(j, "frames", st.frames);
	put_int(j, "bytes", st.bytes);
	put_int(j, "cut_slow", st.slow);
	put_int(j, "signed_out", st.signed_out);
	put_int(j, "rechecked", st.rechecked);
	put_int(j, "refused", st.refused);
	put_int(j, "kept", st.kept);
	put_int(j, "dropped", st.dropped);
	hl_json_object_end(j);
}

static void json_sqlite(struct hl_json *j, struct hl_req *req)
{
	hl_json_key(j, "sqlite");
	hl_json_object(j);
	for (size_t i = 0; i < NPRAGMAS; i++) {
		const char *v = pragma(req, pragmas[i]);
		hl_json_key(j, pragmas[i]);
		if (is_number(v))
			hl_json_int(j, strtoll(v, NULL, 10));
		else
			hl_json_string(j, v);
	}
	hl_json_object_end(j);
}

static void json_tables(struct hl_json *j, struct hl_req *req)
{
	const struct changes *ch = db_changes(req->srv->db);
	int failed = rows_begin(req);
	hl_json_key(j, "tables");
	if (failed) {
		hl_json_null(j);
	} else {
		hl_json_object(j);
		for (int i = 0; i < counts.n; i++)
			put_int(j, changes_table_name(ch, counts.table[i]), counts.rows[i]);
		hl_json_object_end(j);
	}
	rows_done();
}

static int metrics_json(struct hl_req *req)
{
	const struct server *srv = req->srv;
	struct memory mem;
	uint64_t entries, bytes;
	memory(&mem, srv);
	cache_usage(srv->cache, &entries, &bytes);
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	put_int(j, "uptime_s", (now_us() - srv->metrics->started_us) / 1000000);
	hl_json_key(j, "routes");
	hl_json_array(j);
	for (int slot = 0; slot < srv->metrics->nroutes + 2; slot++)
		json_route(j, srv, slot);
	hl_json_array_end(j);
	json_workers(j, srv);
	hl_json_key(j, "cache");
	hl_json_object(j);
	hl_json_key(j, "enabled");
	hl_json_bool(j, srv->cache != NULL);
	put_int(j, "entries", (int64_t)entries);
	put_int(j, "bytes", (int64_t)bytes);
	put_int(j, "limit_bytes", srv->cache ? srv->cfg->cache_mb << 20 : 0);
	hl_json_object_end(j);
	hl_json_key(j, "memory");
	hl_json_object(j);
	put_int(j, "rss_bytes", mem.rss);
	put_int(j, "rss_peak_bytes", mem.peak);
	put_int(j, "anon_bytes", mem.anon);
	put_int(j, "sqlite_page_cache_bytes", mem.sqlite.page_bytes);
	put_int(j, "sqlite_statements", mem.sqlite.statements);
	put_int(j, "sqlite_block_cache_bytes", mem.sqlite.block_bytes);
	put_int(j, "heap_used_bytes", mem.heap_used);
	put_int(j, "heap_free_bytes", mem.heap_free);
	hl_json_object_end(j);
	json_jobs(j, srv->jobs);
	json_events(j, srv->events);
	json_live(j, srv->live);
	json_sqlite(j, req);
	json_tables(j, req);
	hl_json_object_end(j);
	return 0;
}

/* ---- Prometheus ------------------------------------------------------------- */

static void label(struct buf *b, const char *name, const char *value)
{
	buf_printf(b, "%s=\"", name);
	for (const char *p = value; *p; p++) {
		if (*p == '\\' || *p == '"')
			buf_printf(b, "\\%c", *p);
		else if (*p == '\n')
			buf_printf(b, "\\n");
		else
			buf_append(b, p, 1);
	}
	buf_append(b, "\"", 1);
}

static void route_labels(struct buf *b, const char *metric, const char *method, const char *pattern)
{
	buf_printf(b, "%s{", metric);
	label(b, "method", method);
	buf_append(b, ",", 1);
	label(b, "route", pattern);
}

static void help(struct buf *b, const char *name, const char *type, const char *text)
{
	buf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}

/* The route slots worth a line (routes that were asked for), one family
 * of samples at a time: the text format wants each family's lines
 * together. */
enum family { REQUESTS, DURATION, BYTES, STATEMENTS, CACHE, INVALIDATED };

static void prom_family(struct buf *b, const struct server *srv, enum family f)
{
	static const double quantiles[] = { 0.5, 0.95, 0.99 };
	for (int slot = 0; slot < srv->metrics->nroutes + 2; slot++) {
		const struct route_metrics *rm = &srv->metrics->route[slot];
		struct cache_stats cs = cache_route_stats(srv->cache, slot);
		const char *m, *p;
		slot_name(srv, slot, &m, &p);
		if (!p || !rm->count || ((f == CACHE || f == INVALIDATED) && !(cs.hits + cs.misses)))
			continue;
		switch (f) {
		case REQUESTS:
			for (int c = 1; c <= 5; c++) {
				route_labels(b, "hyperlevel_requests_total", m, p);
				buf_printf(b, ",status=\"%dxx\"} %llu\n", c, (unsigned long long)rm->status[c]);
			}
			break;
		case DURATION:
			for (size_t q = 0; q < sizeof(quantiles) / sizeof(quantiles[0]); q++) {
				route_labels(b, "hyperlevel_request_duration_seconds", m, p);
				buf_printf(b, ",quantile=\"%g\"} %.6f\n", quantiles[q],
					   metrics_percentile(rm, quantiles[q]) / 1e6);
			}
			route_labels(b, "hyperlevel_request_duration_seconds_sum", m, p);
			buf_printf(b, "} %.6f\n", (double)rm->time_us / 1e6);
			route_labels(b, "hyperlevel_request_duration_seconds_count", m, p);
			buf_printf(b, "} %llu\n", (unsigned long long)rm->count);
			break;
		case BYTES:
			route_labels(b, "hyperlevel_response_bytes_total", m, p);
			buf_printf(b, ",stage=\"plain\"} %llu\n", (unsigned long long)rm->bytes_plain);
			route_labels(b, "hyperlevel_response_bytes_total", m, p);
			buf_printf(b, ",stage=\"sent\"} %llu\n", (unsigned long long)rm->bytes_sent);
			break;
		case STATEMENTS:
			route_labels(b, "hyperlevel_sql_statements_total", m, p);
			buf_printf(b, "} %llu\n", (unsigned long long)rm->statements);
			break;
		case CACHE:
			route_labels(b, "hyperlevel_cache_requests_total", m, p);
			buf_printf(b, ",result=\"hit\"} %llu\n", (unsigned long long)cs.hits);
			route_labels(b, "hyperlevel_cache_requests_total", m, p);
			buf_printf(b, ",result=\"miss\"} %llu\n", (unsigned long long)cs.misses);
			break;
		case INVALIDATED:
			route_labels(b, "hyperlevel_cache_invalidations_total", m, p);
			buf_printf(b, "} %llu\n", (unsigned long long)cs.invalidated);
			break;
		}
	}
}

static void prom_routes(struct buf *b, const struct server *srv)
{
	help(b, "hyperlevel_requests_total", "counter", "Requests answered, by route and status class.");
	prom_family(b, srv, REQUESTS);
	help(b, "hyperlevel_request_duration_seconds", "summary", "Time to answer, by route.");
	prom_family(b, srv, DURATION);
	help(b, "hyperlevel_response_bytes_total", "counter",
	     "Answer bodies, before (plain) and after (sent) compression.");
	prom_family(b, srv, BYTES);
	help(b, "hyperlevel_sql_statements_total", "counter",
	     "SQL statements the route's requests ran (a cached answer, only the sign-in's).");
	prom_family(b, srv, STATEMENTS);
	help(b, "hyperlevel_cache_requests_total", "counter", "Read cache lookups, by result.");
	prom_family(b, srv, CACHE);
	help(b, "hyperlevel_cache_invalidations_total", "counter",
	     "Cache misses whose kept answer a write had made out of date.");
	prom_family(b, srv, INVALIDATED);
}

static void gauge(struct buf *b, const char *name, const char *text, double v)
{
	help(b, name, "gauge", text);
	buf_printf(b, "%s %.17g\n", name, v);
}

static void counter(struct buf *b, const char *name, const char *text, long long v)
{
	help(b, name, "counter", text);
	buf_printf(b, "%s %lld\n", name, v);
}

static void prom_server(struct buf *b, const struct server *srv)
{
	const struct metrics *m = srv->metrics;
	struct memory mem;
	uint64_t entries, bytes;
	memory(&mem, srv);
	cache_usage(srv->cache, &entries, &bytes);
	gauge(b, "hyperlevel_workers", "HTTP worker threads.", m->threads);
	gauge(b, "hyperlevel_workers_busy", "Workers inside a request now.", m->busy);
	help(b, "hyperlevel_worker_busy_seconds_total", "counter", "Time workers spent in requests.");
	buf_printf(b, "hyperlevel_worker_busy_seconds_total %.6f\n", (double)m->busy_us / 1e6);
	gauge(b, "hyperlevel_connections", "Connections held by a worker now.", m->held);
	struct guard_counts g;
	guard_read_counts(srv->guard, &g);
	counter(b, "hyperlevel_slow_heads_closed_total",
		"Idle connections and slow heads closed while workers were short.",
		(long long)g.heads_closed);
	counter(b, "hyperlevel_slow_bodies_cut_total", "Request bodies cut for arriving too slowly.",
		(long long)g.bodies_cut);
	gauge(b, "hyperlevel_resident_memory_bytes", "Resident memory.", (double)mem.rss);
	gauge(b, "hyperlevel_anonymous_memory_bytes", "Resident memory not backed by a file.",
	      (double)mem.anon);
	gauge(b, "hyperlevel_sqlite_page_cache_bytes", "What SQLite's page caches hold.",
	      (double)mem.sqlite.page_bytes);
	gauge(b, "hyperlevel_sqlite_statements", "Prepared statements kept.",
	      (double)mem.sqlite.statements);
	gauge(b, "hyperlevel_sqlite_block_cache_bytes",
	      "Small blocks SQLite freed, kept by its connections for reuse.",
	      (double)mem.sqlite.block_bytes);
	gauge(b, "hyperlevel_heap_used_bytes", "Heap memory in use.", (double)mem.heap_used);
	gauge(b, "hyperlevel_heap_free_bytes", "Heap memory free but kept by the allocator.",
	      (double)mem.heap_free);
	gauge(b, "hyperlevel_cache_entries", "Answers in the read cache.", (double)entries);
	gauge(b, "hyperlevel_cache_bytes", "Memory of the read cache.", (double)bytes);
}

static void job_family(struct buf *b, const struct job_stat *st, int n, const char *name,
		       const char *text, int seconds)
{
	help(b, name, "counter", text);
	for (int i = 0; i < n && i < MAX_JOBS; i++) {
		buf_printf(b, "%s{", name);
		label(b, "job", st[i].name);
		if (seconds)
			buf_printf(b, "} %.3f\n", (double)st[i].total_ms / 1e3);
		else
			buf_printf(b, "} %lld\n", st[i].overruns);
	}
}

static void prom_jobs(struct buf *b, struct jobs *jobs)
{
	struct job_stat st[MAX_JOBS];
	int n = jobs ? jobs_snapshot(jobs, st, MAX_JOBS) : 0;
	help(b, "hyperlevel_job_slices_total", "counter", "Job slices run, by job and result.");
	for (int i = 0; i < n && i < MAX_JOBS; i++)
		for (int failed = 0; failed < 2; failed++) {
			buf_printf(b, "hyperlevel_job_slices_total{");
			label(b, "job", st[i].name);
			buf_printf(b, ",result=\"%s\"} %lld\n", failed ? "failed" : "ok",
				   failed ? st[i].failures : st[i].runs - st[i].failures);
		}
	job_family(b, st, n, "hyperlevel_job_overruns_total", "Job slices over their budget.", 0);
	job_family(b, st, n, "hyperlevel_job_seconds_total", "Time spent in job slices.", 1);
}

static void prom_events(struct buf *b, struct events *events)
{
	struct event_stat st;
	events_snapshot(events, &st);
	counter(b, "hyperlevel_events_published_total",
		"Events handed over after their transaction committed.", st.published);
	help(b, "hyperlevel_event_deliveries_total", "counter",
	     "Event handler calls, by result (failed: rolled back).");
	buf_printf(b, "hyperlevel_event_deliveries_total{result=\"ok\"} %lld\n", st.delivered);
	buf_printf(b, "hyperlevel_event_deliveries_total{result=\"failed\"} %lld\n", st.failed);
	counter(b, "hyperlevel_events_dropped_total", "Events dropped: the queue was full.",
		st.dropped);
	gauge(b, "hyperlevel_events_queued", "Events waiting for their handlers now.",
	      (double)st.queued);
}

static void prom_live(struct buf *b, struct live *live)
{
	struct live_stat st;
	live_snapshot(live, &st);
	gauge(b, "hyperlevel_live_connections", "Live-update connections open now.",
	      (double)st.connections);
	counter(b, "hyperlevel_live_frames_total", "Event frames queued for live connections.",
		st.frames);
	counter(b, "hyperlevel_live_bytes_total", "Bytes written to live connections.", st.bytes);
	counter(b, "hyperlevel_live_cut_slow_total", "Live connections cut off: they did not keep up.",
		st.slow);
	counter(b, "hyperlevel_live_signed_out_total", "Live connections closed: the session ended.",
		st.signed_out);
	counter(b, "hyperlevel_live_rechecked_total",
		"Live connections checked again at once after a change of rights.", st.rechecked);
	counter(b, "hyperlevel_live_refused_total",
		"Live connections refused: the user's or the address's share was open.", st.refused);
}

static void prom_tables(struct buf *b, struct hl_req *req)
{
	const struct changes *ch = db_changes(req->srv->db);
	help(b, "hyperlevel_table_rows", "gauge", "Rows of the tables that grow with the data.");
	if (!rows_begin(req))
		for (int i = 0; i < counts.n; i++) {
			buf_printf(b, "hyperlevel_table_rows{");
			label(b, "table", changes_table_name(ch, counts.table[i]));
			buf_printf(b, "} %lld\n", (long long)counts.rows[i]);
		}
	rows_done();
}

/* An administrator's session, or the scraper's token. */
static int may_scrape(struct hl_req *req)
{
	if (req->who.user_id && req->who.role == ROLE_AGENCY_ADMIN && !req->who.token_location)
		return 1; /* a token limited to one location sees no agency figures */
	const char *want = CONFIG_LIVE(req->srv->cfg, metrics_token);
	const char *auth = hl_header(req, "Authorization");
	if (!*want || !auth || strncasecmp(auth, "Bearer ", 7))
		return 0;
	size_t n = strlen(want);
	return strlen(auth + 7) == n && !sodium_memcmp(auth + 7, want, n);
}

static int metrics_text(struct hl_req *req)
{
	if (!may_scrape(req))
		return hl_reply_error(req, req->who.user_id ? 403 : 401,
				      req->who.user_id ? "forbidden" : "unauthorized",
				      "sign in as an administrator, or send the metrics token");
	struct buf b = { 0 };
	prom_routes(&b, req->srv);
	prom_server(&b, req->srv);
	prom_jobs(&b, req->srv->jobs);
	prom_events(&b, req->srv->events);
	prom_live(&b, req->srv->live);
	prom_tables(&b, req);
	int rc = b.oom ? HL_ENOMEM
		       : hl_reply_raw(req, 200, "text/plain; version=0.0.4; charset=utf-8", b.data, b.len);
	buf_release(&b);
	return rc;
}

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/admin/metrics", .handler = metrics_json,
	  .access = HL_ACCESS_ADMIN, .flags = HL_ROUTE_NO_LOCATION },
	{ .method = "GET", .pattern = "/metrics", .handler = metrics_text, .access = HL_ACCESS_PUBLIC },
};

int metrics_register(struct router *r)
{
	return router_add_table(r, routes, sizeof(routes) / sizeof(routes[0]), "core");
}

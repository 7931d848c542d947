/* SPDX-License-Identifier: MIT */
/*
 * jobs.c: the scheduler of jobs.h.
 */
#include "jobs.h"
#include "log.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PAUSE_MS 10            /* between slices, so request writers get in */
#define MAX_BACKOFF_MS 3600000 /* a failing job retries at least hourly */

struct job {
	struct mod_job *spec;
	long long next_us;
	int failures;
};

struct hl_job_run {
	struct hl_db *db;
	int64_t cursor;
	const struct job *job;
};

struct jobs {
	struct db *db;
	struct job *list;
	int n;
	int stop;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
};

HL_API struct hl_db *hl_job_db(struct hl_job_run *run)
{
	return run->db;
}

HL_API int64_t hl_job_cursor(const struct hl_job_run *run)
{
	return run->cursor;
}

HL_API void hl_job_set_cursor(struct hl_job_run *run, int64_t cursor)
{
	run->cursor = cursor;
}

HL_API const char *hl_job_setting(const struct hl_job_run *run, const char *key)
{
	return mod_setting(run->job->spec->mod, key);
}

static int load_cursor(struct hl_db *w, const char *name, int64_t *cursor)
{
	sqlite3_stmt *st = hl_stmt(w, "SELECT cursor FROM job_state WHERE name = ?1");
	if (!st)
		return HL_EDB;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	int step = sqlite3_step(st);
	*cursor = step == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	return step == SQLITE_ROW || step == SQLITE_DONE ? 0 : HL_EDB;
}

/* Record a run: the counters, and the cursor when it succeeded (inside the
 * slice's transaction then; a failure is recorded in a transaction of its
 * own and leaves the cursor where the last success put it). */
static int record(struct hl_db *w, const char *name, int64_t cursor, int ok, long long ms,
		  const char *error)
{
	sqlite3_stmt *st = hl_stmt(w,
		"INSERT INTO job_state (name, cursor, runs, failures, last_run_at, last_ms, last_error)"
		" VALUES (?1, ?2, 1, ?3, strftime('%Y-%m-%dT%H:%M:%SZ','now'), ?4, ?5)"
		" ON CONFLICT (name) DO UPDATE SET cursor = CASE WHEN ?3 THEN cursor ELSE ?2 END,"
		" runs = runs + 1,"
		" failures = CASE WHEN ?3 THEN failures + 1 ELSE 0 END,"
		" last_run_at = excluded.last_run_at, last_ms = ?4, last_error = ?5");
	if (!st)
		return HL_EDB;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, cursor);
	sqlite3_bind_int(st, 3, !ok);
	sqlite3_bind_int64(st, 4, ms);
	if (error)
		sqlite3_bind_text(st, 5, error, -1, SQLITE_STATIC);
	return sqlite3_step(st) == SQLITE_DONE ? 0 : HL_EDB;
}

/* Run one slice of `job`; returns its result (HL_JOB_MORE/DONE or < 0). */
static int run_slice(struct jobs *js, struct job *job)
{
	struct hl_job_run run = { .job = job };
	const char *name = job->spec->name;
	run.db = db_write_lock(js->db);
	long long start = now_us();
	int rc = db_begin(run.db);
	if (!rc)
		rc = load_cursor(run.db, name, &run.cursor);
	if (!rc)
		rc = job->spec->job.slice(&run);
	long long ms = (now_us() - start) / 1000;
	if (rc >= 0 && (record(run.db, name, run.cursor, 1, ms, NULL) || db_commit(run.db)))
		rc = HL_EDB;
	if (rc < 0) {
		db_rollback(run.db);
		if (!db_begin(run.db) &&
		    (record(run.db, name, 0, 0, ms, hl_strerror(rc)) || db_commit(run.db)))
			db_rollback(run.db);
	}
	db_write_unlock(js->db, run.db);
	if (ms > JOB_SLICE_BUDGET_MS)
		log_warn("[job] %s: slice took %lld ms (budget %d ms)", name, ms, JOB_SLICE_BUDGET_MS);
	return rc;
}

static void schedule(struct job *job, int rc, long long now)
{
	long long period = job->spec->job.period_ms;
	if (rc == HL_JOB_MORE) {
		job->failures = 0;
		job->next_us = now + PAUSE_MS * 1000LL;
		return;
	}
	if (rc < 0) {
		job->failures++;
		for (int i = 0; i < job->failures && period < MAX_BACKOFF_MS; i++)
			period *= 2;
		if (period > MAX_BACKOFF_MS)
			period = MAX_BACKOFF_MS;
		log_error("[job] %s failed (%s); next try in %lld s", job->spec->name,
			  hl_strerror(rc), period / 1000);
	} else {
		job->failures = 0;
	}
	job->next_us = now + period * 1000;
}

static struct job *next_due(struct jobs *js)
{
	struct job *best = NULL;
	for (int i = 0; i < js->n; i++)
		if (!best || js->list[i].next_us < best->next_us)
			best = &js->list[i];
	return best;
}

static void wait_until(struct jobs *js, long long when_us)
{
	/* now_us is CLOCK_MONOTONIC; the condition variable is set up to use
	 * it too (see jobs_start). */
	struct timespec ts = { .tv_sec = when_us / 1000000, .tv_nsec = (when_us % 1000000) * 1000 };
	pthread_cond_timedwait(&js->wake, &js->lock, &ts);
}

static void *loop(void *arg)
{
	struct jobs *js = arg;
	pthread_mutex_lock(&js->lock);
	while (!js->stop) {
		struct job *job = next_due(js);
		if (!job) {
			pthread_cond_wait(&js->wake, &js->lock);
			continue;
		}
		if (job->next_us > now_us()) {
			wait_until(js, job->next_us);
			continue;
		}
		pthread_mutex_unlock(&js->lock);
		int rc = run_slice(js, job);
		schedule(job, rc, now_us());
		pthread_mutex_lock(&js->lock);
	}
	pthread_mutex_unlock(&js->lock);
	return NULL;
}

int jobs_start(struct jobs **out, struct mod_job *list, int n, struct db *db)
{
	struct jobs *js = calloc(1, sizeof(*js));
	*out = NULL;
	if (!js || (n && !(js->list = calloc((size_t)n, sizeof(*js->list))))) {
		free(js);
		return HL_ENOMEM;
	}
	js->db = db;
	js->n = n;
	long long start = now_us() + 1000000; /* first slices a second after start */
	for (int i = 0; i < n; i++) {
		js->list[i].spec = &list[i];
		js->list[i].next_us = start;
	}
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&js->wake, &attr);
	pthread_condattr_destroy(&attr);
	pthread_mutex_init(&js->lock, NULL);
	if (pthread_create(&js->thread, NULL, loop, js)) {
		pthread_cond_destroy(&js->wake);
		pthread_mutex_destroy(&js->lock);
		free(js->list);
		free(js);
		return HL_EIO;
	}
	*out = js;
	return 0;
}

void jobs_stop(struct jobs *js)
{
	if (!js)
		return;
	pthread_mutex_lock(&js->lock);
	js->stop = 1;
	pthread_cond_signal(&js->wake);
	pthread_mutex_unlock(&js->lock);
	pthread_join(js->thread, NULL);
	pthread_cond_destroy(&js->wake);
	pthread_mutex_destroy(&js->lock);
	free(js->list);
	free(js);
}

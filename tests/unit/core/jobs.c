/* SPDX-License-Identifier: MIT */
/*
 * Tests core/platform/jobs.c on a real database: jobs_snapshot's figures for jobs
 * that work on, fail and overrun, next to the core's own jobs, and that a
 * slice working in pieces stops before the piece that would overrun. The
 * integration tests (test_jobs.py) see the same through job_state and the
 * log; the snapshot has no HTTP surface of its own.
 */
#include "db/db.h"
#include "platform/jobs.h"
#include "lib/log.h"
#include "db/migrate.h"

#include <dirent.h>
#include <limits.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../test.h"
#include "../temp_db.h"

static void pause_ms(long long ms)
{
	struct timespec pause = { ms / 1000, ms % 1000 * 1000 * 1000 };
	nanosleep(&pause, NULL);
}

/* Three slices of more work, then caught up. */
static int more_slice(struct hl_job_run *run)
{
	int64_t cursor = hl_job_cursor(run) + 1;
	hl_job_set_cursor(run, cursor);
	return cursor < 4 ? HL_JOB_MORE : HL_JOB_DONE;
}

static int failing_slice(struct hl_job_run *run)
{
	(void)run;
	return HL_EINVAL;
}

static int hog_slice(struct hl_job_run *run)
{
	(void)run;
	pause_ms(JOB_SLICE_BUDGET_MS + 20);
	return HL_JOB_DONE;
}

/* Works in 10 ms pieces while the budget lasts, counting them in the
 * cursor: three fit (the fourth would end past 40 ms). */
static int pieces_slice(struct hl_job_run *run)
{
	int64_t pieces = 0;
	while (pieces < 100 && !hl_job_over_budget(run)) {
		pause_ms(10);
		pieces++;
	}
	hl_job_set_cursor(run, pieces);
	return HL_JOB_DONE;
}

static struct mod_job test_jobs[] = {
	{ .name = "t.more", .job = { .name = "more", .period_ms = 60000, .slice = more_slice } },
	{ .name = "t.fails", .job = { .name = "fails", .period_ms = 50, .slice = failing_slice } },
	{ .name = "t.hog", .job = { .name = "hog", .period_ms = 60000, .slice = hog_slice } },
	{ .name = "t.pieces", .job = { .name = "pieces", .period_ms = 60000, .slice = pieces_slice } },
};
enum { MORE, FAILS, HOG, PIECES, CORE = 2, ALL = CORE + 4 };

struct fixture {
	struct temp_db t;
	struct jobs *js;
};

static int start_fixture(struct fixture *f)
{
	f->js = NULL;
	if (temp_db_open(&f->t, "jobs"))
		return -1;
	struct hl_db *w = db_write_lock(f->t.db);
	int applied = 0;
	int rc = migrate_owner(w, "core", "migrations/", core_migrations, core_migrations_count,
			       &applied);
	db_write_unlock(f->t.db, w);
	CHECK_INT(rc, 0);
	return rc ? rc : jobs_start(&f->js, test_jobs, 4, f->t.db, NULL, NULL);
}

static void stop_fixture(struct fixture *f)
{
	jobs_stop(f->js, 0);
	temp_db_close(&f->t);
}

static int settled(const struct job_stat *s)
{
	return s[CORE + MORE].runs >= 4 && s[CORE + FAILS].failures >= 2 &&
	       s[CORE + HOG].runs >= 1 && s[CORE + PIECES].runs >= 1 && s[0].runs >= 1 &&
	       s[1].runs >= 1;
}

/* Polls the snapshot until every job has done what the checks need. */
static int wait_settled(struct jobs *js, struct job_stat *s)
{
	for (int i = 0; i < 200; i++) {
		if (jobs_snapshot(js, s, ALL) == ALL && settled(s))
			return 1;
		pause_ms(50);
	}
	return 0;
}

static long long cursor_of(struct fixture *f, const char *name)
{
	struct hl_db *r = db_lend(f->t.db);
	sqlite3_stmt *st = hl_stmt(r, "SELECT cursor FROM job_state WHERE name = ?1");
	long long cursor = -1;
	if (st) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			cursor = sqlite3_column_int64(st, 0);
	}
	db_return(f->t.db, r);
	return cursor;
}

static void snapshot_reports_every_job(void)
{
	struct fixture f;
	struct job_stat s[ALL + 1];
	memset(s, 0, sizeof(s));
	if (start_fixture(&f)) {
		CHECK(0);
		stop_fixture(&f);
		return;
	}
	CHECK(wait_settled(f.js, s));
	CHECK_STR(s[0].name, "core.sessions");
	CHECK_STR(s[1].name, "core.optimize");
	CHECK_STR(s[CORE + MORE].name, "t.more");

	const struct job_stat *more = &s[CORE + MORE];
	CHECK_INT(more->failures, 0);
	CHECK_INT(more->backing_off, 0);
	CHECK(more->next_in_ms > 50000); /* caught up: a period away */

	const struct job_stat *fails = &s[CORE + FAILS];
	CHECK_INT(fails->failures, fails->runs);
	CHECK(fails->backing_off >= 2);
	CHECK(fails->next_in_ms <= 50LL << fails->backing_off);

	const struct job_stat *hog = &s[CORE + HOG];
	CHECK_INT(hog->overruns, 1);
	CHECK(hog->max_ms >= JOB_SLICE_BUDGET_MS + 20);
	CHECK(hog->total_ms >= hog->max_ms);
	CHECK_INT(hog->last_ms, hog->max_ms);

	const struct job_stat *pieces = &s[CORE + PIECES];
	long long n = cursor_of(&f, "t.pieces");
	CHECK(n >= 1 && n <= 3);
	CHECK(pieces->max_ms >= n * 10);

	struct job_stat one[2] = { { .runs = -1 }, { .runs = -1 } };
	CHECK_INT(jobs_snapshot(f.js, one, 1), ALL);
	CHECK_STR(one[0].name, "core.sessions");
	CHECK_INT(one[1].runs, -1); /* nothing copied past max */
	CHECK_INT(jobs_snapshot(NULL, one, 1), 0);
	stop_fixture(&f);
}

static void init(void)
{
	CHECK(sodium_init() >= 0); /* the migrations' checksums */
}

TEST_MAIN(init, snapshot_reports_every_job)

/* SPDX-License-Identifier: MIT */
/*
 * jobs.h: the tick-job scheduler, one thread that runs the job slices of
 * the core and of the modules one after the other, with a pause between
 * them for the requests' own work. Requests go first: the write lock is
 * taken in turn (db.c), and a slice ends early when a request waits for
 * it, and keeps short while requests keep coming (hl_job_over_budget).
 *
 * A slice runs inside a write transaction on the write connection; its
 * writes and its new cursor commit together, so a crash never loses or
 * repeats a slice's progress. A slice should hold the write lock for
 * JOB_SLICE_BUDGET_MS at most: it checks hl_job_over_budget between small
 * pieces of work. Every slice is measured, from the moment the write lock
 * is taken to the slice's return, and reported: in job_state (cursor,
 * runs, failures in a row, last/max/total time, overruns, over the job's
 * life) and in memory (since the process started; see jobs_snapshot). A
 * slice over the budget is logged. A slice that fails is rolled back and
 * its job backs off (the period doubles per failure in a row, up to an
 * hour; from a second for a job woken by events); the first success
 * restores the period. A job that names an event (hl_job.wake_on) is due
 * as soon as another one commits such an event.
 *
 * The same thread delivers the events of events.h: each call of an event
 * handler runs like a slice, in a transaction on the write connection that
 * commits when the handler returns 0 and rolls back otherwise. Events a
 * slice or a handler published (hl_job_publish) are handed over after its
 * commit, before the write lock is let go; so are the messages it handed
 * to the sender (hl_job_send, sender.h), whose outcomes the thread gives
 * back to their owners' settle functions, a batch per transaction.
 */
#ifndef HL_JOBS_H
#define HL_JOBS_H

#include "db/db.h"
#include "platform/events.h"
#include "platform/module.h"

struct sender;

#define JOB_SLICE_BUDGET_MS 40

struct jobs;

/* Start the thread with the core's own jobs (core.sessions, core.optimize)
 * and the modules' `list`, which must outlive the scheduler. Every job's
 * first slice comes a second after the start, or sooner when an event
 * wakes it. `events` (NULL: none) are delivered as soon as they are
 * queued; the outcomes of `sender`'s sends (NULL: nothing is sent) are
 * given to their owners as soon as they settle; both must outlive the
 * scheduler. Returns 0 or HL_ENOMEM / HL_EIO. */
int jobs_start(struct jobs **out, struct mod_job *list, int n, struct db *db,
	       struct events *events, struct sender *sender);
/* Finish the running slice and stop the thread (NULL is ignored); then
 * stop the sender, giving what is on its way `send_grace_ms` to end, and
 * record the outcomes it holds. */
void jobs_stop(struct jobs *js, int send_grace_ms);

/* One job's figures since the process started, for the metrics. */
struct job_stat {
	const char *name;     /* "contacts.purge"; valid until jobs_stop */
	long long runs;       /* slices run */
	long long failures;   /* slices that failed (rolled back) */
	long long overruns;   /* slices over JOB_SLICE_BUDGET_MS */
	long long last_ms;    /* the last slice's time; 0 before the first */
	long long max_ms;     /* the longest slice's time */
	long long total_ms;   /* all slices' time together */
	long long next_in_ms; /* until the next slice; 0 when due or running */
	long long period_ms;  /* the job's period (when no event wakes it) */
	int backing_off;      /* failures in a row (0: the last slice succeeded);
			       * the period is doubled that many times */
};

/* Copy the figures of up to `max` jobs into `out`, core jobs first, then
 * the modules' in load order; returns the number of jobs, which may exceed
 * `max` (0 for NULL, when jobs are turned off). Any thread: it copies
 * under the scheduler's mutex, never waiting for a running slice. */
int jobs_snapshot(struct jobs *js, struct job_stat *out, int max);

#endif

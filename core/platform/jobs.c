/* SPDX-License-Identifier: MIT */
/*
 * jobs.c: the scheduler of jobs.h, and the core's own jobs.
 *
 * The job list is fixed at jobs_start: the core's jobs, then the modules'.
 * Each job's schedule (next_us, failures, woken) and figures (stat) are
 * written only with js->lock held: by the scheduler thread, and by a
 * thread that commits an event a job wakes on (wake_for_event), so that
 * jobs_snapshot can copy them from any thread. The lock is released while
 * a slice runs: a reader never waits for a slice.
 *
 * Between slices the thread delivers queued events: each handler call
 * runs like a slice (write lock, transaction, hl_job_run), and a burst of
 * them lasts a slice's budget at most before due jobs get their turn. A
 * hand-over wakes the thread (wake_for_event), so an event waits for the
 * running slice at worst, not for a tick; so does a job that wakes on it
 * (hl_job.wake_on): a queue that requests fill is worked at once, and the
 * job's period is only the fallback.
 *
 * A slice that wrote nothing, kept its cursor and caught up (the import
 * job finding no import) is counted in `stat` but not written to
 * job_state when the job's last slice was written (the first of the
 * process, and the first after a failure, always are): an idle server
 * then writes nothing.
 */
#include "platform/jobs.h"
#include "platform/sender.h"
#include "lib/background.h"
#include "lib/heap.h"
#include "lib/log.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PAUSE_MS 5             /* between slices, for the requests' own work */
#define MAX_BACKOFF_MS 3600000 /* a failing job retries at least hourly */
#define WAKER_BACKOFF_MS 1000  /* what a job woken by events backs off from */

struct job {
	struct mod_job *spec;
	long long next_us;
	int failures;          /* in a row; the period doubles per failure */
	int recorded;          /* the last slice's outcome is in job_state (the thread's own) */
	int walking;           /* its pass has taken more than one slice (the thread's own) */
	int woken;             /* an event it wakes on came since its slice began (hl_job.wake_on) */
	unsigned again_ms;     /* its last slice's hl_job_again_in, or 0 */
	struct job_stat stat;  /* since the start; next_in_ms, backing_off unused */
};

struct hl_job_run {
	struct hl_db *db;
	int64_t cursor;        /* always 0 in an event handler */
	const struct hl_mod *mod; /* whose slice or handler; NULL for the core's */
	long long start_us;    /* when the slice took the write lock */
	long long checked_us;  /* the last hl_job_over_budget call, or start_us */
	_Atomic long long *contended_us; /* the scheduler's: when a request last waited */
	unsigned again_ms;     /* hl_job_again_in, or 0 */
	struct event_list events; /* published, handed over after the commit */
	struct sender *sender;    /* NULL: nothing is sent */
	struct send_list sends;   /* prepared, handed over after the commit */
};

struct jobs {
	struct db *db;
	struct events *events; /* NULL: no event delivery */
	struct sender *sender; /* NULL: nothing is sent */
	long long deliver_us;  /* earliest next burst of events (0: at once) */
	struct job *list;
	int n;
	int stop;
	int wakers;            /* jobs with a wake_on (fixed at the start) */
	struct job *publishing; /* whose slice's events are being handed over (the thread's own) */
	int let_go;            /* a pass has ended since the last let_go (the thread's own) */
	long long worked_us;   /* when the thread last ran a slice or delivered (its own) */
	_Atomic long long contended_us; /* when a request last waited for a slice's lock */
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

HL_API void hl_job_again_in(struct hl_job_run *run, unsigned ms)
{
	if (ms && (!run->again_ms || ms < run->again_ms))
		run->again_ms = ms;
}

HL_API const char *hl_job_setting(const struct hl_job_run *run, const char *key)
{
	return run->mod ? mod_setting(run->mod, key) : NULL; /* the core's jobs have no conf */
}

HL_API sqlite3_stmt *hl_job_event_line(struct hl_job_run *run, const struct hl_event *ev)
{
	const char *sql = run && run->mod && ev ? mod_event_line(run->mod, ev->name) : NULL;
	sqlite3_stmt *st = sql ? hl_stmt_scoped(run->db, ev->location_id, sql) : NULL;
	if (!st)
		return NULL;
	hl_bind_int(st, ":subject", ev->subject_id);
	hl_bind_text(st, ":data", ev->data);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		return st;
	if (rc != SQLITE_DONE)
		log_warn("the line of event %s: %s", ev->name, sqlite3_errmsg(sqlite3_db_handle(st)));
	return NULL;
}

HL_API int hl_job_publish_assigned(struct hl_job_run *run, const char *name,
				   int64_t location_id, int64_t subject_id, int64_t assigned_to,
				   const char *data)
{
	if (!run || location_id < 0)
		return HL_EINVAL;
	return event_list_add(&run->events, name, location_id, subject_id, assigned_to, data);
}

HL_API int hl_job_publish(struct hl_job_run *run, const char *name, int64_t location_id,
			  int64_t subject_id, const char *data)
{
	return hl_job_publish_assigned(run, name, location_id, subject_id, 0, data);
}

HL_API int hl_job_send(struct hl_job_run *run, const struct hl_outgoing *m, char *why,
		       size_t size)
{
	if (why && size)
		why[0] = '\0';
	if (!run || !m)
		return HL_EINVAL;
	return sender_prepare(run->sender, run, (struct hl_mod *)run->mod, m, &run->sends, why,
			      size);
}

/* What a slice keeps of its budget for what follows its last piece: the
 * commit, which writes the slice's pages to the WAL (a slice of imported
 * contacts took about 10 ms more than its pieces). */
#define COMMIT_RESERVE(budget_ms) ((budget_ms) / 4)

/* Requests go first. A slice gives the writer up at once when a request
 * waits for it: the request would otherwise wait for the rest of the
 * budget (another sub-account's contact took p95 55 ms beside a big
 * import, 2 ms alone). Only under a steady stream of writes (one waited
 * within STEADY_US before the slice began) does the slice first work
 * YIELD_AFTER_MS, with its commit, so that a job still goes on (beside
 * the crash test's six busy writers, its waits for an import's progress
 * took half as long at 3 ms as at 1). And while requests keep coming
 * (one waited within CONTENDED_US), slices keep to SHORT_BUDGET_MS, since
 * what a request then waits for is the commit of what the slice wrote. */
#define YIELD_AFTER_MS 3
#define STEADY_US 20000LL
#define SHORT_BUDGET_MS 5
#define CONTENDED_US 1000000LL

HL_API int hl_job_over_budget(struct hl_job_run *run)
{
	long long now = now_us();
	/* The time since the last call is what the next piece of work is
	 * likely to cost: stop before the piece that would overrun, not
	 * after it. */
	long long piece = now - run->checked_us;
	run->checked_us = now;
	if (db_writer_wanted(run->db)) {
		long long last = *run->contended_us;
		*run->contended_us = now;
		if (last < run->start_us - STEADY_US || now - run->start_us >= YIELD_AFTER_MS * 1000LL)
			return 1;
	}
	long long budget = now - *run->contended_us < CONTENDED_US ? SHORT_BUDGET_MS
								    : JOB_SLICE_BUDGET_MS;
	return now + piece - run->start_us >= (budget - COMMIT_RESERVE(budget)) * 1000LL;
}

/* ---- the core's jobs ---------------------------------------------------- */

/* Delete expired sessions, oldest expiry first, in batches while the
 * budget lasts. Deleted rows leave the sessions_expires index, so the next
 * slice starts where this one stopped without a cursor. */
static int sessions_slice(struct hl_job_run *run)
{
	enum { BATCH = 100 };
	sqlite3_stmt *st = hl_stmt(run->db,
		"DELETE FROM sessions WHERE token_hash IN (SELECT token_hash FROM sessions"
		" WHERE expires_at <= :now ORDER BY expires_at LIMIT :batch)");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":now", (int64_t)time(NULL)); /* Unix seconds, as auth.c */
	hl_bind_int(st, ":batch", BATCH);
	int64_t deleted;
	do {
		if ((deleted = hl_step_changes(st)) < 0)
			return HL_EDB;
	} while (deleted == BATCH && !hl_job_over_budget(run));
	return deleted == BATCH ? HL_JOB_MORE : HL_JOB_DONE;
}

/* SQLite advises PRAGMA optimize every few hours on a long-lived
 * connection; analysis_limit keeps the ANALYZE it may run on a big table
 * to a few hundred rows per index. */
static int optimize_slice(struct hl_job_run *run)
{
	return hl_exec(run->db, "PRAGMA analysis_limit = 400; PRAGMA optimize") ? HL_EDB
										 : HL_JOB_DONE;
}

static struct mod_job core_jobs[] = {
	{ .name = "core.sessions",
	  .job = { .name = "sessions", .period_ms = 3600 * 1000, .slice = sessions_slice } },
	{ .name = "core.optimize",
	  .job = { .name = "optimize", .period_ms = 6 * 3600 * 1000, .slice = optimize_slice } },
};

#define CORE_JOBS ((int)(sizeof(core_jobs) / sizeof(core_jobs[0])))

/* ---- one slice ----------------------------------------------------------- */

static int load_cursor(struct hl_db *w, const char *name, int64_t *cursor)
{
	sqlite3_stmt *st = hl_stmt(w, "SELECT cursor FROM job_state WHERE name = :name");
	hl_bind_text(st, ":name", name);
	return hl_step_int(st, cursor) < 0 ? HL_EDB : 0;
}

/* Record a run: the counters, and the cursor when it succeeded (inside the
 * slice's transaction then; a failure is recorded in a transaction of its
 * own and leaves the cursor where the last success put it). */
static int record(struct hl_db *w, const char *name, int64_t cursor, int ok, long long ms,
		  const char *error)
{
	sqlite3_stmt *st = hl_stmt(w,
		"INSERT INTO job_state (name, cursor, runs, failures, last_run_at, last_ms, last_error,"
		" max_ms, total_ms, overruns)"
		" VALUES (:name, :cursor, 1, :failed, strftime('%Y-%m-%dT%H:%M:%SZ','now'), :ms,"
		" :error, :ms, :ms, :overrun)"
		" ON CONFLICT (name) DO UPDATE SET cursor = CASE WHEN :failed THEN cursor ELSE :cursor END,"
		" runs = runs + 1,"
		" failures = CASE WHEN :failed THEN failures + 1 ELSE 0 END,"
		" last_run_at = excluded.last_run_at, last_ms = :ms, last_error = :error,"
		" max_ms = max(max_ms, :ms), total_ms = total_ms + :ms, overruns = overruns + :overrun");
	hl_bind_text(st, ":name", name);
	hl_bind_int(st, ":cursor", cursor);
	hl_bind_int(st, ":failed", !ok);
	hl_bind_int(st, ":ms", ms);
	hl_bind_text(st, ":error", error); /* NULL binds NULL */
	hl_bind_int(st, ":overrun", ms > JOB_SLICE_BUDGET_MS);
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

/* The end of a run, its lock still held: what it published and prepared
 * to send is handed over once it committed, dropped when it did not. */
static void hand_over(struct jobs *js, struct hl_job_run *run, int committed)
{
	if (!committed) {
		event_list_clear(&run->events);
		send_list_clear(&run->sends);
	}
	events_commit(js->events, &run->events);
	sender_commit(js->sender, &run->sends);
}

/* Run one slice of `job`; returns its result (HL_JOB_MORE/DONE or < 0) and
 * its time in *ms. */
static int run_slice(struct jobs *js, struct job *job, long long *ms)
{
	struct hl_job_run run = { .mod = job->spec->mod, .contended_us = &js->contended_us,
				  .sender = js->sender };
	const char *name = job->spec->name;
	run.db = db_write_lock(js->db);
	run.start_us = run.checked_us = now_us();
	int rc = db_begin(run.db);
	int64_t cursor = 0;
	int changes = 0;
	if (!rc && !(rc = load_cursor(run.db, name, &run.cursor))) {
		cursor = run.cursor;
		changes = sqlite3_total_changes(hl_sqlite(run.db));
		rc = job->spec->job.slice(&run);
	}
	*ms = (now_us() - run.start_us) / 1000;
	int idle = rc == HL_JOB_DONE && job->recorded && run.cursor == cursor &&
		   sqlite3_total_changes(hl_sqlite(run.db)) == changes && *ms <= JOB_SLICE_BUDGET_MS;
	if (rc >= 0 && ((!idle && record(run.db, name, run.cursor, 1, *ms, NULL)) || db_commit(run.db)))
		rc = HL_EDB;
	job->recorded = rc >= 0;
	if (rc < 0) {
		db_rollback(run.db);
		if (!db_begin(run.db) &&
		    (record(run.db, name, 0, 0, *ms, hl_strerror(rc)) || db_commit(run.db)))
			db_rollback(run.db);
	}
	/* A pass of several slices has walked through its table: what it
	 * mapped and cached is let go once the thread is idle (let_go). */
	js->let_go |= rc == HL_JOB_DONE && job->walking;
	job->again_ms = rc == HL_JOB_DONE ? run.again_ms : 0;
	job->walking = rc == HL_JOB_MORE || (job->walking && rc < 0);
	/* Handed over before the lock goes: in the order of the commits. */
	js->publishing = job;
	hand_over(js, &run, rc >= 0);
	js->publishing = NULL;
	db_write_unlock(js->db, run.db);
	if (*ms > JOB_SLICE_BUDGET_MS)
		log_warn("[job] %s: slice took %lld ms (budget %d ms)", name, *ms,
			 JOB_SLICE_BUDGET_MS);
	return rc;
}

/* One event handler's call, run like a slice (an event_call). */
static int run_handler(void *arg, const struct mod_handler *h, const struct hl_event *e)
{
	struct jobs *js = arg;
	struct hl_job_run run = { .mod = h->mod, .contended_us = &js->contended_us,
				  .sender = js->sender };
	run.db = db_write_lock(js->db);
	run.start_us = run.checked_us = now_us();
	int rc = db_begin(run.db);
	if (!rc)
		rc = h->h.handle(&run, e);
	if (rc >= 0 && db_commit(run.db))
		rc = HL_EDB;
	if (rc < 0)
		db_rollback(run.db);
	hand_over(js, &run, rc >= 0);
	db_write_unlock(js->db, run.db);
	long long ms = (now_us() - run.start_us) / 1000;
	if (ms > JOB_SLICE_BUDGET_MS)
		log_warn("[event] %s: the handler of '%s' took %lld ms on %s (budget %d ms)",
			 h->module, h->h.event, ms, e->name, JOB_SLICE_BUDGET_MS);
	return rc < 0 ? rc : 0;
}

/* SAVEPOINT, RELEASE or ROLLBACK TO, prepared once: settle_one runs
 * them per outcome. */
static int savepoint(struct hl_db *db, const char *sql)
{
	return hl_step_changes(hl_stmt(db, sql)) < 0 ? HL_EDB : 0;
}

/* One owner's settle of one outcome, inside the batch's transaction, in
 * a savepoint of its own: a settle that fails is undone (and what it
 * published and prepared dropped) without the others. */
static void settle_one(struct jobs *js, struct hl_job_run *run, const struct hl_send *t)
{
	struct hl_outcome o;
	struct hl_mod *owner;
	int (*settle)(struct hl_job_run *, const struct hl_outcome *);
	send_outcome(t, &o, &owner, &settle);
	struct hl_job_run one = { .db = run->db, .mod = owner, .start_us = run->start_us,
				  .checked_us = now_us(), .contended_us = &js->contended_us,
				  .sender = js->sender };
	int rc = savepoint(run->db, "SAVEPOINT settle");
	if (!rc)
		rc = settle(&one, &o);
	if (rc < 0) {
		log_error("[send] %s: the outcome of message %lld could not be recorded: %s",
			  owner ? mod_name(owner) : "core", (long long)o.id, hl_strerror(rc));
		savepoint(run->db, "ROLLBACK TO settle");
		event_list_clear(&one.events);
		send_list_clear(&one.sends);
	} else {
		event_list_move(&run->events, &one.events);
		send_list_move(&run->sends, &one.sends);
	}
	savepoint(run->db, "RELEASE settle");
}

#define SETTLE_PIECE 16   /* outcomes taken at a time */
#define SETTLE_PIECES 16  /* pieces recorded in one transaction at most */

/* Settled sends, each given to its owner, in one transaction (a commit
 * per message would cost more than the settling), a piece at a time
 * while the budget lasts, as a slice's: a request waiting for the writer
 * goes first. Returns 1 when more wait, 0 when none does, -1 when the
 * batch could not be recorded (it waits again). */
static int settle_batch(struct jobs *js)
{
	if (!sender_settled(js->sender))
		return 0;
	struct hl_send *pieces[SETTLE_PIECES];
	int n = 0;
	struct hl_job_run run = { .contended_us = &js->contended_us, .sender = js->sender };
	run.db = db_write_lock(js->db);
	run.start_us = run.checked_us = now_us();
	int rc = db_begin(run.db);
	/* The first piece always, then more while the budget lasts. */
	while (!rc && n < SETTLE_PIECES && !(n && hl_job_over_budget(&run))) {
		if (!(pieces[n] = sender_take(js->sender, SETTLE_PIECE)))
			break;
		for (const struct hl_send *t = pieces[n++]; t; t = send_next(t))
			settle_one(js, &run, t);
	}
	if (!rc && db_commit(run.db))
		rc = HL_EDB;
	if (rc) {
		log_error("[send] the outcomes of a batch could not be recorded: %s",
			  hl_strerror(rc));
		db_rollback(run.db);
	}
	hand_over(js, &run, !rc);
	db_write_unlock(js->db, run.db);
	/* Put back last piece first, so that they wait in their order. */
	for (int i = n - 1; i >= 0; i--)
		if (rc)
			sender_put_back(js->sender, pieces[i]); /* after a pause, again */
		else
			sender_release(pieces[i]);
	if (rc)
		return -1;
	return sender_settled(js->sender) > 0;
}

/* Called by the sender once a send settled: the thread wakes for it. */
static void wake_for_settled(void *arg)
{
	struct jobs *js = arg;
	pthread_mutex_lock(&js->lock);
	pthread_cond_signal(&js->wake);
	pthread_mutex_unlock(&js->lock);
}

/* Called by the event queue, with its lock held, for each event handed
 * over: the thread wakes for a queued one, and a job that wakes on it
 * (hl_job.wake_on) is due now, in its turn among the due ones, unless it
 * is backing off or published the event itself (it would never stop). */
static void wake_for_event(void *arg, const struct hl_event *e, int queued)
{
	struct jobs *js = arg;
	if (!queued && !js->wakers)
		return;
	int wake = queued;
	struct job *self = pthread_equal(pthread_self(), js->thread) ? js->publishing : NULL;
	long long now = now_us();
	pthread_mutex_lock(&js->lock);
	for (int i = 0; i < js->n; i++) {
		struct job *job = &js->list[i];
		const char *on = job->spec->job.wake_on;
		if (!on || job == self || job->failures || !events_match(on, e->name))
			continue;
		job->woken = 1;
		if (job->next_us > now)
			job->next_us = now;
		wake = 1;
	}
	if (wake)
		pthread_cond_signal(&js->wake);
	pthread_mutex_unlock(&js->lock);
}

/* ---- the schedule (js->lock held) -------------------------------------- */

static void count(struct job *job, int rc, long long ms)
{
	struct job_stat *s = &job->stat;
	s->runs++;
	s->failures += rc < 0;
	s->overruns += ms > JOB_SLICE_BUDGET_MS;
	s->last_ms = ms;
	if (ms > s->max_ms)
		s->max_ms = ms;
	s->total_ms += ms;
}

static void schedule(struct job *job, int rc, long long now)
{
	long long period = job->spec->job.period_ms;
	if (rc == HL_JOB_MORE || (job->woken && rc >= 0)) {
		job->failures = 0;
		job->next_us = now + PAUSE_MS * 1000LL;
		return;
	}
	if (rc < 0) {
		/* A job woken by events has a long period as a fallback only:
		 * its retries start from a second, as a ticking job's would. */
		if (job->spec->job.wake_on && period > WAKER_BACKOFF_MS)
			period = WAKER_BACKOFF_MS;
		job->failures++;
		for (int i = 0; i < job->failures && period < MAX_BACKOFF_MS; i++)
			period *= 2;
		if (period > MAX_BACKOFF_MS)
			period = MAX_BACKOFF_MS;
		log_error("[job] %s failed (%s); next try in %g s", job->spec->name,
			  hl_strerror(rc), (double)period / 1000);
	} else {
		job->failures = 0;
		if (job->again_ms && job->again_ms < period)
			period = job->again_ms; /* hl_job_again_in */
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

/* A burst of event deliveries, a slice's budget long at most, and a batch
 * of sends' outcomes; when more remain, the next burst waits a pause so
 * request writers get in. */
static void deliver_events(struct jobs *js)
{
	pthread_mutex_unlock(&js->lock);
	int more = events_deliver(js->events, run_handler, js, JOB_SLICE_BUDGET_MS * 1000LL);
	if (js->sender)
		more |= settle_batch(js) != 0;
	pthread_mutex_lock(&js->lock);
	js->deliver_us = more ? now_us() + PAUSE_MS * 1000LL : 0;
}

static void run_job(struct jobs *js, struct job *job)
{
	job->woken = 0; /* this slice sees what came before it */
	pthread_mutex_unlock(&js->lock);
	long long ms;
	int rc = run_slice(js, job, &ms);
	pthread_mutex_lock(&js->lock);
	count(job, rc, ms);
	schedule(job, rc, now_us());
}

/* What a pass of several slices walked through (the purge's first pass
 * left 30 MB resident) need not stay mapped and cached on an idle server:
 * the writer's cache is let go of and the heap given back once the thread
 * has had nothing to do for LET_GO_IDLE_US and nothing is due for as long.
 * Not at the end of each pass, nor whenever no slice is due by the clock:
 * the outbox's passes end whenever its channels are full and its next is
 * woken, not timed. While 10,000 e-mails left, either dropped the
 * writer's cache and trimmed the heap ten times a second (600 madvise
 * calls, each stopping the other core to flush its TLB), and another
 * sub-account's writes waited for it and read their pages again. */
#define LET_GO_IDLE_US 200000LL

static void let_go(struct jobs *js)
{
	js->let_go = 0;
	pthread_mutex_unlock(&js->lock);
	struct hl_db *w = db_write_lock(js->db);
	if (db_let_go(w))
		log_warn("[job] could not let go of the pages a pass read");
	db_write_unlock(js->db, w);
	heap_give_back(); /* not holding up the writers */
	pthread_mutex_lock(&js->lock);
}

/* Events first when their burst is due, then a due job; else let go of
 * what a pass read, or sleep until the earlier of the two, or until
 * woken. */
static void *loop(void *arg)
{
	struct jobs *js = arg;
	background_thread("hl-jobs");
	pthread_mutex_lock(&js->lock);
	while (!js->stop) {
		long long now = now_us();
		int events = events_queued(js->events) > 0 || sender_settled(js->sender) > 0;
		struct job *job = next_due(js);
		long long until = events && (!job || js->deliver_us < job->next_us) ? js->deliver_us
				  : job ? job->next_us : LLONG_MAX;
		long long idle_at = js->let_go ? js->worked_us + LET_GO_IDLE_US : LLONG_MAX;
		if (events && js->deliver_us <= now) {
			deliver_events(js);
			js->worked_us = now_us();
		} else if (job && job->next_us <= now) {
			run_job(js, job);
			js->worked_us = now_us();
		} else if (idle_at <= now && until - now >= LET_GO_IDLE_US)
			let_go(js);
		else if (idle_at > now && idle_at < until)
			wait_until(js, idle_at);
		else if (until < LLONG_MAX)
			wait_until(js, until);
		else
			pthread_cond_wait(&js->wake, &js->lock);
	}
	pthread_mutex_unlock(&js->lock);
	return NULL;
}

/* ---- start, stop, snapshot ------------------------------------------------ */

static void add_job(struct jobs *js, struct mod_job *spec, long long first_us)
{
	struct job *job = &js->list[js->n++];
	js->wakers += spec->job.wake_on != NULL;
	job->spec = spec;
	job->next_us = first_us;
	job->stat.name = spec->name;
}

int jobs_start(struct jobs **out, struct mod_job *list, int n, struct db *db,
	       struct events *events, struct sender *sender)
{
	struct jobs *js = calloc(1, sizeof(*js));
	*out = NULL;
	if (!js || !(js->list = calloc((size_t)(CORE_JOBS + n), sizeof(*js->list)))) {
		free(js);
		return HL_ENOMEM;
	}
	js->db = db;
	js->events = events;
	js->sender = sender;
	long long first = now_us() + 1000000; /* first slices a second after start */
	for (int i = 0; i < CORE_JOBS; i++)
		add_job(js, &core_jobs[i], first);
	for (int i = 0; i < n; i++)
		add_job(js, &list[i], first);
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
	/* Once js->thread is set: wake_for_event compares it. The first
	 * slices are a second away. */
	if (events)
		events_on_queue(events, wake_for_event, js);
	if (sender)
		sender_on_settled(sender, wake_for_settled, js);
	*out = js;
	return 0;
}

void jobs_stop(struct jobs *js, int send_grace_ms)
{
	if (!js)
		return;
	if (js->events)
		events_on_queue(js->events, NULL, NULL);
	if (js->sender)
		sender_on_settled(js->sender, NULL, NULL);
	pthread_mutex_lock(&js->lock);
	js->stop = 1;
	pthread_cond_signal(&js->wake);
	pthread_mutex_unlock(&js->lock);
	pthread_join(js->thread, NULL);
	/* No slice runs now, so none hands the sender anything more: what is
	 * on its way gets its grace, and its outcomes are kept (until the
	 * database fails, when they are left to the next run's look). */
	sender_stop(js->sender, send_grace_ms);
	while (js->sender && settle_batch(js) > 0)
		;
	pthread_cond_destroy(&js->wake);
	pthread_mutex_destroy(&js->lock);
	free(js->list);
	free(js);
}

int jobs_snapshot(struct jobs *js, struct job_stat *out, int max)
{
	if (!js)
		return 0;
	pthread_mutex_lock(&js->lock);
	long long now = now_us();
	for (int i = 0; i < js->n && i < max; i++) {
		const struct job *job = &js->list[i];
		out[i] = job->stat;
		out[i].next_in_ms = job->next_us > now ? (job->next_us - now) / 1000 : 0;
		out[i].period_ms = job->spec->job.period_ms;
		out[i].backing_off = job->failures;
	}
	pthread_mutex_unlock(&js->lock);
	return js->n;
}

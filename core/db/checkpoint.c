/* SPDX-License-Identifier: MIT */
/*
 * checkpoint.c: the checkpointer of checkpoint.h.
 *
 * SQLite's writer copies the WAL back into the database after the commit
 * that takes it past 1000 pages (a "checkpoint"), inside that commit: the
 * connection's next user waits for it, and with one writer for the whole
 * server that is every request that writes (20 to 40 ms, with its two
 * fsyncs, beside a big import; the p95 of another sub-account's writes
 * followed). A PASSIVE checkpoint never blocks writers in SQLite, only our
 * own lock did: here it runs on a connection of its own, on a thread of
 * its own, woken by the writer's WAL hook, while the writer goes on.
 *
 * One connection checkpoints at a time, still: the writer's hook replaces
 * its own checkpoints (sqlite3_wal_hook takes the place of
 * sqlite3_wal_autocheckpoint), and it checkpoints again, at its close,
 * only after checkpointer_stop. SQLite before 3.51.3 (Debian 12 has
 * 3.40.1) can corrupt a WAL that two connections checkpoint at once.
 *
 * The connection reads the database once as it opens: SQLite 3.40 finds
 * the WAL only as a connection reads, and a checkpoint before that may do
 * nothing, saying so only by its -1 frames. While 10,000 e-mails were
 * queued and sent, none ran, 9,224 times in 30 s, and the WAL grew to
 * 1.9 GB (test_checkpoint.py: 247 MB after 4,000 messages).
 *
 * The WAL starts again from its beginning only at a write that begins
 * when every frame is in the database, and under a steady stream of
 * writes none does: the writer commits again while a checkpoint runs. So
 * the checkpoints run as the WAL grows by CHECKPOINT_PAGES (not after
 * every commit past it: 250 a second while messages were queued), and
 * once one leaves RESTART_PAGES, a second copies the rest between two
 * writes (checkpoint_between_writes): the frames committed since the
 * first, so the writers wait little. The WAL then stays near 20 MB.
 */
#include "db/checkpoint.h"
#include "lib/log.h"

#include <hyperlevel/hyperlevel.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#define CHECKPOINT_PAGES 1000 /* SQLite's own default */
#define RESTART_PAGES (4 * CHECKPOINT_PAGES)

struct checkpointer {
	sqlite3 *sql;
	sqlite3 *writer;
	struct checkpoint_writers writers;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int due, stop;
	_Atomic int wake_at; /* the WAL's frames at which a commit wakes the thread */
};

/* The writer's WAL hook, after each commit: wake the thread. */
static int on_commit(void *arg, sqlite3 *db, const char *name, int pages)
{
	struct checkpointer *cp = arg;
	(void)db, (void)name;
	if (pages >= atomic_load(&cp->wake_at)) {
		pthread_mutex_lock(&cp->lock);
		cp->due = 1;
		pthread_cond_signal(&cp->wake);
		pthread_mutex_unlock(&cp->lock);
	}
	return SQLITE_OK;
}

/* A checkpoint while no one writes: if no reader holds an older view,
 * every frame is then in the database, and the next write starts the WAL
 * again from its beginning. */
static int checkpoint_between_writes(struct checkpointer *cp, int *frames, int *copied)
{
	cp->writers.hold(cp->writers.arg);
	int rc = sqlite3_wal_checkpoint_v2(cp->sql, NULL, SQLITE_CHECKPOINT_PASSIVE, frames, copied);
	cp->writers.release(cp->writers.arg);
	return rc;
}

static void *run(void *arg)
{
	struct checkpointer *cp = arg;
	pthread_mutex_lock(&cp->lock);
	while (!cp->stop) {
		if (!cp->due) {
			pthread_cond_wait(&cp->wake, &cp->lock);
			continue;
		}
		cp->due = 0;
		pthread_mutex_unlock(&cp->lock);
		int frames = 0, copied = 0;
		int rc = sqlite3_wal_checkpoint_v2(cp->sql, NULL, SQLITE_CHECKPOINT_PASSIVE, &frames,
						   &copied);
		if (rc == SQLITE_OK && frames >= RESTART_PAGES)
			rc = checkpoint_between_writes(cp, &frames, &copied);
		if (rc != SQLITE_OK && rc != SQLITE_BUSY)
			log_warn("checkpoint: %s", sqlite3_errmsg(cp->sql));
		/* All copied: the next write starts the WAL again. */
		atomic_store(&cp->wake_at, rc == SQLITE_OK && copied == frames ? CHECKPOINT_PAGES
					   : frames + CHECKPOINT_PAGES);
		pthread_mutex_lock(&cp->lock);
	}
	pthread_mutex_unlock(&cp->lock);
	return NULL;
}

int checkpointer_start(struct checkpointer **out, const char *path, sqlite3 *writer,
		       struct checkpoint_writers writers)
{
	struct checkpointer *cp = calloc(1, sizeof(*cp));
	*out = NULL;
	if (!cp)
		return HL_ENOMEM;
	pthread_mutex_init(&cp->lock, NULL);
	pthread_cond_init(&cp->wake, NULL);
	cp->writer = writer;
	cp->writers = writers;
	cp->wake_at = CHECKPOINT_PAGES;
	if (sqlite3_open_v2(path, &cp->sql, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK || sqlite3_busy_timeout(cp->sql, 10000) != SQLITE_OK ||
	    sqlite3_exec(cp->sql, "SELECT 1 FROM sqlite_schema LIMIT 1", NULL, NULL, NULL) != SQLITE_OK) {
		log_error("%s: cannot open the checkpoint connection: %s", path,
			  cp->sql ? sqlite3_errmsg(cp->sql) : "out of memory");
		sqlite3_close(cp->sql);
		pthread_cond_destroy(&cp->wake);
		pthread_mutex_destroy(&cp->lock);
		free(cp);
		return HL_EDB;
	}
	if (pthread_create(&cp->thread, NULL, run, cp)) {
		log_error("checkpoint: cannot start its thread");
		sqlite3_close(cp->sql);
		pthread_cond_destroy(&cp->wake);
		pthread_mutex_destroy(&cp->lock);
		free(cp);
		return HL_EIO;
	}
	sqlite3_wal_hook(writer, on_commit, cp);
	*out = cp;
	return 0;
}

void checkpointer_stop(struct checkpointer *cp)
{
	if (!cp)
		return;
	sqlite3_wal_autocheckpoint(cp->writer, CHECKPOINT_PAGES); /* the writer's own again */
	pthread_mutex_lock(&cp->lock);
	cp->stop = 1;
	pthread_cond_signal(&cp->wake);
	pthread_mutex_unlock(&cp->lock);
	pthread_join(cp->thread, NULL);
	sqlite3_close(cp->sql);
	pthread_cond_destroy(&cp->wake);
	pthread_mutex_destroy(&cp->lock);
	free(cp);
}

/* SPDX-License-Identifier: MIT */
/*
 * checkpoint.h: the WAL copied back into the database file on a thread of
 * its own (checkpoint.c), so that no writer waits for it.
 */
#ifndef HL_CHECKPOINT_H
#define HL_CHECKPOINT_H

#include <sqlite3.h>

struct checkpointer;

struct db;

/* Checkpoint the database at `path` from a connection of its own whenever
 * a commit of `writer` (db's) leaves CHECKPOINT_PAGES or more in the WAL;
 * the writer's own checkpoints after its commits stop. 0, HL_ENOMEM,
 * HL_EDB or HL_EIO (logged). */
int checkpointer_start(struct checkpointer **out, const char *path, struct db *db,
		       sqlite3 *writer);
/* Stop the thread (a checkpoint in progress ends first) and close its
 * connection; the writer checkpoints after its commits again. Before the
 * writer closes. Accepts NULL. */
void checkpointer_stop(struct checkpointer *cp);

#endif

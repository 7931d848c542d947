/* SPDX-License-Identifier: MIT */
/*
 * checkpoint.h: the WAL copied back into the database file on a thread of
 * its own (checkpoint.c), so that no writer waits for it.
 */
#ifndef HL_CHECKPOINT_H
#define HL_CHECKPOINT_H

#include <sqlite3.h>

struct checkpointer;

/* How the checkpointer holds the writers off for a moment: its owner's
 * write lock, taken and given back. */
struct checkpoint_writers {
	void (*hold)(void *arg);
	void (*release)(void *arg);
	void *arg;
};

/* Checkpoint the database at `path` from a connection of its own whenever
 * a commit of `writer` leaves CHECKPOINT_PAGES or more in the WAL; the
 * writer's own checkpoints after its commits stop. 0, HL_ENOMEM, HL_EDB or
 * HL_EIO (logged). */
int checkpointer_start(struct checkpointer **out, const char *path, sqlite3 *writer,
		       struct checkpoint_writers writers);
/* Stop the thread (a checkpoint in progress ends first) and close its
 * connection; the writer checkpoints after its commits again. Before the
 * writer closes. Accepts NULL. */
void checkpointer_stop(struct checkpointer *cp);

#endif

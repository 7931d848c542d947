/* SPDX-License-Identifier: MIT */
/*
 * background.h: marking a thread of the server's own work (background.c).
 */
#ifndef HL_BACKGROUND_H
#define HL_BACKGROUND_H

/* How a thread gives way to the request workers (background.c). */
enum give_way {
	GIVE_WAY_ON_WAKING, /* SCHED_BATCH: it keeps its share; for a thread that
			     * holds what a request may wait for (the writer) */
	GIVE_WAY_ALWAYS,    /* SCHED_IDLE: it runs when no other thread wants the
			     * core; for one that holds nothing anyone waits for */
};

/* Names the calling thread (`name`, 15 bytes at most, as top -H and
 * /proc show it) and lets the request workers go first: called first
 * thing by a thread that works for no waiting person and runs often
 * (the scheduler's, the sender's). */
void background_thread(const char *name, enum give_way how);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * background.h: marking a thread of the server's own work (background.c).
 */
#ifndef HL_BACKGROUND_H
#define HL_BACKGROUND_H

/* Names the calling thread (`name`, 15 bytes at most, as top -H and
 * /proc show it) and lets the request workers go first: called first
 * thing by a thread that works for no waiting person and runs often
 * (the scheduler's, the sender's). */
void background_thread(const char *name);

#endif

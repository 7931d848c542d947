/* SPDX-License-Identifier: MIT */
/*
 * heap.h: how the server asks glibc to keep its heap (heap.c).
 */
#ifndef HL_HEAP_H
#define HL_HEAP_H

#include <stddef.h>

/* Restarts this program in place (execv, the same pid) with glibc's
 * per-thread caches of freed blocks turned off, unless GLIBC_TUNABLES
 * already names them (the operator's choice) or the restart cannot be
 * made; returns only then. Call it first thing, before any thread or
 * file is opened, with main's own argv. */
void heap_restart_without_thread_caches(char **argv);

/* Sets glibc's arena count and its mapping and trimming thresholds;
 * MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_ and MALLOC_TRIM_THRESHOLD_,
 * when set, win. Writes what the heap runs with to `detail` (one line
 * for the start-up log). Call it before the threads start. */
void heap_tune(char *detail, size_t size);

/* Hands the heap's free pages back to the system (malloc_trim): for after
 * a burst that freed a lot, which glibc would otherwise keep resident
 * while it sits in the middle of an arena. */
void heap_give_back(void);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * background.c: the server's own threads, named and put behind the
 * request workers.
 *
 * Linux's SCHED_BATCH keeps a thread's share of the CPU (its weight is
 * that of any other thread, so one that holds the writer is never
 * starved while a request waits for it, as a nice value would risk) but
 * takes away its right to preempt a running thread when it wakes. A
 * worker answering a request then runs on while the sending thread's
 * transfers and the scheduler's slices wake and wait their turn: beside
 * 10,000 e-mails and texts leaving, another sub-account's reads took p95
 * 1.19 ms with it and 1.53 ms without (make bench-outbox, medians of
 * three runs each, two batches an hour apart, on 2 cores shared with the
 * relay and the double: a hint more than a measure).
 *
 * What is left of that p95 is the wait, not the server's work: a worker
 * that wakes waits for the end of the running thread's slice (Linux 6.6
 * on keeps a slice to its end; 1.4 ms here). Timed inside the server,
 * the other client's reads took 0.86x to 1.23x their quiet p95 while its
 * client saw 1.07x to 1.89x (four runs). SCHED_IDLE for the sending
 * thread, which gives way at once, brought the client's figure to 1.23x
 * (seven runs of 6,000 e-mails), but with two processes keeping both
 * cores busy the e-mails left at 33 and 40 a second instead of 1,004 and
 * 887, and a thread put aside holding a lock (malloc's arenas, the
 * scheduler's wake-up) holds up the writer's holder. A slice of 100 us
 * for the workers (sched_setattr) gave 1.31x, and only on Linux 6.12 and
 * later.
 */
#include "lib/background.h"

#include <pthread.h>
#include <sched.h>

void background_thread(const char *name)
{
	pthread_setname_np(pthread_self(), name);
#ifdef SCHED_BATCH
	struct sched_param none = { 0 };
	pthread_setschedparam(pthread_self(), SCHED_BATCH, &none); /* best effort */
#endif
}

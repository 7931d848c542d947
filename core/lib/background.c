/* SPDX-License-Identifier: MIT */
/*
 * background.c: the server's own threads, named and put behind the
 * request workers.
 *
 * Linux's SCHED_BATCH keeps a thread's share of the CPU (its weight is
 * that of any other thread, so one that holds the writer is never
 * starved while a request waits for it, as a nice value would risk) but
 * takes away its right to preempt a running thread when it wakes. The
 * scheduler's thread runs so.
 *
 * It is not enough for a thread that keeps a core busy: a worker that
 * wakes still waits for the end of the running thread's slice (since
 * Linux 6.6 a slice is kept to its end), and that wait was most of
 * another sub-account's p95 while 6,000 e-mails left (its server-side
 * time rose by a tenth, its time seen by the client by half). A
 * SCHED_IDLE thread is put aside at once for any other, so the sending
 * thread, which holds nothing anyone waits for (sender.c), runs so:
 * beside that drain, the other client's reads took 1.23x their quiet p95
 * in place of 1.55x, its writes 1.22x in place of 1.49x (medians of
 * seven runs each, alternated), and the e-mails left at 1,120 a second in
 * place of 1,380. A slice of 100 us for both threads (sched_setattr)
 * changed nothing. The thread gives way to the host's other processes
 * too, where the server has no scheduling group of its own; under
 * systemd it has one (its session's, or its unit's).
 */
#include "lib/background.h"

#include <pthread.h>
#include <sched.h>

void background_thread(const char *name, enum give_way how)
{
	pthread_setname_np(pthread_self(), name);
	struct sched_param none = { 0 };
	/* best effort: a system without them runs the thread as any other */
#if defined(SCHED_IDLE) && defined(SCHED_BATCH)
	pthread_setschedparam(pthread_self(), how == GIVE_WAY_ALWAYS ? SCHED_IDLE : SCHED_BATCH,
			      &none);
#else
	(void)how, (void)none;
#endif
}

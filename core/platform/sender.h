/* SPDX-License-Identifier: MIT */
/*
 * sender.h: the thread that sends messages out over the network for the
 * channels provider modules deliver (hyperlevel.h, "Sending").
 *
 * A send's states, and the function that moves it on:
 *   PREPARED  on the send list of the job run that called hl_job_send:
 *             sender_prepare (the provider's prepare has said how it goes)
 *   -> gone   the run rolled back: send_list_clear
 *   -> handed over once the run committed: sender_commit
 *   ON ITS WAY on the sending thread, one of many transfers of one libcurl
 *             multi handle, each with its time-outs
 *   -> gone   the sender stopped with it still on its way (its owner's
 *             record stays as sending: it may or may not have left)
 *   SETTLED   its answer came (or the request failed), and its
 *             provider's conclude said what that means: queued for the
 *             scheduler
 *   -> gone   the scheduler gave the outcome to the owner's settle
 *             (sender_take, then sender_release).
 * The owner records a message as sending in the transaction that prepares
 * it, so a crash at any point leaves it recorded as sending, never sent
 * twice by the core.
 */
#ifndef HL_SENDER_H
#define HL_SENDER_H

#include <hyperlevel/hyperlevel.h>

#include "platform/module.h"

struct sender;

/* The sends one job run prepared, in order; it owns them. Starts zeroed. */
struct send_list {
	struct hl_send *head, *tail;
};

/* Start the sending thread for the loaded modules' `channels` (kept: they
 * must outlive it). 0, HL_ENOMEM or HL_EIO. */
int sender_start(struct sender **out, const struct mod_channel *channels, int n);
/* Take no more sends; give those on their way up to `grace_ms` to end,
 * then stop the thread, dropping what is still on its way. NULL is
 * ignored. */
void sender_stop(struct sender *s, int grace_ms);
/* Free the sender and every send it still holds (NULL is ignored). */
void sender_free(struct sender *s);

/* hl_job_send, for the scheduler: prepare `m` for `owner` onto `l`. */
int sender_prepare(struct sender *s, struct hl_job_run *run, struct hl_mod *owner,
		   const struct hl_outgoing *m, struct send_list *l, char *why, size_t size);
/* After the run committed: hand `l`'s sends to the thread (`l` is left
 * empty). */
void sender_commit(struct sender *s, struct send_list *l);
/* The run rolled back: free `l`'s sends and empty it. */
void send_list_clear(struct send_list *l);
/* Put `from`'s sends after `to`'s (`from` is left empty). */
void send_list_move(struct send_list *to, struct send_list *from);

/* For the scheduler: `wake(arg)` is called on the sending thread after a
 * send settled; NULL stops the calls. */
void sender_on_settled(struct sender *s, void (*wake)(void *arg), void *arg);
/* How many settled sends wait (read without the lock). */
int sender_settled(const struct sender *s);
/* Take up to `max` settled sends, oldest first, as a chain (NULL: none). */
struct hl_send *sender_take(struct sender *s, int max);
/* One settled send of a chain: the next, its outcome, and its owner and
 * settle function. */
struct hl_send *send_next(const struct hl_send *t);
void send_outcome(const struct hl_send *t, struct hl_outcome *o, struct hl_mod **owner,
		  int (**settle)(struct hl_job_run *, const struct hl_outcome *));
/* Free a chain sender_take gave. */
void sender_release(struct hl_send *chain);
/* Give a chain sender_take gave back, first in line: its outcomes could
 * not be recorded (the database failed), and are tried again. */
void sender_put_back(struct sender *s, struct hl_send *chain);

/* The figures since the start, for the metrics. Any thread. */
struct sender_stat {
	long long prepared;   /* sends handed over after a commit */
	long long sent;       /* settled as sent */
	long long later;      /* settled as to be tried again */
	long long failed;     /* settled as failed */
	int in_flight;        /* on their way now */
};
void sender_snapshot(struct sender *s, struct sender_stat *out);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * outbox.c: what makes messages leave. Each outbound message has a row in
 * the outbox (migration 009) until it is sent or has failed. The outbox
 * job hands due messages to their channel's provider (hl_job_send),
 * recording each as sending in the same transaction, so that a message
 * is never on its way without the database saying so; the core sends
 * them once that commits and gives each outcome back to outbox_settle.
 *
 * A temporary failure is tried again after a back-off that doubles per
 * attempt (with jitter, so that a relay that comes back is not met by
 * every message at once), for up to a day; a permanent one fails at
 * once, with the provider's reason. A message found on its way when the
 * server starts (it crashed or stopped with it in flight) may or may not
 * have left: it is shown as unknown, never sent again blindly, and a
 * person may retry it (POST .../messages/:message/retry), as a failed one.
 *
 * Fairness: each slice takes the due messages a few per sub-account in
 * turn, and a sub-account sends at most `send_rate` a second (a token
 * bucket per sub-account, kept in memory by the one scheduler thread), so
 * one client's blast never holds up the others; the core bounds what a
 * provider has on its way at once.
 */
#include "conversations.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DAY_MS (24 * 3600 * 1000LL)
/* A message whose channel is not set up is due again when the provider
 * says it is (channel.ready), when the server starts again (a module or
 * a relay enabled), or an hour later, in case that event was lost (they
 * are kept in memory, at most once): 10,000 of them looked at each
 * minute kept the writer busy for nothing. */
#define SET_UP_RECHECK_MS (3600 * 1000LL)
#define PER_LOCATION 8                /* messages of one sub-account per turn, at least */
#define BATCH 256                     /* messages a slice looks at, at most */
#define CHANNEL_SIZE 17               /* a channel's name (16 bytes at most) and its NUL */
#define MAX_BACKOFF_MS (3600 * 1000LL)

long long conv_send_rate = 20;         /* messages a second per sub-account */
int64_t conv_boot;                     /* this run's mark on what it hands over */
long long conv_retry_first_ms = 30000; /* the first back-off */

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the rate per sub-account ------------------------------------------- */

/* A token bucket per sub-account, direct-mapped by id: two sub-accounts
 * that share a slot share a bucket, which errs on the slow side. */
#define BUCKETS 4096
static struct bucket {
	int64_t location;
	double tokens;
	int64_t at_ms;
} buckets[BUCKETS];

static int take_token(int64_t location, int64_t now)
{
	struct bucket *b = &buckets[(uint64_t)location % BUCKETS];
	double rate = (double)conv_send_rate;
	if (b->location != location) {
		b->location = location;
		b->tokens = rate;
		b->at_ms = now;
	}
	b->tokens += (double)(now - b->at_ms) * rate / 1000;
	if (b->tokens > rate)
		b->tokens = rate; /* a second's worth at most */
	b->at_ms = now;
	if (b->tokens < 1)
		return 0;
	b->tokens -= 1;
	return 1;
}

/* When `location`'s bucket will hold a turn's worth of tokens (or a
 * second's, at a rate below that), in ms from the last take_token: the
 * next slice then, not at the period (a sub-account's e-mails at
 * send_rate 500 left at 460 a second, its slices a second apart). */
static unsigned token_wait_ms(int64_t location)
{
	const struct bucket *b = &buckets[(uint64_t)location % BUCKETS];
	double rate = (double)conv_send_rate;
	double want = rate < PER_LOCATION ? rate : PER_LOCATION;
	return b->tokens >= want ? 1 : (unsigned)((want - b->tokens) * 1000 / rate) + 1;
}

/* ---- recording a message's state ---------------------------------------- */

/* Tell the conversation's watchers: message.status, for whom the
 * conversation is assigned to. */
static int publish_status(struct hl_job_run *run, int64_t location, int64_t message,
			  int64_t conversation, int64_t assigned, const char *status)
{
	char data[160];
	snprintf(data, sizeof(data), "{\"conversation_id\":%lld,\"message_id\":%lld,"
		 "\"status\":\"%s\"}", (long long)conversation, (long long)message, status);
	return hl_job_publish_assigned(run, "message.status", location, message, assigned, data);
}

/* Set message `id`'s status and reason (NULL: none), and its reference
 * when one is given; then publish it, when that changed anything (a
 * message still waiting for its channel when looked at again: its
 * watchers need not hear the same words again). */
static int set_status(struct hl_job_run *run, int64_t location, int64_t id, const char *status,
		      const char *reason, const char *reference)
{
	struct hl_db *db = hl_job_db(run);
	sqlite3_stmt *st = hl_stmt_scoped(db, location, "UPDATE messages SET status = :status,"
		" status_reason = :reason, reference = coalesce(:reference, reference)"
		" WHERE id = :id AND location_id = :location AND (status IS NOT :status"
		" OR status_reason IS NOT :reason OR :reference IS NOT NULL)");
	hl_bind_text(st, ":status", status);
	hl_bind_text(st, ":reason", reason);
	hl_bind_text(st, ":reference", reference);
	hl_bind_int(st, ":id", id);
	int64_t changed = hl_step_changes(st);
	if (changed <= 0) /* deleted meanwhile, or as it was: a channel still not set up */
		return changed < 0 ? HL_EDB : 0;
	st = hl_stmt_scoped(db, location, "SELECT cv.id, cv.assigned_to FROM messages m"
		" JOIN conversations cv ON cv.id = m.conversation_id"
		" WHERE m.id = :id AND m.location_id = :location");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":id", id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_reset(st);
		return HL_EDB;
	}
	int64_t conversation = sqlite3_column_int64(st, 0);
	int64_t assigned = sqlite3_column_int64(st, 1);
	sqlite3_reset(st);
	return publish_status(run, location, id, conversation, assigned, status);
}

static int leave_outbox(struct hl_job_run *run, int64_t location, int64_t id)
{
	sqlite3_stmt *st = hl_stmt_scoped(hl_job_db(run), location,
		"DELETE FROM outbox WHERE message_id = :id AND location_id = :location");
	hl_bind_int(st, ":id", id);
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

/* Due again at `due` (Unix ms); `tried`: it was handed over (attempts
 * grows, the first try is remembered), or it is on its way (`due` 0). */
static int reschedule(struct hl_job_run *run, int64_t location, int64_t id, int64_t due,
		      int tried)
{
	sqlite3_stmt *st = hl_stmt_scoped(hl_job_db(run), location,
		"UPDATE outbox SET due_at = nullif(:due, 0), attempts = attempts + :tried,"
		" first_tried_at = CASE WHEN :tried THEN coalesce(first_tried_at, :now)"
		" ELSE first_tried_at END, boot = :boot"
		" WHERE message_id = :id AND location_id = :location");
	hl_bind_int(st, ":due", due);
	hl_bind_int(st, ":boot", conv_boot);
	hl_bind_int(st, ":tried", tried);
	hl_bind_int(st, ":now", now_ms());
	hl_bind_int(st, ":id", id);
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

/* ---- the outcome ----------------------------------------------------------- */

/* The wait before attempt `attempts` + 1: the first back-off doubled per
 * attempt, up to an hour, between half of that and all of it. */
static int64_t backoff_ms(int64_t attempts)
{
	int64_t wait = conv_retry_first_ms;
	for (int64_t i = 1; i < attempts && wait < MAX_BACKOFF_MS; i++)
		wait *= 2;
	if (wait > MAX_BACKOFF_MS)
		wait = MAX_BACKOFF_MS;
	return wait / 2 + (int64_t)(random() % (wait / 2 + 1));
}

/* When the message was first handed over, and how often (0, 0 when it
 * has no outbox row). */
static int tries_of(struct hl_job_run *run, int64_t location, int64_t id, int64_t *first,
		    int64_t *attempts)
{
	sqlite3_stmt *st = hl_stmt_scoped(hl_job_db(run), location,
		"SELECT coalesce(first_tried_at, 0), attempts FROM outbox"
		" WHERE message_id = :id AND location_id = :location");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":id", id);
	int rc = sqlite3_step(st);
	*first = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	*attempts = rc == SQLITE_ROW ? sqlite3_column_int64(st, 1) : 0;
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : HL_EDB;
}

static int settle_later(struct hl_job_run *run, const struct hl_outcome *o)
{
	int64_t first, attempts, now = now_ms();
	int rc = tries_of(run, o->location_id, o->id, &first, &attempts);
	if (rc)
		return rc;
	if (first && now - first >= DAY_MS) {
		char reason[400];
		snprintf(reason, sizeof(reason), "gave up after a day of trying: %s",
			 o->reason ? o->reason : "no answer");
		return leave_outbox(run, o->location_id, o->id) ? HL_EDB
			: set_status(run, o->location_id, o->id, "failed", reason, NULL);
	}
	int64_t wait = o->retry_after_s ? (int64_t)o->retry_after_s * 1000 : backoff_ms(attempts);
	char reason[400];
	snprintf(reason, sizeof(reason), "%s; trying again in %lld s",
		 o->reason ? o->reason : "no answer", (long long)((wait + 999) / 1000));
	rc = reschedule(run, o->location_id, o->id, now + wait, 0);
	return rc ? rc : set_status(run, o->location_id, o->id, "queued", reason, NULL);
}

/* A report that came before this outcome (received.c): applied now. */
static int apply_early_report(struct hl_job_run *run, const struct hl_outcome *o)
{
	sqlite3_stmt *st = hl_stmt_scoped(hl_job_db(run), o->location_id, "SELECT status, reason"
		" FROM message_early_reports WHERE reference = :reference AND location_id = :location");
	if (!st)
		return HL_EDB;
	hl_bind_text(st, ":reference", o->reference);
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(st);
		return rc == SQLITE_DONE ? 0 : HL_EDB;
	}
	char status[16], reason[256];
	snprintf(status, sizeof(status), "%s", (const char *)sqlite3_column_text(st, 0));
	const char *why = (const char *)sqlite3_column_text(st, 1);
	snprintf(reason, sizeof(reason), "%s", why ? why : "");
	sqlite3_reset(st);
	st = hl_stmt_scoped(hl_job_db(run), o->location_id, "DELETE FROM message_early_reports"
			    " WHERE reference = :reference AND location_id = :location");
	hl_bind_text(st, ":reference", o->reference);
	if (hl_step_changes(st) < 0)
		return HL_EDB;
	return set_status(run, o->location_id, o->id, status, reason[0] ? reason : NULL, NULL);
}

int outbox_settle(struct hl_job_run *run, const struct hl_outcome *o)
{
	if (o->kind == HL_SEND_LATER)
		return settle_later(run, o);
	int rc = leave_outbox(run, o->location_id, o->id);
	if (rc)
		return rc;
	if (o->kind == HL_SENT && (rc = set_status(run, o->location_id, o->id, "sent", NULL,
						    o->reference)))
		return rc;
	if (o->kind == HL_SENT)
		return o->reference ? apply_early_report(run, o) : 0;
	return set_status(run, o->location_id, o->id, "failed",
			  o->reason ? o->reason : "refused by the provider", NULL);
}

/* ---- handing messages over -------------------------------------------------- */

/* The sub-accounts with messages due: how many there are sets how many
 * each may hand over in a slice. */
#define DUE_PLACES_SQL \
	"SELECT count(*) FROM locations l WHERE EXISTS (SELECT 1 FROM outbox o" \
	" WHERE o.location_id = l.id AND o.due_at <= :now)"

/* The due messages and their channels, the first :per_location of each
 * sub-account, in turns (read whole before any is handed over, since
 * handing over changes the rows it reads). Each sub-account's are read
 * through outbox_location_due, so a slice reads what it hands over,
 * however many wait behind them. */
#define DUE_SQL \
	"SELECT message_id, location_id, (SELECT channel FROM messages WHERE id = message_id)" \
	" FROM (SELECT o.message_id, o.location_id, o.due_at," \
	" row_number() OVER (PARTITION BY o.location_id ORDER BY o.due_at, o.message_id) AS turn" \
	" FROM locations l JOIN outbox o ON o.message_id IN (SELECT message_id FROM outbox" \
	"  WHERE location_id = l.id AND due_at <= :now ORDER BY due_at LIMIT :per_location))" \
	" ORDER BY turn, due_at LIMIT :batch"

/* The e-mails of the thread before message m, with the Message-ID each
 * was sent or received with: a reply names the last (In-Reply-To) and
 * the last ten (References), so that it threads in the contact's mail
 * program. */
#define EARLIER_EMAILS \
	"SELECT p.reference, p.id FROM messages p WHERE p.conversation_id = m.conversation_id" \
	" AND p.id < m.id AND p.channel = 'email' AND p.reference IS NOT NULL"

/* One of them, with what its channel needs: the contact's address or
 * number (in E.164; one kept before numbers were, as it was typed), and
 * for an e-mail the data the email module takes (its send.c). */
#define MESSAGE_SQL \
	"SELECT m.subject, m.body," \
	" CASE m.channel WHEN 'email' THEN c.email" \
	"  ELSE coalesce(e164(c.phone, (SELECT country FROM locations WHERE id = m.location_id))," \
	"   c.phone) END," \
	" EXISTS (SELECT 1 FROM message_opt_outs o WHERE o.contact_id = cv.contact_id" \
	"  AND o.channel = m.channel), m.marketing," \
	" iif(m.channel = 'email', json_object(" \
	"  'to_name', nullif(trim(coalesce(c.first_name, '') || ' ' || coalesce(c.last_name, '')), '')," \
	"  'in_reply_to', (SELECT reference FROM (" EARLIER_EMAILS ") ORDER BY id DESC LIMIT 1)," \
	"  'references', (SELECT group_concat(reference, ' ') FROM (SELECT reference, id FROM (" \
	"   " EARLIER_EMAILS " ORDER BY id DESC LIMIT 10) ORDER BY id))," \
	"  'marketing', json(iif(m.marketing, 'true', 'false')), 'attachments', json(m.attachments))," \
	"  NULL)" \
	" FROM messages m JOIN conversations cv ON cv.id = m.conversation_id" \
	" LEFT JOIN contacts c ON c.id = cv.contact_id" \
	" WHERE m.id = :id AND m.location_id = :location"

struct due {
	int64_t id, location;
	char channel[CHANNEL_SIZE];
	const char *subject, *body, *to, *data;
	int opted_out, marketing;
};

/* The channels found full in a slice: their other messages wait for a
 * later one, unread. */
struct full {
	char channel[8][CHANNEL_SIZE];
	int n;
};

static int is_full(const struct full *f, const char *channel)
{
	for (int i = 0; i < f->n; i++)
		if (!strcmp(f->channel[i], channel))
			return 1;
	return 0;
}

/* Hand `d` over, or say why it waits or fails. 1 when the channel is
 * full (leave its other messages for a later slice), 0, or HL_E. */
static int hand_over(struct hl_job_run *run, const struct due *d)
{
	char why[256];
	if (d->opted_out) { /* since it was written: a STOP meanwhile */
		snprintf(why, sizeof(why), "the contact opted out of %s", conv_channel_label(d->channel));
		return leave_outbox(run, d->location, d->id) ? HL_EDB
			: set_status(run, d->location, d->id, "failed", why, NULL);
	}
	if (d->marketing && !strcmp(d->channel, "sms")) {
		int until_min;
		int64_t until = quiet_until(run, d->location, now_ms() / 1000, &until_min);
		if (until < 0)
			return (int)until;
		if (until) {
			snprintf(why, sizeof(why), "a marketing text, held for the quiet hours until"
				 " %02d:%02d", until_min / 60, until_min % 60);
			return reschedule(run, d->location, d->id, until * 1000, 0) ? HL_EDB
				: set_status(run, d->location, d->id, "queued", why, NULL);
		}
	}
	if (!d->to || !*d->to) {
		snprintf(why, sizeof(why), "the contact has no %s",
			 strcmp(d->channel, "email") ? "phone number" : "e-mail address");
		return leave_outbox(run, d->location, d->id) ? HL_EDB
			: set_status(run, d->location, d->id, "failed", why, NULL);
	}
	struct hl_outgoing out = { .channel = d->channel, .location_id = d->location, .id = d->id,
				   .to = d->to, .subject = d->subject, .body = d->body,
				   .data = d->data, .settle = outbox_settle };
	int rc = hl_job_send(run, &out, why, sizeof(why));
	if (rc == HL_ETOOBIG || rc == HL_ESTATE)
		return 1;
	if (rc == HL_ENOENT && !why[0])
		snprintf(why, sizeof(why), "no %s provider is set up", conv_channel_label(d->channel));
	if (rc == HL_ENOENT) /* waits, saying why */
		return reschedule(run, d->location, d->id, now_ms() + SET_UP_RECHECK_MS, 0) ? HL_EDB
			: set_status(run, d->location, d->id, "queued", why, NULL);
	if (rc == HL_EINVAL)
		return leave_outbox(run, d->location, d->id) ? HL_EDB
			: set_status(run, d->location, d->id, "failed", why, NULL);
	if (rc < 0)
		return rc;
	rc = reschedule(run, d->location, d->id, 0, 1);
	return rc ? rc : set_status(run, d->location, d->id, "sending", NULL, NULL);
}

/* Read message `d->id` and hand it over (see hand_over); a channel
 * found full joins `full`. */
static int send_one(struct hl_job_run *run, struct due *d, struct full *full)
{
	sqlite3_stmt *st = hl_stmt_scoped(hl_job_db(run), d->location, MESSAGE_SQL);
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":id", d->id);
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(st);
		return rc == SQLITE_DONE ? 0 : HL_EDB;
	}
	d->subject = (const char *)sqlite3_column_text(st, 0);
	d->body = (const char *)sqlite3_column_text(st, 1);
	d->to = (const char *)sqlite3_column_text(st, 2);
	d->opted_out = sqlite3_column_int(st, 3);
	d->marketing = sqlite3_column_int(st, 4);
	d->data = (const char *)sqlite3_column_text(st, 5);
	/* hl_job_send copies what it keeps; the columns live until the
	 * reset. */
	rc = hand_over(run, d);
	if (rc == 1 && full->n < 8)
		snprintf(full->channel[full->n++], sizeof(full->channel[0]), "%s", d->channel);
	sqlite3_reset(st);
	return rc == 1 ? 0 : rc;
}

/* Messages on their way with another run's mark: the process that sent
 * them ended before their outcome was recorded. Looked for in every
 * slice (the index of those on their way holds a few rows). HL_JOB_MORE
 * while more remain. */
static int recover(struct hl_job_run *run)
{
	int64_t ids[BATCH][2];
	int n = 0, rc;
	sqlite3_stmt *st = hl_stmt(hl_job_db(run), "SELECT message_id, location_id FROM outbox"
				   " WHERE due_at IS NULL AND boot IS NOT :boot LIMIT :batch");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":batch", BATCH);
	hl_bind_int(st, ":boot", conv_boot);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ids[n][0] = sqlite3_column_int64(st, 0);
		ids[n++][1] = sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return HL_EDB;
	for (int i = 0; i < n; i++)
		if ((rc = leave_outbox(run, ids[i][1], ids[i][0])) ||
		    (rc = set_status(run, ids[i][1], ids[i][0], "unknown", "the server stopped while"
				     " it was being sent: it may or may not have left", NULL)))
			return rc;
	return n == BATCH ? HL_JOB_MORE : HL_JOB_DONE;
}

/* Reports no message claimed within an hour are not ours: gone, looked
 * for once an hour. */
static int sweep_early_reports(struct hl_job_run *run)
{
	static int64_t swept_at;
	int64_t now = now_ms();
	if (now - swept_at < 3600 * 1000LL)
		return 0;
	swept_at = now;
	sqlite3_stmt *st = hl_stmt(hl_job_db(run), "DELETE FROM message_early_reports"
				   " WHERE at < :before");
	hl_bind_int(st, ":before", now - 3600 * 1000LL);
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

static int clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* The due messages' ids into `due` (at most `want`, up to BATCH): how
 * many, or HL_EDB. Each sub-account with messages due gets a share, at
 * least PER_LOCATION: one sending alone fills it. */
static int find_due(struct hl_job_run *run, struct due *due, int want)
{
	int64_t now = now_ms(), places;
	sqlite3_stmt *st = hl_stmt(hl_job_db(run), DUE_PLACES_SQL);
	hl_bind_int(st, ":now", now);
	if (hl_step_int(st, &places) < 0)
		return HL_EDB;
	if (!places)
		return 0;
	st = hl_stmt(hl_job_db(run), DUE_SQL);
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":now", now);
	hl_bind_int(st, ":per_location", places * PER_LOCATION >= want ? PER_LOCATION : want / places);
	hl_bind_int(st, ":batch", want);
	int n = 0, rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && n < want) {
		due[n].id = sqlite3_column_int64(st, 0);
		due[n].location = sqlite3_column_int64(st, 1);
		const char *channel = (const char *)sqlite3_column_text(st, 2);
		snprintf(due[n++].channel, sizeof(due[0].channel), "%s", channel ? channel : "");
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? n : HL_EDB;
}

/* Channels set up whose waiting messages are not all due yet (the one
 * scheduler thread's own). */
#define WAKE_PIECE 256
#define READIED_MAX 32
#define READIED_AGAIN_MS 10
struct readied {
	int64_t location;
	char channel[CHANNEL_SIZE];
};
static struct readied readied[READIED_MAX];
static int nreadied;

/* Make up to `piece` of `r`'s waiting messages due (-1: all of them, as
 * SQLite reads a negative LIMIT): how many, or HL_EDB. */
static int64_t wake_piece(struct hl_job_run *run, const struct readied *r, int piece)
{
	sqlite3_stmt *st = hl_stmt_scoped(hl_job_db(run), r->location,
		"UPDATE outbox SET due_at = 0 WHERE location_id = :location AND message_id IN"
		" (SELECT o.message_id FROM outbox o JOIN messages m ON m.id = o.message_id"
		"  WHERE o.location_id = :location AND o.due_at > 0 AND m.channel = :channel"
		"  AND m.status = 'queued' LIMIT :piece)");
	hl_bind_text(st, ":channel", r->channel);
	hl_bind_int(st, ":piece", piece);
	return hl_step_changes(st);
}

/* A piece of the oldest channel set up, each slice, the rest of its
 * budget left for sending. A channel leaves the list only once a piece
 * finds none left, so that a slice rolled back does its piece again. */
static int wake_readied_left(struct hl_job_run *run)
{
	if (!nreadied)
		return 0;
	int64_t changed = wake_piece(run, &readied[0], WAKE_PIECE);
	if (changed < 0)
		return HL_EDB;
	if (!changed)
		memmove(readied, readied + 1, (size_t)--nreadied * sizeof(readied[0]));
	if (nreadied)
		hl_job_again_in(run, READIED_AGAIN_MS);
	return 0;
}

/* At a run's start, what waited before it for its channel or its time
 * (never a message tried already, which keeps its back-off) is due: a
 * module or a relay may have been enabled. Again each slice until one
 * finds none left, so that a slice rolled back wakes them again; those
 * put back to wait in this run carry its boot mark. */
static int wake_waiting(struct hl_job_run *run)
{
	static int woken;
	if (woken)
		return 0;
	sqlite3_stmt *st = hl_stmt(hl_job_db(run), "UPDATE outbox SET due_at = 0"
				   " WHERE due_at > :now AND attempts = 0 AND boot IS NOT :boot");
	hl_bind_int(st, ":now", now_ms());
	hl_bind_int(st, ":boot", conv_boot);
	int64_t changed = hl_step_changes(st);
	if (changed < 0)
		return HL_EDB;
	woken = !changed;
	return 0;
}

int outbox_slice(struct hl_job_run *run)
{
	int rc = wake_waiting(run);
	if (!rc)
		rc = wake_readied_left(run);
	if (!rc)
		rc = recover(run);
	if (rc)
		return rc;
	if ((rc = sweep_early_reports(run)))
		return rc;
	/* How many a slice reads: a whole batch while all it read was handed
	 * over; else (a channel was full, a sub-account at its rate) about
	 * twice what the last slice handed over, since an outcome frees a
	 * place or two (reading 256 to hand over three took 39% of the
	 * scheduler's time while 10,000 e-mails left). */
	static int want = BATCH;
	static struct due due[BATCH];
	int n = find_due(run, due, want);
	if (n < 0)
		return n;
	struct full full = { .n = 0 };
	int i = 0, handed = 0;
	int64_t now = now_ms();
	for (; i < n && !hl_job_over_budget(run); i++) {
		if (is_full(&full, due[i].channel))
			continue;
		if (!take_token(due[i].location, now)) {
			hl_job_again_in(run, token_wait_ms(due[i].location));
			continue; /* its sub-account's rate: a later slice */
		}
		if ((rc = send_one(run, &due[i], &full)))
			return rc;
		handed++;
	}
	/* More at once only when this slice got through and there may be
	 * more; a slice held up by rates or full channels waits for the
	 * period, or for an outcome (message.status wakes the job). */
	int whole = n == want;
	want = handed == n ? BATCH : clamp(2 * handed, 2 * PER_LOCATION, BATCH);
	return i < n || (whole && handed && !full.n) ? HL_JOB_MORE : HL_JOB_DONE;
}

/* ---- a person's retry, a channel set up ---------------------------------------- */

/* POST /api/conversations/:id/messages/:message/retry: a failed or
 * unknown message queued again; 200 with it. */
int conv_retry(struct hl_req *req)
{
	int64_t id, message;
	struct conversation cv;
	if (hl_param_id(req, "id", &id) || hl_param_id(req, "message", &message))
		return 0;
	if (!hl_write_begin(req))
		return HL_EDB;
	int rc = conv_find(req, id, &cv);
	if (rc <= 0)
		return rc ? rc : hl_reply_error(req, 404, "not_found", "no such conversation");
	sqlite3_stmt *st = hl_scoped_write(req, "SELECT status, direction FROM messages"
		" WHERE id = :id AND conversation_id = :conversation AND location_id = :location");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":id", message);
	hl_bind_int(st, ":conversation", id);
	if ((rc = sqlite3_step(st)) != SQLITE_ROW) {
		sqlite3_reset(st);
		return rc == SQLITE_DONE ? hl_reply_error(req, 404, "not_found", "no such message")
					 : HL_EDB;
	}
	int again = !strcmp((const char *)sqlite3_column_text(st, 1), "outbound") &&
		    (!strcmp((const char *)sqlite3_column_text(st, 0), "failed") ||
		     !strcmp((const char *)sqlite3_column_text(st, 0), "unknown"));
	sqlite3_reset(st);
	if (!again)
		return hl_reply_error(req, 409, "conflict", "only a message that failed, or whose"
				      " sending is unknown, can be sent again");
	/* The old reference goes: a late report on the first try must not
	 * reach the new one. */
	st = hl_scoped_write(req, "UPDATE messages SET status = 'queued', status_reason = NULL,"
			     " reference = NULL WHERE id = :id AND location_id = :location");
	hl_bind_int(st, ":id", message);
	if (hl_step_changes(st) < 0 || conv_queue(req, message))
		return HL_EDB;
	rc = conv_publish(req, "message.retried", message, cv.contact, id, message, NULL);
	return rc ? rc : conv_reply_message(req, 200, message);
}

int conv_queue(struct hl_req *req, int64_t message)
{
	sqlite3_stmt *st = hl_scoped_write(req, "INSERT INTO outbox (message_id, location_id,"
					   " due_at) VALUES (:id, :location, 0)");
	hl_bind_int(st, ":id", message);
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

/* channel.ready, published by a provider when a sub-account has set its
 * channel up ({"channel": "sms"}): what waited for it is made due by the
 * outbox's next slices, a piece each (wake_readied_left). In one
 * statement, 10,000 texts waiting held the writer 124 ms, and another
 * sub-account's writes with it. Kept in memory: after a restart
 * wake_waiting finds them. */
int outbox_channel_ready(struct hl_job_run *run, const struct hl_event *ev)
{
	sqlite3_stmt *st = hl_stmt(hl_job_db(run), "SELECT json_extract(:data, '$.channel')");
	if (!st)
		return HL_EDB;
	hl_bind_text(st, ":data", ev->data);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_reset(st);
		return HL_EDB;
	}
	struct readied r = { .location = ev->location_id };
	const char *channel = (const char *)sqlite3_column_text(st, 0);
	snprintf(r.channel, sizeof(r.channel), "%s", channel ? channel : "");
	sqlite3_reset(st);
	if (nreadied == READIED_MAX)
		return wake_piece(run, &r, -1) < 0 ? HL_EDB : 0; /* rare: many set up at once */
	readied[nreadied++] = r;
	return 0;
}

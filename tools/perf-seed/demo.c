/* SPDX-License-Identifier: MIT */
/*
 * demo.c: what `make run` shows a newcomer (perf-seed --demo): the deals,
 * conversations, tasks and invoices of an agency that is doing well,
 * dated from the moment the data is made (s->now), in place of the
 * benchmark's, which are dated from SEED_NOW and spread evenly for the
 * queries' sake. The tables and the counts per location are the same;
 * what differs is when things happen and in which state they are.
 *
 * - deals: a little over half open, spread over the stages as a funnel;
 *   about a quarter won and a seventh lost, closed over the last half
 *   year, more of them lately;
 * - conversations: with most contacts, the last message of most of them
 *   in the last month, so that the health scores (the contacts module's
 *   upkeep.c: a message received or sent in the last 30 days, a deal in
 *   the last 90, a task in the last 30) spread from 0 to 100;
 * - tasks: half done, most open ones due in the coming weeks, about one
 *   in thirty a few days late;
 * - invoices: every state in every location (draft, sent, paid, partly
 *   paid, overdue, void), most of them paid, more of them lately.
 *
 * It must not touch what the benchmark's data set is made of: fill.c
 * calls it only with --demo, and it draws its own random numbers.
 */
#include "seed.h"
#include "words.h"

#include <stdio.h>
#include <string.h>

#define HOUR 3600LL

/* A time in the last `days` days, recent ones more likely: a share
 * sqrt(d / days) of them in the last d days. */
static int64_t lately(struct seed *s, int days)
{
	return s->now - 60 - (int64_t)rng_skewed(&s->rng, days * 24) * HOUR -
	       rng_below(&s->rng, HOUR);
}

/* ---- deals -------------------------------------------------------------------- */

/* Open deals per stage, in percent: many new leads, few closing. */
static const int funnel[] = { 30, 22, 18, 13, 10, 7 };
_Static_assert(COUNT(funnel) == COUNT(stage_names), "a share for each stage");

static int funnel_stage(struct seed *s)
{
	int64_t r = rng_below(&s->rng, 100);
	int i = 0;
	while (i < COUNT(funnel) - 1 && r >= funnel[i])
		r -= funnel[i++];
	return i;
}

void demo_deals(struct seed *s, struct place *p)
{
	char name[128], created[32], updated[32];
	sqlite3_stmt *st = s->table[T_OPPORTUNITIES].st;
	add_pipeline(s, p);
	for (int64_t i = 0; i < p->deals; i++) {
		int64_t r = rng_below(&s->rng, 100);
		const char *status = r < 55 ? "open" : r < 83 ? "won" : r < 97 ? "lost" : "abandoned";
		int open = r < 55, won = !open && r < 83;
		/* Won deals went all the way; lost ones fell out anywhere. */
		int stage = open ? funnel_stage(s)
			  : won ? COUNT(stage_names) - 1 : (int)rng_below(&s->rng, COUNT(stage_names));
		int64_t contact = rng_percent(&s->rng, 95) ? some_contact(s, p) : 0;
		int64_t touched = lately(s, open ? 30 : 180);
		int64_t born = touched - DAY - rng_below(&s->rng, 60 * DAY);
		note_activity(p, contact, A_DEAL, born);
		snprintf(name, sizeof(name), "%s #%lld", deal_kinds[rng_below(&s->rng, COUNT(deal_kinds))],
			 (long long)(i + 1));
		iso_time(born, created);
		iso_time(touched, updated);
		bind_int(st, 1, next_id(s, T_OPPORTUNITIES));
		bind_int(st, 2, p->id);
		bind_int(st, 3, p->pipeline);
		bind_int(st, 4, p->first_stage + stage);
		bind_ref(st, 5, contact);
		bind_text(st, 6, name);
		bind_int(st, 7, 50000 + (int64_t)rng_skewed(&s->rng, 1000) * 4950);
		bind_text(st, 8, status);
		bind_ref(st, 9, someone(s, p, 10));
		bind_text(st, 10, created);
		bind_text(st, 11, updated);
		bind_text(st, 12, open ? NULL : updated);
		insert(s, T_OPPORTUNITIES);
	}
}

/* ---- conversations ------------------------------------------------------------ */

/* n messages an even step apart, the last at `last`: the contact wrote
 * first, then mostly turn about. Returns whether the last came in. */
static int demo_messages(struct seed *s, const struct place *p, int64_t conversation,
			 const char *channel, int64_t n, int64_t last, const char **preview,
			 int64_t contact)
{
	static const char *const outbound_status[] = { "delivered", "read", "read", "sent" };
	char t[32];
	sqlite3_stmt *st = s->table[T_MESSAGES].st;
	/* Mostly a quick exchange; now and then a reply weeks later, which
	 * leaves only one side of it in the last month. */
	int64_t step = rng_percent(&s->rng, 75) ? HOUR + rng_below(&s->rng, 36 * HOUR)
						: 8 * DAY + rng_below(&s->rng, 32 * DAY);
	int64_t when = last - (n - 1) * step;
	int inbound = 1;
	for (int64_t k = 0; k < n; k++, when += step) {
		if (k && !rng_percent(&s->rng, 20))
			inbound = !inbound;
		const char *body = inbound ? inbound_texts[rng_below(&s->rng, COUNT(inbound_texts))]
					   : outbound_texts[rng_below(&s->rng, COUNT(outbound_texts))];
		iso_time(when, t);
		bind_int(st, 1, next_id(s, T_MESSAGES));
		bind_int(st, 2, p->id);
		bind_int(st, 3, conversation);
		bind_text(st, 4, inbound ? "inbound" : "outbound");
		bind_text(st, 5, channel);
		bind_text(st, 6, body);
		bind_text(st, 7, inbound ? "received"
				 : outbound_status[rng_below(&s->rng, COUNT(outbound_status))]);
		bind_text(st, 8, t);
		insert(s, T_MESSAGES);
		*preview = body;
		note_activity(p, contact, inbound ? A_RECEIVED : A_SENT, when);
	}
	return inbound;
}

/* As fill.c's: conversations are written after their messages. */
void demo_conversations(struct seed *s, struct place *p)
{
	int64_t count = p->contacts * 17 / 20;
	if (count > p->messages)
		count = p->messages;
	sqlite3_stmt *st = s->table[T_CONVERSATIONS].st;
	for (int64_t k = 0; k < count; k++) {
		int64_t id = next_id(s, T_CONVERSATIONS), last = lately(s, 40);
		int64_t n = p->messages / count + (k < p->messages % count);
		int64_t contact = p->first_contact + k; /* ids follow no order of theirs */
		const char *channel = channels[rng_skewed(&s->rng, COUNT(channels))], *preview = NULL;
		char last_at[32], created[32];
		int last_inbound = demo_messages(s, p, id, channel, n, last, &preview, contact);
		/* Replies are quick: only some of the last day's wait to be read. */
		int unread = last_inbound && last > s->now - DAY && rng_percent(&s->rng, 50);
		iso_time(last, last_at);
		iso_time(last - n * 40 * DAY, created);
		bind_int(st, 1, id);
		bind_int(st, 2, p->id);
		bind_int(st, 3, contact);
		bind_text(st, 4, channel);
		bind_ref(st, 5, someone(s, p, 20));
		bind_text(st, 6, n ? last_at : NULL);
		bind_text(st, 7, preview);
		bind_int(st, 8, unread);
		bind_text(st, 9, created);
		insert(s, T_CONVERSATIONS);
	}
}

/* ---- tasks ---------------------------------------------------------------------- */

/* When a task is due: a done one in the last two months (or just ahead),
 * a late one half a day to three and a half days ago, an open one in the
 * next 30 days, this week's more often. */
static int64_t task_due(struct seed *s, int done, int late)
{
	if (done)
		return s->now + 2 * DAY - rng_below(&s->rng, 62 * DAY);
	if (late)
		return s->now - DAY / 2 - rng_below(&s->rng, 3 * DAY);
	return s->now + HOUR + (int64_t)rng_skewed(&s->rng, 30 * 24) * HOUR;
}

void demo_tasks(struct seed *s, struct place *p)
{
	char due[32], done[32], created[32];
	sqlite3_stmt *st = s->table[T_TASKS].st;
	for (int64_t i = 0; i < p->tasks; i++) {
		int64_t r = rng_below(&s->rng, 100);
		int completed = r < 50, late = r >= 97;
		int64_t due_at = task_due(s, completed, late);
		int64_t until = due_at < s->now ? due_at : s->now;
		int64_t born = until - HOUR - rng_below(&s->rng, 20 * DAY);
		int64_t done_at = born + 1 + rng_below(&s->rng, until - born);
		int dated = completed || late || rng_percent(&s->rng, 95);
		iso_time(due_at, due);
		iso_time(born, created);
		iso_time(done_at, done);
		bind_int(st, 1, next_id(s, T_TASKS));
		bind_int(st, 2, p->id);
		int64_t contact = rng_percent(&s->rng, 80) ? some_contact(s, p) : 0;
		note_activity(p, contact, A_TASK, born);
		bind_ref(st, 3, contact);
		bind_ref(st, 4, someone(s, p, 5));
		bind_text(st, 5, task_titles[rng_skewed(&s->rng, COUNT(task_titles))]);
		bind_text(st, 6, rng_percent(&s->rng, 30) ? "Details in the last conversation." : NULL);
		bind_text(st, 7, dated ? due : NULL);
		bind_text(st, 8, completed ? done : NULL);
		bind_text(st, 9, created);
		bind_text(st, 10, completed ? done : created);
		insert(s, T_TASKS);
	}
}

/* ---- invoices ------------------------------------------------------------------ */

/* An overdue invoice is a sent one past its due date. */
enum state { DRAFT, SENT, PAID, PARTLY_PAID, OVERDUE, VOID, STATES };

static const char *const state_status[STATES] = {
	"draft", "sent", "paid", "partially_paid", "sent", "void",
};

/* Each location's first invoices take every state once, the others
 * mostly paid. */
static enum state invoice_state(struct seed *s, int64_t i)
{
	if (i < STATES)
		return (enum state)i;
	int64_t r = rng_below(&s->rng, 100);
	return r < 8 ? DRAFT : r < 22 ? SENT : r < 78 ? PAID : r < 84 ? PARTLY_PAID
	     : r < 92 ? OVERDUE : VOID;
}

/* When it was issued: sent and partly paid ones lately enough to be not
 * yet due (30 days), overdue ones before that, paid ones over the year. */
static int64_t issued_at(struct seed *s, enum state state)
{
	switch (state) {
	case DRAFT:
		return lately(s, 10);
	case SENT:
	case PARTLY_PAID:
		return s->now - HOUR - rng_below(&s->rng, 25 * DAY);
	case OVERDUE:
		return s->now - 31 * DAY - rng_below(&s->rng, 45 * DAY);
	case PAID:
		return s->now - 2 * DAY - (int64_t)rng_skewed(&s->rng, 180) * DAY;
	default:
		return s->now - 20 * DAY - rng_below(&s->rng, 300 * DAY);
	}
}

void demo_invoices(struct seed *s, struct place *p)
{
	char number[32], issued[32], due[32], paid[32];
	sqlite3_stmt *st = s->table[T_INVOICES].st;
	for (int64_t i = 0; i < p->invoices; i++) {
		int64_t id = next_id(s, T_INVOICES);
		enum state state = invoice_state(s, i);
		int64_t issued_time = issued_at(s, state);
		int64_t subtotal = add_lines(s, p, id);
		int64_t tax = rng_percent(&s->rng, 70) ? subtotal / 10 : 0, total = subtotal + tax;
		int64_t paid_cents = state == PAID ? total : state == PARTLY_PAID ? total / 2 : 0;
		/* Paid within 25 days of issue, and never later than now. */
		int64_t room = s->now - issued_time < 25 * DAY ? s->now - issued_time : 25 * DAY;
		int draft = state == DRAFT;
		snprintf(number, sizeof(number), "INV-%05lld", (long long)(i + 1));
		iso_time(issued_time, issued);
		iso_time(issued_time + 30 * DAY, due);
		iso_time(issued_time + rng_below(&s->rng, room), paid);
		if (paid_cents)
			add_payment(s, p, id, paid_cents, paid);
		bind_int(st, 1, id);
		bind_int(st, 2, p->id);
		bind_text(st, 3, number);
		int64_t contact = some_contact(s, p);
		note_activity(p, contact, A_INVOICE, issued_time);
		bind_ref(st, 4, contact);
		bind_text(st, 5, state_status[state]);
		bind_int(st, 6, subtotal);
		bind_int(st, 7, tax);
		bind_int(st, 8, total);
		bind_int(st, 9, paid_cents);
		bind_text(st, 10, draft ? NULL : issued);
		bind_text(st, 11, draft ? NULL : due);
		bind_text(st, 12, state == PAID ? paid : NULL);
		bind_text(st, 13, issued);
		bind_text(st, 14, paid_cents ? paid : issued);
		insert(s, T_INVOICES);
	}
}

/* ---- the contacts' timelines ---------------------------------------------------- */

/* What the server would have written on each contact's timeline as these
 * records were made (each module's event lines, in their words), oldest
 * first so that the ids run with time as the server's do: a contact the
 * newcomer opens shows what happened, not an empty card. The benchmark's
 * data set has none, as a server upgraded from before the timeline. */
int demo_timeline(struct seed *s)
{
	return run_sql(s->db,
		"INSERT INTO contact_timeline (contact_id, location_id, kind, assigned_to, line, link,"
		" data, at) SELECT contact_id, location_id, kind, assigned_to, line, link, data, at FROM ("
		" SELECT o.contact_id, o.location_id, 'opportunity.created' AS kind,"
		"  coalesce(o.owner_id, 0) AS assigned_to, 'Deal ' || o.name || ' created in ' || st.name AS line,"
		"  '/opportunities/' || o.id AS link, json_object('stage', o.stage_id) AS data, o.created_at AS at"
		"  FROM opportunities o JOIN stages st ON st.id = o.stage_id WHERE o.contact_id IS NOT NULL"
		" UNION ALL SELECT contact_id, location_id, 'opportunity.' || status, coalesce(owner_id, 0),"
		"  'Deal ' || name || ' ' || status, '/opportunities/' || id, '{}', closed_at"
		"  FROM opportunities WHERE contact_id IS NOT NULL AND status IN ('won', 'lost')"
		"  AND closed_at IS NOT NULL"
		" UNION ALL SELECT contact_id, location_id, 'task.created', coalesce(assignee_id, 0),"
		"  'Task ' || title || ' created', '/tasks?contact=' || contact_id, '{}', created_at"
		"  FROM tasks WHERE contact_id IS NOT NULL"
		" UNION ALL SELECT contact_id, location_id, 'task.completed', coalesce(assignee_id, 0),"
		"  'Task ' || title || ' done', '/tasks?contact=' || contact_id, '{}', completed_at"
		"  FROM tasks WHERE contact_id IS NOT NULL AND completed_at IS NOT NULL"
		" UNION ALL SELECT contact_id, location_id, 'invoice.sent', 0, 'Invoice ' || number"
		"  || ' sent, ' || printf('%d.%02d', total_cents / 100, total_cents % 100) || ' ' || currency,"
		"  '/invoices/' || id, '{}', issued_at FROM invoices"
		"  WHERE contact_id IS NOT NULL AND status <> 'draft' AND issued_at IS NOT NULL"
		" UNION ALL SELECT contact_id, location_id, 'invoice.paid', 0, 'Invoice ' || number"
		"  || ' paid in full', '/invoices/' || id, '{}', paid_at FROM invoices"
		"  WHERE contact_id IS NOT NULL AND status = 'paid' AND paid_at IS NOT NULL"
		" UNION ALL SELECT c.contact_id, m.location_id, 'message.' || iif(m.direction = 'inbound',"
		"  'received', 'sent'), coalesce(c.assigned_to, 0), CASE m.channel WHEN 'sms' THEN 'SMS'"
		"  WHEN 'email' THEN 'E-mail' WHEN 'whatsapp' THEN 'WhatsApp' WHEN 'webchat' THEN 'Web chat'"
		"  ELSE upper(substr(m.channel, 1, 1)) || substr(m.channel, 2) END"
		"  || iif(m.direction = 'inbound', ' received: ', ' sent: ') || substr(m.body, 1, 140),"
		"  '/conversations/' || m.conversation_id, '{}', m.created_at"
		"  FROM messages m JOIN conversations c ON c.id = m.conversation_id"
		" UNION ALL SELECT contact_id, location_id, 'contact.note_added', 0,"
		"  'Note: ' || substr(body, 1, 300), NULL, json_object('note_id', id), created_at FROM notes"
		") ORDER BY at, kind");
}

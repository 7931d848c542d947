/* SPDX-License-Identifier: MIT */
/*
 * upkeep.c: two jobs that keep derived contact data up to date, a batch of
 * contacts at a time in id order, remembering where they stopped (the
 * job's cursor) and starting again from the first contact once they have
 * been through them all.
 *
 * - health: each contact's health_score (0-100) from its recent activity
 *   (activity.c counts what other modules report): a message received in
 *   the last 30 days counts most, one sent, a deal in the last 90 days, a
 *   task in the last 30 days less, and a long history a little.
 * - companies: a contact without a company is linked to the company of its
 *   location whose domain is its e-mail address's (its company_name, which
 *   the user typed and the search index holds, stays as it is).
 *
 * Each writes a row only when its value changes, so a pass over contacts
 * that have not changed writes nothing and drops no cached answer.
 */
#include "contacts.h"

#define BATCH 500

/* Run `sql` (one UPDATE over the contacts with ids in (:from, :to]) on the
 * next batch after the job's cursor: HL_JOB_MORE, or HL_JOB_DONE after the
 * last contact (the cursor goes back to the start). */
static int batch(struct hl_job_run *run, const char *sql)
{
	struct hl_db *db = hl_job_db(run);
	for (;;) {
		int64_t from = hl_job_cursor(run), to;
		sqlite3_stmt *st = hl_stmt(db, "SELECT max(id) FROM (SELECT id FROM contacts"
					   " WHERE id > :from ORDER BY id LIMIT :batch)");
		hl_bind_int(st, ":from", from);
		hl_bind_int(st, ":batch", BATCH);
		if (hl_step_int(st, &to) < 0)
			return HL_EDB;
		if (!to) { /* NULL: no contact after the cursor (never below 0) */
			hl_job_set_cursor(run, 0);
			return HL_JOB_DONE;
		}
		if (!(st = hl_stmt(db, sql)))
			return HL_EDB;
		hl_bind_int(st, ":from", from);
		hl_bind_int(st, ":to", to);
		if (hl_step_changes(st) < 0)
			return HL_EDB;
		hl_job_set_cursor(run, to);
		if (hl_job_over_budget(run))
			return HL_JOB_MORE;
	}
}

/* A time `n` days ago, as the tables write times. */
#define DAYS_AGO(n) "strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-" #n " days')"

/* The score of contact `c`, from contact_activity (a: its rows). */
#define HEALTH_SCORE \
	"min(100, coalesce((SELECT" \
	" 40 * max(a.kind = 'message.received' AND a.last_at > " DAYS_AGO(30) ")" \
	" + 20 * max(a.kind = 'message.sent' AND a.last_at > " DAYS_AGO(30) ")" \
	" + 20 * max(a.kind LIKE 'opportunity.%' AND a.last_at > " DAYS_AGO(90) ")" \
	" + 10 * max(a.kind LIKE 'task.%' AND a.last_at > " DAYS_AGO(30) ")" \
	" + min(10, sum(a.count) / 10)" \
	" FROM contact_activity a WHERE a.contact_id = c.id), 0))"

int health_slice(struct hl_job_run *run)
{
	return batch(run, "UPDATE contacts SET health_score = s.score FROM (SELECT c.id,"
		     " " HEALTH_SCORE " AS score FROM contacts c WHERE c.id > :from AND c.id <= :to"
		     " AND c.deleted_at IS NULL) s"
		     " WHERE contacts.id = s.id AND contacts.health_score IS NOT s.score");
}

/* The company of contact `c`'s location with its e-mail's domain. */
#define COMPANY_OF_EMAIL \
	"(SELECT co.id FROM companies co WHERE co.location_id = c.location_id" \
	" AND co.domain = lower(substr(c.email, instr(c.email, '@') + 1)) ORDER BY co.id LIMIT 1)"

int companies_slice(struct hl_job_run *run)
{
	return batch(run, "UPDATE contacts SET company_id = s.company FROM (SELECT c.id,"
		     " " COMPANY_OF_EMAIL " AS company FROM contacts c WHERE c.id > :from AND c.id <= :to"
		     " AND c.company_id IS NULL AND c.email IS NOT NULL AND c.deleted_at IS NULL) s"
		     " WHERE contacts.id = s.id AND s.company IS NOT NULL");
}

/* SPDX-License-Identifier: MIT */
/*
 * tests.c: the job that sends the test messages admins ask for in
 * Settings (settings.c queues them): each goes out as any message does,
 * through the core's sender, and its outcome is kept on its row for the
 * page that asked. A test left sending by a restart is shown failed: it
 * may or may not have left, and the admin can send another.
 */
#include "email.h"

static const char TEST_BODY[] =
	"This is a test message from HyperLevel.\n\n"
	"It left through this server's relay with the sub-account's sender, so mail to"
	" contacts will go out the same way.";

static int set_outcome(struct hl_job_run *run, int64_t location, int64_t id, const char *status,
		       const char *reason)
{
	sqlite3_stmt *st = hl_stmt_scoped(hl_job_db(run), location, "UPDATE email_tests"
		" SET status = :status, reason = :reason WHERE id = :id AND location_id = :location");
	hl_bind_text(st, ":status", status);
	hl_bind_text(st, ":reason", reason);
	hl_bind_int(st, ":id", id);
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

static int settle_test(struct hl_job_run *run, const struct hl_outcome *o)
{
	if (o->kind == HL_SENT)
		return set_outcome(run, o->location_id, o->id, "sent", NULL);
	return set_outcome(run, o->location_id, o->id, "failed",
			   o->reason ? o->reason : "refused by the relay");
}

/* Whether this run has looked for tests an earlier one left sending
 * (only the scheduler thread reads and writes it). */
static int swept;

/* A test that was on its way when the server stopped: failed, saying so. */
static int give_up_left_over(struct hl_job_run *run)
{
	if (swept)
		return 0;
	sqlite3_stmt *st = hl_stmt(hl_job_db(run), "UPDATE email_tests SET status = 'failed',"
		" reason = 'the server stopped before the relay answered' WHERE status = 'sending'");
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

int email_tests_job(struct hl_job_run *run)
{
	int rc = give_up_left_over(run);
	sqlite3_stmt *st = rc ? NULL : hl_stmt(hl_job_db(run), "SELECT id, location_id, to_address"
		" FROM email_tests WHERE status = 'queued' ORDER BY id LIMIT 16");
	if (!st)
		return HL_EDB;
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0), location = sqlite3_column_int64(st, 1);
		struct hl_outgoing m = { .channel = "email", .location_id = location, .id = id,
					 .to = (const char *)sqlite3_column_text(st, 2),
					 .subject = "A test message from HyperLevel", .body = TEST_BODY,
					 .settle = settle_test };
		char why[256] = "";
		int sent = hl_job_send(run, &m, why, sizeof(why));
		if (sent == HL_ETOOBIG || sent == HL_ESTATE)
			break;
		rc = set_outcome(run, location, id, sent ? "failed" : "sending",
				 sent ? (why[0] ? why : "the relay could not be reached") : NULL);
	}
	sqlite3_reset(st);
	swept |= !rc;
	return rc;
}

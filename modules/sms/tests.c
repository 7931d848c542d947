/* SPDX-License-Identifier: MIT */
/*
 * tests.c: test texts, which a sub-account's admins send from the SMS
 * page to see that its Twilio account works: POST /api/sms/tests queues
 * one, the tests job sends it as any text goes (through the core's
 * sender and send.c), and GET /api/sms/tests/:id says how it went, in
 * the provider's words when it was refused. A test left sending by a
 * restart is shown failed: it may or may not have left.
 */
#include "sms.h"

static const char TEST_BODY[] = "A test text from HyperLevel: this sub-account's texts go out this way.";

#define TEST_SQL \
	"SELECT id, to_number AS \"to\", status, reason, created_at FROM sms_tests" \
	" WHERE id = :id AND location_id = :location"

/* POST /api/sms/tests {"to"}: 202 with the test, queued. */
int sms_test_post(struct hl_req *req)
{
	static const char *const keys[] = { "to", NULL };
	const char *to = NULL;
	char number[HL_PHONE_MAX];
	if (hl_fields_only(req, 0, keys) || hl_field_text(req, 0, "to", 40, &to) < 0)
		return 0;
	if (!to || !*to)
		return hl_reply_invalid(req, "to", "required: the number to send the test to");
	if (hl_phone_e164(to, hl_location_country(req), number))
		return hl_reply_invalid(req, "to", "not a phone number, such as +15550102000");
	if (!hl_write_begin(req))
		return HL_EDB;
	sqlite3_stmt *st = hl_scoped_write(req, "INSERT INTO sms_tests (location_id, to_number)"
					   " VALUES (:location, :to)");
	hl_bind_text(st, ":to", number);
	int64_t id = hl_step_last_id(st);
	if (id <= 0)
		return HL_EDB;
	int rc = hl_publish_assigned(req, "sms.test", id, HL_EVERYONE, NULL);
	return rc ? rc : hl_reply_record(req, 202, id, "test", TEST_SQL);
}

/* GET /api/sms/tests/:id */
int sms_test_get(struct hl_req *req)
{
	return hl_reply_path_record(req, "test", TEST_SQL);
}

static int set_outcome(struct hl_job_run *run, int64_t location, int64_t id, const char *status,
		       const char *reason)
{
	sqlite3_stmt *st = hl_stmt_scoped(hl_job_db(run), location, "UPDATE sms_tests"
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
			   o->reason ? o->reason : "refused by the provider");
}

/* Whether this run has looked for tests an earlier one left sending
 * (only the scheduler thread reads and writes it). */
static int swept;

static int give_up_left_over(struct hl_job_run *run)
{
	if (swept)
		return 0;
	sqlite3_stmt *st = hl_stmt(hl_job_db(run), "UPDATE sms_tests SET status = 'failed',"
		" reason = 'the server stopped before the provider answered' WHERE status = 'sending'");
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

int sms_tests_job(struct hl_job_run *run)
{
	int rc = give_up_left_over(run);
	sqlite3_stmt *st = rc ? NULL : hl_stmt(hl_job_db(run), "SELECT id, location_id, to_number"
		" FROM sms_tests WHERE status = 'queued' ORDER BY id LIMIT 16");
	if (!st)
		return HL_EDB;
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0), location = sqlite3_column_int64(st, 1);
		struct hl_outgoing m = { .channel = "sms", .location_id = location, .id = id,
					 .to = (const char *)sqlite3_column_text(st, 2),
					 .body = TEST_BODY, .settle = settle_test };
		char why[256] = "";
		int sent = hl_job_send(run, &m, why, sizeof(why));
		if (sent == HL_ETOOBIG || sent == HL_ESTATE)
			break;
		rc = set_outcome(run, location, id, sent ? "failed" : "sending",
				 sent ? (why[0] ? why : "the provider could not be reached") : NULL);
	}
	sqlite3_reset(st);
	swept |= !rc;
	return rc;
}

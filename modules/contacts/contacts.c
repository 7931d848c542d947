/* SPDX-License-Identifier: MIT */
/*
 * contacts.c: the contacts module: its routes, migrations and the job
 * that removes soft-deleted contacts for good after a grace period.
 *
 * Every query is scoped by the current location (hl_location_id), so a
 * contact of another sub-account is never seen.
 */
#include "contacts.h"

#include <stdio.h>

#include "migrations.h"

static int purge_slice(struct hl_job_run *run);

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/contacts", .handler = contacts_list,
	  .cache_ms = 60000, .reads = "contacts contact_tags tags" },
	{ .method = "GET", .pattern = "/api/contacts/:id", .handler = contacts_record,
	  .cache_ms = 60000,
	  .reads = "contacts contact_tags tags custom_values custom_fields notes" },
	{ .method = "POST", .pattern = "/api/contacts", .handler = contacts_create },
	{ .method = "DELETE", .pattern = "/api/contacts/:id", .handler = contacts_delete },
	{ .method = "GET", .pattern = "/api/tags", .handler = contacts_tags,
	  .cache_ms = 60000, .reads = "tags contact_tags contacts" },
};

static const struct hl_job jobs[] = {
	{ .name = "purge", .period_ms = 3600 * 1000, .slice = purge_slice },
};

static long long purge_after_days;

static int init(struct hl_mod *mod)
{
	int rc = hl_setting_int(mod, "purge_after_days", 30, 1, 36500, &purge_after_days);
	if (!rc)
		rc = hl_add_migrations(mod, migrations);
	if (!rc)
		rc = hl_add_routes(mod, routes);
	if (!rc)
		rc = hl_add_jobs(mod, jobs);
	return rc;
}

HL_MODULE(.name = "contacts", .version = "0.1.0", .init = init,
	  .summary = "contacts, their list and search");

/* Remove contacts deleted more than purge_after_days ago, 500 at a time,
 * oldest deletion first. Deleted rows leave the index, so the next slice
 * starts where this one stopped without a cursor. */
static int purge_slice(struct hl_job_run *run)
{
	enum { BATCH = 500 };
	sqlite3_stmt *st = hl_stmt(hl_job_db(run),
		"DELETE FROM contacts WHERE id IN (SELECT id FROM contacts"
		" WHERE deleted_at IS NOT NULL"
		" AND deleted_at < strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?1)"
		" ORDER BY deleted_at, id LIMIT ?2)");
	if (!st)
		return HL_EDB;
	char days[32];
	snprintf(days, sizeof(days), "-%lld days", purge_after_days);
	sqlite3_bind_text(st, 1, days, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 2, BATCH);
	if (sqlite3_step(st) != SQLITE_DONE)
		return HL_EDB;
	return sqlite3_changes(hl_sqlite(hl_job_db(run))) == BATCH ? HL_JOB_MORE : HL_JOB_DONE;
}

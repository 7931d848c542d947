/* SPDX-License-Identifier: MIT */
/*
 * contacts.c: the contacts module: its routes, migrations, jobs (the CSV
 * import's, the upkeep of health scores and company links, and the one
 * that removes soft-deleted contacts for good after a grace period, and
 * uploads never run after a day), the events it counts as a contact's
 * activity, and its browser pages.
 *
 * Every query is scoped by the current location (hl_location_id), so a
 * contact of another sub-account is never seen.
 */
#include "contacts.h"

#include <stdio.h>

#include "migrations.h"

static int purge_slice(struct hl_job_run *run);

#define CONTACT_READS "contacts contact_tags tags custom_values custom_fields notes contact_activity"
/* A record reads its own contact by id: contacts added keep it. */
#define RECORD_READS "contacts:lookup contact_tags tags custom_values custom_fields notes" \
	" contact_activity"

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/contacts", .handler = contacts_list,
	  .cache_ms = 60000, .reads = "contacts contact_tags tags" },
	{ .method = "GET", .pattern = "/api/contacts/export.csv", .handler = contacts_export,
	  .reads = CONTACT_READS },
	{ .method = "GET", .pattern = "/api/contacts/:id", .handler = contacts_record,
	  .cache_ms = 60000, .reads = RECORD_READS },
	{ .method = "POST", .pattern = "/api/contacts", .handler = contacts_create },
	{ .method = "POST", .pattern = "/api/contacts/upsert", .handler = contacts_upsert },
	{ .method = "PATCH", .pattern = "/api/contacts/:id", .handler = contacts_change },
	{ .method = "DELETE", .pattern = "/api/contacts/:id", .handler = contacts_delete },
	{ .method = "POST", .pattern = "/api/contacts/import", .handler = contacts_import,
	  .flags = HL_ROUTE_RAW_BODY, .max_body_kb = 64 * 1024 },
	{ .method = "POST", .pattern = "/api/contacts/imports", .handler = contacts_import_upload,
	  .flags = HL_ROUTE_RAW_BODY, .max_body_kb = 64 * 1024 },
	{ .method = "POST", .pattern = "/api/contacts/imports/:id/preview",
	  .handler = contacts_import_preview },
	{ .method = "POST", .pattern = "/api/contacts/imports/:id/run", .handler = contacts_import_run },
	{ .method = "GET", .pattern = "/api/contacts/imports/:id", .handler = contacts_import_status },
	{ .method = "DELETE", .pattern = "/api/contacts/imports/:id", .handler = contacts_import_cancel },
	{ .method = "POST", .pattern = "/api/contacts/:id/tags", .handler = tags_add },
	{ .method = "DELETE", .pattern = "/api/contacts/:id/tags/:tag", .handler = tags_remove },
	{ .method = "POST", .pattern = "/api/tags/bulk", .handler = tags_bulk },
	{ .method = "GET", .pattern = "/api/tags", .handler = tags_list,
	  .cache_ms = 60000, .reads = "tags tag_counts" },
	{ .method = "PATCH", .pattern = "/api/tags/:id", .handler = tags_rename,
	  .access = HL_ACCESS_LOCATION_ADMIN },
	{ .method = "POST", .pattern = "/api/tags/:id/merge", .handler = tags_merge,
	  .access = HL_ACCESS_LOCATION_ADMIN },
	{ .method = "DELETE", .pattern = "/api/tags/:id", .handler = tags_delete,
	  .access = HL_ACCESS_LOCATION_ADMIN },
	{ .method = "GET", .pattern = "/api/contacts/:id/notes", .handler = notes_list,
	  .cache_ms = 60000, .reads = "notes contacts" },
	{ .method = "POST", .pattern = "/api/contacts/:id/notes", .handler = notes_add },
	{ .method = "DELETE", .pattern = "/api/contacts/:id/notes/:note", .handler = notes_delete },
	{ .method = "GET", .pattern = "/api/contacts/:id/timeline", .handler = timeline_list,
	  .cache_ms = 60000, .reads = "contact_timeline contacts" },
	{ .method = "GET", .pattern = "/api/custom-fields", .handler = custom_fields_list,
	  .cache_ms = 60000, .reads = "custom_fields" },
	{ .method = "POST", .pattern = "/api/custom-fields", .handler = custom_fields_create,
	  .access = HL_ACCESS_LOCATION_ADMIN },
	{ .method = "PATCH", .pattern = "/api/custom-fields/:id", .handler = custom_fields_change,
	  .access = HL_ACCESS_LOCATION_ADMIN },
	{ .method = "DELETE", .pattern = "/api/custom-fields/:id", .handler = custom_fields_delete,
	  .access = HL_ACCESS_LOCATION_ADMIN },
};

static const struct hl_job jobs[] = {
	{ .name = "purge", .period_ms = 3600 * 1000, .slice = purge_slice },
	/* Woken by each queued file; the period finds one left by a restart. */
	{ .name = "import", .period_ms = 60 * 1000, .slice = import_slice, .wake_on = IMPORT_QUEUED },
	{ .name = "health", .period_ms = 3600 * 1000, .slice = health_slice },
	{ .name = "companies", .period_ms = 600 * 1000, .slice = companies_slice },
};

/* The browser pages (webui/contacts.js): the list, in the menu, and a
 * contact's record, reached from it. */
static const char *const contacts_uses[] = { "contacts-list.js", "contacts-select.js", NULL };

static const struct hl_page pages[] = {
	{ .path = "/contacts", .script = "contacts.js", .label = "Contacts", .order = 20, .uses = contacts_uses,
	  .search = "search.js" },
	{ .path = "/contacts/:id", .script = "contacts.js", .order = 20, .uses = contacts_uses },
	{ .path = "/contacts/fields", .script = "fields.js", .access = HL_ACCESS_LOCATION_ADMIN,
	  .order = 20 },
	{ .path = "/contacts/tags", .script = "tags.js", .access = HL_ACCESS_LOCATION_ADMIN,
	  .order = 20 },
};

/* What other modules report about a contact, counted on its record and
 * written on its timeline when they describe it (timeline.c). */
static const struct hl_event_handler handlers[] = {
	/* what was written and received; not a message's status moving on
	 * (message.status), several per message sent */
	{ .event = "message.sent", .handle = activity_count },
	{ .event = "message.received", .handle = activity_count },
	{ .event = "message.retried", .handle = activity_count },
	{ .event = "conversation.*", .handle = activity_count },
	{ .event = "task.*", .handle = activity_count },
	{ .event = "opportunity.*", .handle = activity_count },
	{ .event = "invoice.*", .handle = activity_count },
	{ .event = "appointment.*", .handle = activity_count },
	{ .event = "message.sent", .handle = timeline_add },
	{ .event = "message.received", .handle = timeline_add },
	{ .event = "conversation.*", .handle = timeline_add },
	{ .event = "task.*", .handle = timeline_add },
	{ .event = "opportunity.*", .handle = timeline_add },
	{ .event = "invoice.*", .handle = timeline_add },
	{ .event = "appointment.*", .handle = timeline_add },
	{ .event = "form.*", .handle = timeline_add },
	{ .event = "contact.note_added", .handle = timeline_add },
	{ .event = "contact.note_deleted", .handle = timeline_note_gone },
	{ .event = "opportunity.note_deleted", .handle = timeline_note_gone },
};

/* How its own events read on a contact's timeline. */
static const struct hl_event_line event_lines[] = {
	{ "contact.note_added", "SELECT 'Note: ' || substr(body, 1, 300), NULL FROM notes"
	  " WHERE id = json_extract(:data, '$.note_id') AND location_id = :location" },
};

static long long purge_after_days;

static int init(struct hl_mod *mod)
{
	int rc = hl_setting_int(mod, "purge_after_days", 30, 1, 36500, &purge_after_days);
	if (!rc)
		rc = hl_setting_int(mod, "search_matches_first", 1000, 0, 1000000,
				    &contacts_matches_first);
	return rc;
}

/* What is kept by the sub-account's days, made again when its zone changes
 * (through the migration's moves view, which knows how a day is counted). */
static const struct hl_recount recounts[] = {
	{ "contact_days", "DELETE FROM contact_days WHERE location_id = :location" },
	{ "contact_days", "INSERT INTO contact_day_moves SELECT location_id, created_at, 1 FROM contacts"
	  " WHERE location_id = :location AND deleted_at IS NULL" },
};

/* What other modules call by name (intake.c says the members). */
static const struct hl_service services[] = {
	{ "contacts.find_or_add", contacts_find_or_add },
};

/* The records people know, as the audit log names them (a contact put in
 * the bin is changed, not deleted: it says so). */
static const struct hl_record_kind records[] = {
	{ .table = "contacts", .noun = "contact",
	  .name_sql = "SELECT COALESCE(NULLIF(trim(first_name || ' ' || last_name), ''), email, phone)"
		      " || CASE WHEN deleted_at IS NULL THEN '' ELSE ' (in the bin)' END"
		      " FROM contacts WHERE id = :id" },
	{ .table = "companies", .noun = "company",
	  .name_sql = "SELECT name FROM companies WHERE id = :id" },
	{ .table = "tags", .noun = "tag", .name_sql = "SELECT name FROM tags WHERE id = :id" },
	{ .table = "custom_fields", .noun = "custom field",
	  .name_sql = "SELECT name FROM custom_fields WHERE id = :id" },
	{ .table = "notes", .noun = "note",
	  .name_sql = "SELECT 'on ' || COALESCE(NULLIF(trim(c.first_name || ' ' || c.last_name), ''),"
		      " c.email, c.phone) FROM notes n JOIN contacts c ON c.id = n.contact_id"
		      " WHERE n.id = :id" },
};

HL_MODULE(.name = "contacts", .version = "0.1.0", .init = init,
	  .summary = "contacts: list, search, tags, custom fields, notes, CSV",
	  .migrations = HL_TABLE(migrations), .routes = HL_TABLE(routes),
	  .jobs = HL_TABLE(jobs), .handlers = HL_TABLE(handlers), .pages = HL_TABLE(pages),
	  .recounts = HL_TABLE(recounts), .services = HL_TABLE(services), .records = HL_TABLE(records),
	  .event_lines = HL_TABLE(event_lines));

/* Remove contacts deleted more than purge_after_days ago, the longest
 * deleted first, in batches while the slice's budget lasts: a contact
 * takes its notes, tags and values with it (its search row left when it
 * was deleted, migration 018). Deleted rows leave the index, so the next
 * slice starts afresh without a cursor; a pass ends with a slice that
 * finds nothing. */
static int purge_slice(struct hl_job_run *run)
{
	int rc = import_drop_stale(run); /* its uploads go first: each up to 64 MB */
	if (rc)
		return rc;
	sqlite3_stmt *st = hl_stmt(hl_job_db(run),
		"DELETE FROM contacts WHERE id IN (SELECT id FROM contacts"
		" WHERE deleted_at IS NOT NULL"
		" AND deleted_at < strftime('%Y-%m-%dT%H:%M:%fZ', 'now', :days)"
		" ORDER BY deleted_at, id LIMIT :batch)");
	if (!st)
		return HL_EDB;
	char days[32];
	snprintf(days, sizeof(days), "-%lld days", purge_after_days);
	hl_bind_text(st, ":days", days);
	/* hl_job_over_budget foresees the next batch by the last one: keep
	 * them the same size, and small, as the first pays for a cold cache. */
	enum { BATCH = 8 };
	hl_bind_int(st, ":batch", BATCH);
	int64_t purged, any = 0;
	do {
		if ((purged = hl_step_changes(st)) < 0)
			return (int)purged;
		any |= purged > 0;
	} while (purged == BATCH && !hl_job_over_budget(run));
	return any ? HL_JOB_MORE : HL_JOB_DONE;
}

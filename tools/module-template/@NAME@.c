/* SPDX-License-Identifier: MIT */
/*
 * @NAME@.c: the @NAME@ module of HyperLevel: notes kept per sub-account.
 * Written by `hyperlevel new-module @NAME@` as a start; it shows each
 * part a module has, to be replaced by what yours does:
 *
 *   routes      GET and POST /api/@NAME@/notes, scoped to the caller's
 *               sub-account (location) by hl_scoped_read/_write, and
 *               GET /api/@NAME@/notes/:id as data (.record)
 *   migrations  migrations/NNN_*.sql, embedded by embed-sql into
 *               build/migrations.h; add a file, never edit a shipped one
 *   a job       @NAME@.expire, deleting notes older than keep_days
 *               (a setting of plugins.d/@NAME@.conf), a slice at a time
 *   a page      webui/@NAME@.js, in the menu of every signed-in user
 *
 * Name every table after the module (@NAME@_...): the tables of all
 * modules share one database. The public header says the rest.
 */
#include <hyperlevel/hyperlevel.h>

#include "migrations.h"

#define NOTE_MAX 2000
/* One note, by :id: its GET route and what a new note answers. */
#define NOTE_SQL "SELECT id, body, created_at FROM @NAME@_notes" \
	" WHERE id = :id AND location_id = :location"

static int notes_list(struct hl_req *req);
static int notes_add(struct hl_req *req);
static int expire(struct hl_job_run *run);

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/@NAME@/notes", .handler = notes_list,
	  .cache_ms = 60000, .reads = "@NAME@_notes" },
	{ .method = "GET", .pattern = "/api/@NAME@/notes/:id", .record = "note",
	  .record_sql = NOTE_SQL, .cache_ms = 60000, .reads = "@NAME@_notes" },
	{ .method = "POST", .pattern = "/api/@NAME@/notes", .handler = notes_add },
};

static const struct hl_job jobs[] = {
	{ .name = "expire", .period_ms = 10000, .slice = expire },
};

/* .data and .uses let the shell fetch the list and the stylesheet while
 * the script loads. */
static const char *const page_uses[] = { "@NAME@.css", NULL };

static const struct hl_page pages[] = {
	{ .path = "/@NAME@", .script = "@NAME@.js", .label = "@TITLE@", .order = 90,
	  .data = "/api/@NAME@/notes", .uses = page_uses },
};

static long long keep_days;

/* What depends on the settings; the tables are the descriptor's. */
static int init(struct hl_mod *mod)
{
	return hl_setting_int(mod, "keep_days", 365, 1, 36500, &keep_days);
}

/* The descriptor: who the module is, and its tables, which the core
 * registers before init runs (HL_TABLE). */
HL_MODULE(.name = "@NAME@", .version = "0.1.0", .init = init,
	  .summary = "notes per sub-account (made by hyperlevel new-module)",
	  .migrations = HL_TABLE(migrations), .routes = HL_TABLE(routes), .jobs = HL_TABLE(jobs),
	  .pages = HL_TABLE(pages));

/* GET /api/@NAME@/notes -> {"data": [{"id", "body", "created_at"}, ...],
 * "next_cursor": null}, newest first, at most 100: each row an object
 * named by its columns (hl_reply_page). */
static int notes_list(struct hl_req *req)
{
	sqlite3_stmt *st = hl_scoped_read(req, "SELECT id, body, created_at FROM @NAME@_notes"
					       " WHERE location_id = :location"
					       " ORDER BY id DESC LIMIT 100");
	return hl_reply_page(req, st, INT64_MAX, 0);
}

/* POST /api/@NAME@/notes {"body": "..."} -> 201 {"id", "body", "created_at"} */
static int notes_add(struct hl_req *req)
{
	static const char *const keys[] = { "body", NULL };
	const char *body = NULL;
	int rc = hl_fields_only(req, 0, keys);
	if (rc >= 0)
		rc = hl_field_text(req, 0, "body", NOTE_MAX, &body);
	if (rc < 0)
		return rc;
	if (!body || !*body)
		return hl_reply_invalid(req, "body", "required, at most %d characters", NOTE_MAX);
	sqlite3_stmt *st = hl_scoped_write(req, "INSERT INTO @NAME@_notes (location_id, body)"
						" VALUES (:location, :body)");
	hl_bind_text(st, ":body", body);
	int64_t id = hl_step_last_id(st);
	if (id <= 0)
		return HL_EDB;
	return hl_reply_record(req, 201, id, "note", NOTE_SQL);
}

/* The job: notes older than keep_days go, oldest first, 500 at a time
 * until the slice's budget is spent (the write lock is never held long);
 * HL_JOB_MORE asks for the next slice soon when some are left. */
static int expire(struct hl_job_run *run)
{
	sqlite3_stmt *st = hl_stmt(hl_job_db(run),
				   "DELETE FROM @NAME@_notes WHERE id IN (SELECT id FROM @NAME@_notes"
				   " WHERE created_at < strftime('%Y-%m-%dT%H:%M:%fZ', 'now',"
				   " '-' || :days || ' days') ORDER BY created_at LIMIT 500)");
	hl_bind_int(st, ":days", keep_days);
	int64_t n;
	do
		n = hl_step_changes(st);
	while (n == 500 && !hl_job_over_budget(run));
	return n < 0 ? HL_EDB : n == 500 ? HL_JOB_MORE : HL_JOB_DONE;
}

/* SPDX-License-Identifier: MIT */
/*
 * import_job.c: an import's life, as a person walks it: POST
 * /api/contacts/imports uploads the file, kept in parts of PART_BYTES
 * while it waits for its mapping (answered with its header and first
 * rows, import_map.c); .../:id/preview shows what rows become; .../:id/run
 * starts it with the mapping and the duplicates choice. A file up to
 * INLINE_MAX runs inside that request, all in its transaction; a larger
 * one is run by the import job in slices: each slice a transaction that
 * also records how far it got, so a batch is never half written and
 * progress can be read (GET /api/contacts/imports/:id) while it runs;
 * DELETE on it cancels it. POST /api/contacts/import does it all in one
 * go, the mapping guessed from the header (for scripts and integrations).
 * A row changes whichever contact of the sub-account it matches, so a
 * user who sees only their own contacts ("assigned only") may not import
 * (403), and sees no one else's imports. A sub-account keeps at most
 * UPLOADS_WAITING uploads waiting for their run (each up to the upload
 * limit): a new one drops the oldest beyond that, as a person who left
 * the mapping and uploads again expects the new file simply to work; and
 * the purge job drops one left unrun for a day (import_drop_stale).
 *
 * What keeps one tenant's big file from slowing everyone's writes: a
 * slice reads only the part it resumes in and the next (a row may cross
 * into it), never the whole file; it stops within the job's budget,
 * checked after every row; and the job takes the sub-accounts with work
 * in turn (its cursor is the last one served), not the oldest import
 * first.
 */
#include "import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A row may be up to PART_BYTES long: it starts in one part and ends, at
 * the latest, in the next. */
#define PART_BYTES (1 << 20)

/* ---- the stored upload -------------------------------------------------- */

/* Store the upload of import `id` in parts. 0, HL_EDB. */
static int store_parts(struct hl_db *db, int64_t id, const char *body, size_t len)
{
	sqlite3_stmt *st = hl_stmt(db, "INSERT INTO contact_import_parts (import_id, start, data)"
				   " VALUES (:import, :start, :data)");
	if (!st)
		return HL_EDB;
	for (size_t at = 0; at < len; at += PART_BYTES) {
		hl_bind_int(st, ":import", id);
		hl_bind_int(st, ":start", (int64_t)at);
		hl_bind_blob(st, ":data", body + at, len - at < PART_BYTES ? len - at : PART_BYTES);
		if (hl_step_changes(st) < 0)
			return HL_EDB;
	}
	return 0;
}

/* Drop the upload of a finished import. 0, HL_EDB. */
static int drop_parts(struct import *im)
{
	sqlite3_stmt *st = hl_stmt(im->db, "DELETE FROM contact_import_parts"
				   " WHERE import_id = :import");
	hl_bind_int(st, ":import", im->id);
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

/* The part of the upload that holds byte `at` and, when `parts` is 2, the
 * one after, copied together into *out (malloc'd; the caller frees it);
 * sets im->base, end, stop and partial. 0, HL_EDB, HL_ENOMEM, HL_ENOENT
 * (no parts). */
static int read_window(struct import *im, size_t at, int parts_wanted, size_t bytes, char **out)
{
	sqlite3_stmt *st = hl_stmt(im->db, "SELECT start, data FROM contact_import_parts"
		" WHERE import_id = :import AND start >= (SELECT max(start) FROM contact_import_parts"
		" WHERE import_id = :import AND start <= :at) ORDER BY start LIMIT :parts");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":import", im->id);
	hl_bind_int(st, ":at", (int64_t)at);
	hl_bind_int(st, ":parts", parts_wanted);
	char *window = NULL;
	size_t len = 0;
	int rc, parts = 0;
	im->stop = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		size_t start = (size_t)sqlite3_column_int64(st, 0);
		size_t n = (size_t)sqlite3_column_bytes(st, 1);
		char *bigger = realloc(window, len + n + 1);
		if (!bigger) {
			free(window);
			return HL_ENOMEM;
		}
		window = bigger;
		memcpy(window + len, sqlite3_column_blob(st, 1), n);
		if (!parts++)
			im->base = start;
		else
			im->stop = start; /* rows starting in the next part wait for its turn */
		len += n;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE || !parts) {
		free(window);
		snprintf(im->why, sizeof(im->why), "the stored file is missing");
		return rc != SQLITE_DONE ? HL_EDB : HL_ENOENT;
	}
	im->end = im->base + len;
	im->partial = im->end < bytes;
	if (!im->partial)
		im->stop = 0; /* the next part is the last: read to the end */
	*out = window;
	return 0;
}

/* ---- progress -------------------------------------------------------------- */

/* Record how far the import got, and when `done`, finish it. 0, HL_EDB. */
static int save_progress(struct import *im, int done)
{
	sqlite3_stmt *st = hl_stmt(im->db, "UPDATE contact_imports SET offset = :offset, line = :line,"
		" created = created + :created, updated = updated + :updated,"
		" skipped = skipped + :skipped,"
		" status = CASE WHEN :done THEN 'done' ELSE 'running' END,"
		" finished_at = CASE WHEN :done THEN strftime('%Y-%m-%dT%H:%M:%fZ', 'now') END"
		" WHERE id = :id");
	hl_bind_int(st, ":id", im->id);
	hl_bind_int(st, ":offset", (int64_t)import_offset(im));
	hl_bind_int(st, ":line", hl_csv_line(im->csv));
	hl_bind_int(st, ":created", im->created);
	hl_bind_int(st, ":updated", im->updated);
	hl_bind_int(st, ":skipped", im->skipped);
	hl_bind_int(st, ":done", done);
	if (hl_step_changes(st) < 0)
		return HL_EDB;
	return done ? drop_parts(im) : 0;
}

/* Mark the import failed, for a reason in im->why: a stored file whose
 * header no longer reads (a custom field it named was deleted meanwhile),
 * or a row too long to read. What it imported so far stays, counted. */
static int import_fail(struct import *im)
{
	sqlite3_stmt *st = hl_stmt(im->db, "UPDATE contact_imports SET status = 'failed',"
		" created = created + :created, updated = updated + :updated,"
		" skipped = skipped + :skipped, finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),"
		" errors = json_insert(errors, '$[#]', json_object('line', :line, 'reason', :reason))"
		" WHERE id = :id");
	hl_bind_int(st, ":id", im->id);
	hl_bind_text(st, ":reason", im->why);
	hl_bind_int(st, ":created", im->created);
	hl_bind_int(st, ":updated", im->updated);
	hl_bind_int(st, ":skipped", im->skipped);
	hl_bind_int(st, ":line", im->csv ? hl_csv_record_line(im->csv) : 1);
	return hl_step_changes(st) < 0 ? HL_EDB : drop_parts(im);
}

/* ---- the routes -------------------------------------------------------------- */

/* Answer import `id` of the location: its state, counts and errors. */
static int reply_import(struct hl_req *req, int status, int64_t id)
{
	return hl_reply_record(req, status, id, "import",
		"SELECT id, CASE WHEN cancelled_at IS NOT NULL THEN 'cancelled'"
		" WHEN waiting THEN 'uploaded' ELSE status END"
		" AS status, bytes, CASE status WHEN 'done' THEN 1.0"
		" ELSE round(offset * 1.0 / bytes, 3) END AS progress, created, updated, skipped,"
		" errors AS json_errors, merged AS json_merged,"
		" ignored_columns AS json_ignored_columns, json(mapping) AS json_mapping,"
		" duplicates, created_at, finished_at, cancelled_at FROM contact_imports"
		" WHERE id = :id AND location_id = :location AND (:me = 0 OR user_id = :me)");
}

/* A new import of `len` bytes in the request's location: its id, or
 * HL_EDB. A large one, or one `waiting` for its mapping, keeps the file;
 * a large one not waiting is queued for the job. */
static int64_t import_create(struct import *im, const char *body, size_t len, int large,
			     int waiting)
{
	sqlite3_stmt *st = hl_scoped_write(im->req, "INSERT INTO contact_imports (location_id,"
					   " user_id, status, bytes, waiting, duplicates) VALUES"
					   " (:location, :user, :status, :bytes, :waiting, :duplicates)");
	hl_bind_int(st, ":user", hl_user_id(im->req));
	hl_bind_text(st, ":status", large || waiting ? "queued" : "running");
	hl_bind_int(st, ":bytes", (int64_t)len);
	hl_bind_int(st, ":waiting", waiting);
	hl_bind_text(st, ":duplicates", import_duplicates[im->duplicates]);
	int64_t id = hl_step_last_id(st);
	if (id < 0 || ((large || waiting) && store_parts(im->db, id, body, len)))
		return HL_EDB;
	int rc = large && !waiting ? hl_publish(im->req, IMPORT_QUEUED, id, NULL) : 0;
	return rc < 0 ? rc : id;
}

/* The checks every upload passes, the body in *body and *len: 0, or
 * HL_EINVAL after answering 403, 415 or 422. */
static int upload_check(struct hl_req *req, const char **body, size_t *len)
{
	const char *type = hl_header(req, "Content-Type");
	*body = hl_body(req, len);
	if (hl_assigned_only(req))
		return hl_reply_error(req, 403, "forbidden", "an import matches any contact of the"
				      " sub-account; it needs a user who sees every contact"), HL_EINVAL;
	if (type && !strncasecmp(type, "multipart/", 10))
		return hl_reply_error(req, 415, "unsupported_media_type", "send the CSV file itself"
				      " as the body (Content-Type: text/csv)"), HL_EINVAL;
	if (!*len)
		return hl_reply_error(req, 422, "validation", "the file is empty: it needs a header row"), HL_EINVAL;
	long line;
	const char *not_text = hl_csv_check(*body, *len, &line);
	if (not_text && line)
		return hl_reply_error(req, 422, "validation", "line %ld: %s", line, not_text), HL_EINVAL;
	if (not_text)
		return hl_reply_error(req, 422, "validation", "%s", not_text), HL_EINVAL;
	return 0;
}

/* POST /api/contacts/import[?duplicates=skip|update|create]: the file
 * imported in one go, its mapping guessed from the header: 200 with the
 * report, or 202 for a large file the job imports (follow it at
 * /api/contacts/imports/:id). */
int contacts_import(struct hl_req *req)
{
	size_t len;
	const char *body, *dup = hl_query(req, "duplicates");
	if (upload_check(req, &body, &len))
		return HL_EINVAL;
	struct import im = { .req = req, .location = hl_location_id(req), .db = hl_write_begin(req) };
	while (dup && im.duplicates < DUP_COUNT && strcmp(dup, import_duplicates[im.duplicates]))
		im.duplicates++;
	if (im.duplicates == DUP_COUNT)
		return hl_reply_error(req, 400, "bad_request", "duplicates: skip, update or create");
	snprintf(im.country, sizeof(im.country), "%s", hl_location_country(req));
	int large = len > INLINE_MAX;
	int64_t id = im.db ? import_create(&im, body, len, large, 0) : HL_EDB;
	if (id < 0)
		return (int)id;
	im.id = id;
	im.csv = hl_csv_open(body, len, 0, 1);
	int rc = im.csv ? import_read_header(&im, 1) : HL_ENOMEM;
	if (!rc && !large && (rc = import_rows(&im)) == 1)
		rc = save_progress(&im, 1);
	import_free(&im);
	if (rc == HL_EINVAL)
		return hl_reply_error(req, 422, "validation", "%s", im.why);
	return rc < 0 ? rc : reply_import(req, large ? 202 : 200, id);
}

/* Uploads a sub-account keeps waiting for their run. */
#define UPLOADS_WAITING 3
/* An upload's age past which it is dropped unrun. */
#define UPLOAD_STALE "strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 day')"
/* The waiting uploads of :location to drop before one more is kept: the
 * stale, and those beyond the newest :keep. */
#define DROPPED_UPLOADS "location_id = :location AND waiting AND status = 'queued'" \
	" AND (created_at < " UPLOAD_STALE " OR id NOT IN (SELECT id FROM contact_imports" \
	" WHERE location_id = :location AND waiting AND status = 'queued' ORDER BY id DESC" \
	" LIMIT :keep))"
#define UPLOAD_DROPPED "waiting = 0, status = 'failed', cancelled_at =" \
	" strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

/* Make room for one more waiting upload of the sub-account. 0, HL_EDB. */
static int drop_uploads(struct hl_req *req)
{
	sqlite3_stmt *st = hl_scoped_write(req, "DELETE FROM contact_import_parts WHERE import_id IN"
					   " (SELECT id FROM contact_imports WHERE " DROPPED_UPLOADS ")");
	hl_bind_int(st, ":keep", UPLOADS_WAITING - 1);
	if (hl_step_changes(st) < 0)
		return HL_EDB;
	st = hl_scoped_write(req, "UPDATE contact_imports SET " UPLOAD_DROPPED
			     " WHERE " DROPPED_UPLOADS);
	hl_bind_int(st, ":keep", UPLOADS_WAITING - 1);
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

int import_drop_stale(struct hl_job_run *run)
{
	struct import im = { .db = hl_job_db(run) };
	for (;;) {
		sqlite3_stmt *st = hl_stmt(im.db, "SELECT id FROM contact_imports WHERE waiting"
			" AND status = 'queued' AND created_at < " UPLOAD_STALE " ORDER BY id LIMIT 1");
		int rc = hl_step_int(st, &im.id);
		if (rc <= 0)
			return rc;
		if (drop_parts(&im))
			return HL_EDB;
		st = hl_stmt(im.db, "UPDATE contact_imports SET " UPLOAD_DROPPED " WHERE id = :id");
		hl_bind_int(st, ":id", im.id);
		if (hl_step_changes(st) < 0)
			return HL_EDB;
		if (hl_job_over_budget(run))
			return HL_JOB_MORE;
	}
}

/* POST /api/contacts/imports: keep the file for its mapping; 201 with
 * its header, first rows and a mapping to start from. */
int contacts_import_upload(struct hl_req *req)
{
	size_t len;
	const char *body;
	if (upload_check(req, &body, &len))
		return HL_EINVAL;
	struct import im = { .req = req, .location = hl_location_id(req), .db = hl_write_begin(req) };
	int64_t id = im.db && !drop_uploads(req) ? import_create(&im, body, len, 1, 1) : HL_EDB;
	if (id < 0)
		return (int)id;
	im.id = id;
	im.csv = hl_csv_open(body, len, 0, 1);
	int rc = im.csv ? import_map_reply(req, &im) : HL_ENOMEM;
	import_free(&im);
	return rc;
}

/* Open the first part(s) of upload `id` of the request's location, still
 * waiting for its run, with im->db set: 0 with im->csv at its start, or
 * HL_EINVAL after answering 404 or 409, HL_EDB, HL_ENOMEM. */
static int open_upload(struct hl_req *req, struct import *im, int64_t id, char **window,
		       size_t *size)
{
	sqlite3_stmt *st = hl_stmt_scoped(im->db, hl_location_id(req), "SELECT bytes, waiting"
		" FROM contact_imports WHERE id = :id AND location_id = :location");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":id", id);
	int rc = sqlite3_step(st);
	size_t bytes = rc == SQLITE_ROW ? (size_t)sqlite3_column_int64(st, 0) : 0;
	int waiting = rc == SQLITE_ROW && sqlite3_column_int(st, 1);
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return HL_EDB;
	if (rc == SQLITE_DONE || hl_assigned_only(req))
		return hl_reply_error(req, 404, "not_found", "no such import"), HL_EINVAL;
	if (!waiting)
		return hl_reply_error(req, 409, "conflict", "the import has already run, or was"
				      " cancelled"), HL_EINVAL;
	im->id = id;
	im->location = hl_location_id(req);
	snprintf(im->country, sizeof(im->country), "%s", hl_location_country(req));
	*size = bytes;
	if ((rc = read_window(im, 0, 2, bytes, window)))
		return rc == HL_ENOENT ? HL_EDB : rc;
	return (im->csv = hl_csv_open(*window, im->end, 0, 1)) ? 0 : HL_ENOMEM;
}

/* POST /api/contacts/imports/:id/preview {"mapping", "duplicates"}: what
 * the first rows become; nothing is written. */
int contacts_import_preview(struct hl_req *req)
{
	int64_t id;
	if (hl_param_id(req, "id", &id))
		return 0;
	struct import im = { .req = req, .db = hl_read(req) };
	char *window = NULL;
	size_t bytes;
	/* the upload first: whether there is one to map is told before what
	 * is wrong with the mapping */
	int rc = im.db ? open_upload(req, &im, id, &window, &bytes) : HL_EDB;
	if (!rc)
		rc = import_map_from_body(req, &im);
	if (!rc)
		rc = import_preview_reply(req, &im);
	import_free(&im);
	free(window);
	return rc;
}

/* Start upload im->id with its mapping: run it now when it is small (1),
 * or queue it for the job (0). HL_EINVAL (im->why), HL_EDB. */
static int run_upload(struct hl_req *req, struct import *im, size_t bytes)
{
	int rc = import_read_header(im, 1);
	if (!rc)
		rc = import_map_save(req, im);
	if (rc)
		return rc;
	int large = bytes > INLINE_MAX;
	sqlite3_stmt *st = hl_stmt(im->db, "UPDATE contact_imports SET waiting = 0,"
				   " status = :status WHERE id = :id");
	hl_bind_int(st, ":id", im->id);
	hl_bind_text(st, ":status", large ? "queued" : "running");
	if (hl_step_changes(st) < 0)
		return HL_EDB;
	if (large)
		return hl_publish(req, IMPORT_QUEUED, im->id, NULL);
	if ((rc = import_rows(im)) == 1)
		rc = save_progress(im, 1);
	return rc < 0 ? rc : 1;
}

/* POST /api/contacts/imports/:id/run {"mapping", "duplicates"}: 200 with
 * the report of a small file, 202 for a large one the job imports; 422
 * for a mapping that does not fit, and nothing is imported. */
int contacts_import_run(struct hl_req *req)
{
	int64_t id;
	if (hl_param_id(req, "id", &id))
		return 0;
	struct import im = { .req = req, .db = hl_write_begin(req) };
	char *window = NULL;
	size_t bytes;
	/* the upload first: whether there is one to map is told before what
	 * is wrong with the mapping */
	int rc = im.db ? open_upload(req, &im, id, &window, &bytes) : HL_EDB;
	if (!rc)
		rc = import_map_from_body(req, &im);
	if (rc) {
		import_free(&im);
		free(window);
		return rc;
	}
	rc = run_upload(req, &im, bytes);
	import_free(&im);
	free(window);
	if (rc == HL_EINVAL)
		return hl_reply_invalid(req, "mapping", "%s", im.why);
	return rc < 0 ? rc : reply_import(req, rc ? 200 : 202, id);
}

/* GET /api/contacts/imports/:id */
int contacts_import_status(struct hl_req *req)
{
	int64_t id;
	if (hl_param_id(req, "id", &id))
		return 0;
	return reply_import(req, 200, id);
}

/* DELETE /api/contacts/imports/:id: stop an import the job has not
 * finished (or drop an upload not run); what it imported so far stays.
 * 409 once it has finished. */
int contacts_import_cancel(struct hl_req *req)
{
	int64_t id;
	if (hl_param_id(req, "id", &id))
		return 0;
	if (hl_assigned_only(req))
		return hl_reply_error(req, 404, "not_found", "no such import");
	sqlite3_stmt *st = hl_scoped_write(req, "UPDATE contact_imports SET status = 'failed',"
		" waiting = 0, cancelled_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), finished_at ="
		" strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = :id AND location_id = :location"
		" AND status IN ('queued', 'running') RETURNING id");
	hl_bind_int(st, ":id", id);
	int64_t found;
	int rc = hl_step_int(st, &found);
	if (!rc) {
		st = hl_scoped_read(req, "SELECT 1 FROM contact_imports WHERE id = :id"
				    " AND location_id = :location");
		hl_bind_int(st, ":id", id);
		if ((rc = hl_step_int(st, &found)) < 0)
			return rc;
		return rc ? hl_reply_error(req, 409, "conflict", "the import has already finished")
			  : hl_reply_error(req, 404, "not_found", "no such import");
	}
	struct import im = { .db = hl_write_begin(req), .id = id };
	if (rc < 0 || drop_parts(&im))
		return HL_EDB;
	return reply_import(req, 200, id);
}

/* ---- the job ------------------------------------------------------------------- */

/* The next unfinished import to work on: the oldest of the first
 * sub-account with one after the last served (`after`), wrapping round.
 * 1 with *im's id, location and counts filled, 0 when none, HL_EDB. */
static int next_import(struct hl_db *db, int64_t after, struct import *im, size_t *offset,
		       long *line, size_t *bytes)
{
	sqlite3_stmt *st = hl_stmt(db, "SELECT id, location_id, offset, line,"
		" json_array_length(errors), bytes,"
		" (SELECT country FROM locations WHERE id = location_id), mapping, duplicates,"
		" json_array_length(merged) FROM contact_imports"
		" WHERE status IN ('queued', 'running') AND NOT waiting AND location_id > :after"
		" ORDER BY location_id, id LIMIT 1");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":after", after);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_DONE && after)
		return next_import(db, 0, im, offset, line, bytes);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? 0 : HL_EDB;
	im->id = sqlite3_column_int64(st, 0);
	im->location = sqlite3_column_int64(st, 1);
	*offset = (size_t)sqlite3_column_int64(st, 2);
	*line = (long)sqlite3_column_int64(st, 3);
	im->errors_kept = sqlite3_column_int64(st, 4);
	*bytes = (size_t)sqlite3_column_int64(st, 5);
	snprintf(im->country, sizeof(im->country), "%s", (const char *)sqlite3_column_text(st, 6));
	const char *mapping = (const char *)sqlite3_column_text(st, 7);
	const char *dup = (const char *)sqlite3_column_text(st, 8);
	while (im->duplicates < DUP_COUNT - 1 && strcmp(dup, import_duplicates[im->duplicates]))
		im->duplicates++;
	im->merges_kept = sqlite3_column_int64(st, 9);
	rc = mapping ? import_map_read(im, mapping) : 0;
	sqlite3_reset(st);
	return rc < 0 ? rc : 1;
}

/* What the job read of the upload it worked on last, kept between its
 * slices (they all run on the scheduler's one thread): its first part, for
 * the header, and the window the last slice stopped in, so that a slice
 * going on in the same window reads nothing of the file again. The parts
 * of an upload never change. */
static struct {
	int64_t id;              /* the import; 0: nothing kept */
	char *first, *window;    /* malloc'd */
	size_t first_len;
	size_t base, end, stop;  /* the window's, as in struct import */
	int partial;
	/* the contacts it added so far, as struct import's made */
	void *made;
	size_t nmade, made_cap;
} kept;

static void forget_kept(void)
{
	free(kept.first);
	free(kept.window);
	free(kept.made);
	memset(&kept, 0, sizeof(kept));
}

/* Fill `kept` for import im->id so that its window holds byte `offset`,
 * and im's window fields from it. 0, or as read_window says. */
static int keep_window(struct import *im, size_t offset, size_t bytes)
{
	int rc = 0;
	if (kept.id != im->id) {
		forget_kept();
		if ((rc = read_window(im, 0, 1, bytes, &kept.first)))
			return rc;
		kept.first_len = im->end;
		kept.id = im->id;
	}
	if (!kept.window || offset < kept.base || offset > kept.end ||
	    (kept.stop && offset >= kept.stop)) {
		free(kept.window);
		kept.window = NULL;
		if ((rc = read_window(im, offset, 2, bytes, &kept.window))) {
			forget_kept();
			return rc;
		}
		kept.base = im->base, kept.end = im->end, kept.stop = im->stop;
		kept.partial = im->partial;
	}
	im->base = kept.base, im->end = kept.end, im->stop = kept.stop;
	im->partial = kept.partial;
	return 0;
}

/* The header, read again each slice: a custom field it names may have
 * been deleted meanwhile. 0, or as import_read_header says. */
static int read_kept_header(struct import *im)
{
	if (!(im->csv = hl_csv_open(kept.first, kept.first_len, 0, 1)))
		return HL_ENOMEM;
	int rc = import_read_header(im, 0);
	hl_csv_close(im->csv);
	im->csv = NULL;
	return rc;
}

/* The import job: a slice of the next sub-account's oldest unfinished
 * import, from where it stopped, for as long as the budget lasts. */
int import_slice(struct hl_job_run *run)
{
	struct import im = { .db = hl_job_db(run), .run = run };
	size_t offset, bytes;
	long line;
	int rc = next_import(im.db, hl_job_cursor(run), &im, &offset, &line, &bytes);
	if (rc <= 0) {
		forget_kept();
		return rc < 0 ? rc : HL_JOB_DONE;
	}
	hl_job_set_cursor(run, im.location);
	rc = keep_window(&im, offset, bytes);
	if (!rc)
		rc = read_kept_header(&im);
	if (!rc)
		rc = (im.csv = hl_csv_open(kept.window, im.end - im.base, offset - im.base, line))
			     ? 0 : HL_ENOMEM;
	if (!rc && !offset)
		hl_csv_next(im.csv); /* the header, read above */
	if (!rc) {
		im.made = kept.made, im.nmade = kept.nmade, im.made_cap = kept.made_cap;
		rc = import_rows(&im);
		kept.made = im.made, kept.nmade = im.nmade, kept.made_cap = im.made_cap;
		im.made = NULL;
	}
	if (rc >= 0)
		rc = save_progress(&im, rc);
	else if (rc == HL_EINVAL || rc == HL_ENOENT)
		rc = import_fail(&im);
	import_free(&im);
	return rc < 0 ? rc : HL_JOB_MORE;
}

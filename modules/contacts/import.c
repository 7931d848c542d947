/* SPDX-License-Identifier: MIT */
/*
 * import.c: POST /api/contacts/import, a CSV file of contacts (RFC 4180,
 * UTF-8, a byte order mark or not) whose header row names the columns:
 * the contact's own fields, owner_id, tags (comma-separated) and the keys
 * of the location's custom fields; other columns are listed as ignored.
 * Each row creates a contact or changes the one it matches (by e-mail,
 * then phone, as an upsert does); an empty cell leaves a field as it is.
 * A row that fails a check is skipped and reported with its line number
 * and the reason, before anything of it is written.
 *
 * An upload up to INLINE_MAX runs inside its request, all of it in the
 * request's transaction. A larger one is stored in contact_imports and
 * run by the import job in slices, each slice a transaction that also
 * records how far it got, so a batch is never half written and progress
 * can be read (GET /api/contacts/imports/:id) while it runs.
 *
 * A row changes whichever contact of the sub-account it matches, so a
 * user who sees only their own contacts ("assigned only") may not import
 * (403), and sees no one else's imports.
 */
#include "contacts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* About 1,000 rows: some 60 ms of the write lock, which other writers wait
 * out; a larger file goes to the job, which holds it 40 ms at a time. */
#define INLINE_MAX (64 * 1024)
#define ERRORS_KEPT 1000
#define HEADER_NAME_MAX 64

enum { T_IGNORE = -1, T_OWNER = CT_COUNT, T_TAGS, T_CUSTOM };

struct column {
	int target;      /* a contact_text, or T_ */
	int64_t field;   /* T_CUSTOM: the custom field */
	char *type, *options, *key;
	char room[32];   /* the row's canonical custom value */
	const char *value;
};

struct import {
	struct hl_db *db;
	struct hl_req *req;       /* inline: its request; NULL in the job */
	struct hl_job_run *run;   /* in the job: its slice */
	int64_t id, location;
	struct hl_csv *csv;
	struct column *cols;
	int ncols;
	int64_t created, updated, skipped, errors_kept;
	char why[160];            /* the current row's reason to be skipped */
	/* The contacts to index for search once the batch's other writes are
	 * done (see contact_index), and whether each is new. */
	struct { int64_t id; int fresh; } *index;
	size_t nindex, index_cap;
};

/* ---- the header ----------------------------------------------------------- */

/* "E-mail Address " -> "e_mail_address": lower case, spaces and dashes as _. */
static void normalize(const char *in, char *out, size_t cap)
{
	size_t n = 0;
	while (*in == ' ')
		in++;
	for (; *in && n + 1 < cap; in++)
		out[n++] = *in == ' ' || *in == '-' ? '_' : *in >= 'A' && *in <= 'Z' ? *in + 32 : *in;
	while (n && out[n - 1] == '_')
		n--;
	out[n] = '\0';
}

static int builtin_target(const char *name)
{
	static const struct { const char *alias; int target; } aliases[] = {
		{ "firstname", CT_FIRST_NAME }, { "lastname", CT_LAST_NAME },
		{ "e_mail", CT_EMAIL }, { "email_address", CT_EMAIL },
		{ "phone_number", CT_PHONE }, { "mobile", CT_PHONE },
		{ "company", CT_COMPANY_NAME }, { "owner_id", T_OWNER }, { "tags", T_TAGS },
	};
	for (int t = 0; t < CT_COUNT; t++)
		if (!strcmp(name, contact_text_names[t]))
			return t;
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(name, aliases[i].alias))
			return aliases[i].target;
	return T_IGNORE;
}

/* Look `name` up among the location's custom fields. 1, 0, HL_EDB. */
static int custom_target(struct import *im, struct column *c, const char *name)
{
	sqlite3_stmt *st = hl_stmt(im->db, "SELECT id, type, options FROM custom_fields"
				   " WHERE location_id = ?1 AND key = ?2");
	if (!st)
		return HL_EDB;
	sqlite3_bind_int64(st, 1, im->location);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? 0 : HL_EDB;
	const char *options = (const char *)sqlite3_column_text(st, 2);
	c->target = T_CUSTOM;
	c->field = sqlite3_column_int64(st, 0);
	c->type = strdup((const char *)sqlite3_column_text(st, 1));
	c->options = options ? strdup(options) : NULL;
	c->key = strdup(name);
	return c->type && c->key && (c->options || !options) ? 1 : HL_ENOMEM;
}

/* Note a header name that maps to nothing (once, when the import starts). */
static int note_ignored(struct import *im, const char *name)
{
	sqlite3_stmt *st = hl_stmt(im->db, "UPDATE contact_imports SET ignored_columns ="
				   " json_insert(ignored_columns, '$[#]', ?2) WHERE id = ?1");
	if (!st)
		return HL_EDB;
	sqlite3_bind_int64(st, 1, im->id);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	return sqlite3_step(st) == SQLITE_DONE ? 0 : HL_EDB;
}

/* Read the header row into im->cols. 0, HL_EINVAL with im->why, HL_EDB,
 * HL_ENOMEM. `first`: note the ignored columns. */
static int read_header(struct import *im, int first)
{
	int n = hl_csv_next(im->csv);
	if (n <= 0)
		return snprintf(im->why, sizeof(im->why), "%s", n ? hl_csv_error(im->csv)
				: "the file is empty: it needs a header row"), HL_EINVAL;
	if (!(im->cols = calloc((size_t)n, sizeof(*im->cols))))
		return HL_ENOMEM;
	im->ncols = n;
	int known = 0;
	for (int i = 0; i < n; i++) {
		char name[HEADER_NAME_MAX + 1];
		struct column *c = &im->cols[i];
		normalize(hl_csv_field(im->csv, i, NULL), name, sizeof(name));
		c->target = builtin_target(name);
		int rc = c->target == T_IGNORE ? custom_target(im, c, name) : 0;
		if (rc < 0 || (first && c->target == T_IGNORE && (rc = note_ignored(im,
				hl_csv_field(im->csv, i, NULL)))))
			return rc;
		for (int j = 0; j < i && c->target != T_IGNORE; j++)
			if (im->cols[j].target == c->target && im->cols[j].field == c->field)
				return snprintf(im->why, sizeof(im->why), "the column '%s' appears"
						" twice in the header", name), HL_EINVAL;
		known += c->target != T_IGNORE;
	}
	if (!known)
		return snprintf(im->why, sizeof(im->why), "the header row names none of a"
				" contact's fields (first_name, last_name, email, phone, ...)"), HL_EINVAL;
	return 0;
}

static void import_free(struct import *im)
{
	for (int i = 0; i < im->ncols; i++) {
		free(im->cols[i].type);
		free(im->cols[i].options);
		free(im->cols[i].key);
	}
	free(im->cols);
	free(im->index);
	hl_csv_close(im->csv);
}

/* ---- one row -------------------------------------------------------------- */

/* Skip the row: say why; returns 1 for check_row. */
static int reject(struct import *im, const char *fmt, const char *a, const char *b)
{
	snprintf(im->why, sizeof(im->why), fmt, a, b);
	return 1;
}

/* Each name of a tags cell, trimmed: checked, and when `id` is not 0 put
 * on that contact. 0, 1 with im->why for a bad name, HL_EDB. */
static int each_tag(struct import *im, const char *cell, int64_t id)
{
	for (const char *p = cell; *p;) {
		const char *end = strchr(p, ','), *stop = end ? end : p + strlen(p);
		const char *a = p, *b = stop;
		char name[TAG_NAME_MAX * 4 + 1];
		while (a < b && *a == ' ')
			a++;
		while (b > a && b[-1] == ' ')
			b--;
		size_t n = (size_t)(b - a);
		if (n >= sizeof(name) || (memcpy(name, a, n), name[n] = '\0',
					  hl_text_length(name) > TAG_NAME_MAX))
			return reject(im, "tags: a tag name longer than %s characters%s", "64", "");
		if (n && id && tag_attach(im->db, im->location, id, name) < 0)
			return HL_EDB;
		p = end ? end + 1 : stop;
	}
	return 0;
}

/* Read and check the current row into `in` and the columns' values: 0, 1
 * with im->why to skip it, HL_EDB. */
static int check_row(struct import *im, int nfields, struct contact_input *in)
{
	char num[32];
	memset(in, 0, sizeof(*in));
	if (nfields > im->ncols)
		return snprintf(num, sizeof(num), "%d", nfields),
		       reject(im, "%s fields where the header has fewer%s", num, "");
	for (int i = 0; i < im->ncols; i++) {
		struct column *c = &im->cols[i];
		const char *v = i < nfields ? hl_csv_field(im->csv, i, NULL) : "", *why;
		c->value = NULL;
		if (!*v || c->target == T_IGNORE)
			continue;
		if (c->target < CT_COUNT && hl_text_length(v) > CONTACT_TEXT_MAX)
			return reject(im, "%s: text of at most 200 characters%s",
				      contact_text_names[c->target], "");
		if (c->target < CT_COUNT) {
			in->text[c->target] = v;
			in->given |= 1u << c->target;
		} else if (c->target == T_OWNER) {
			char *end;
			in->owner_id = strtoll(v, &end, 10);
			int ok = *end || in->owner_id <= 0 ? 0
				: hl_user_in_location(im->db, im->location, in->owner_id);
			if (ok <= 0)
				return ok < 0 ? ok : reject(im, "owner_id: %s is no user of this"
							    " location%s", v, "");
			in->given |= OWNER_GIVEN;
		} else if (c->target == T_TAGS) {
			int rc = each_tag(im, v, 0);
			if (rc)
				return rc;
			c->value = v;
		} else if (!(c->value = custom_value_check(im->db, c->type, c->options, v, c->room,
							   &why))) {
			return reject(im, "%s: %s", c->key, why);
		}
	}
	const char *problem = contact_input_problem(in, 1);
	return problem ? reject(im, "%s%s", problem, "") : 0;
}

static int publish(struct import *im, const char *name, int64_t id)
{
	return im->req ? hl_publish(im->req, name, id, NULL)
		       : hl_job_publish(im->run, name, im->location, id, NULL);
}

/* Note contact `id` for index_batch. 0, HL_ENOMEM. */
static int index_later(struct import *im, int64_t id, int fresh)
{
	if (im->nindex == im->index_cap) {
		size_t cap = im->index_cap ? 2 * im->index_cap : 1024;
		void *bigger = realloc(im->index, cap * sizeof(*im->index));
		if (!bigger)
			return HL_ENOMEM;
		im->index = bigger;
		im->index_cap = cap;
	}
	im->index[im->nindex].id = id;
	im->index[im->nindex++].fresh = fresh;
	return 0;
}

/* Write the checked row, counting it as created or updated: 0, HL_EDB. */
static int write_row(struct import *im, const struct contact_input *in)
{
	int64_t id = contact_match(im->db, im->location, in, 0);
	int found = id > 0, rc = id < 0 ? (int)id : 0;
	if (!rc && found)
		rc = contact_update(im->db, im->location, id, in);
	else if (!rc && (id = contact_insert(im->db, im->location, in)) < 0)
		rc = (int)id;
	for (int i = 0; !rc && i < im->ncols; i++) {
		struct column *c = &im->cols[i];
		if (c->value && c->target == T_CUSTOM)
			rc = custom_value_set(im->db, im->location, id, c->field, c->value);
		else if (c->value && c->target == T_TAGS)
			rc = each_tag(im, c->value, id) ? HL_EDB : 0;
	}
	if (!rc && (!found || contact_searchable(in->given)))
		rc = index_later(im, id, !found);
	if (rc)
		return rc;
	*(found ? &im->updated : &im->created) += 1;
	return publish(im, found ? "contact.updated" : "contact.created", id);
}

/* Index the batch's contacts for search, last. 0, HL_EDB. */
static int index_batch(struct import *im)
{
	int rc = 0;
	for (size_t i = 0; !rc && i < im->nindex; i++)
		rc = contact_index(im->db, im->index[i].id, im->index[i].fresh);
	im->nindex = 0;
	return rc;
}

/* Keep the reason of a skipped row (the first ERRORS_KEPT of them). */
static int note_error(struct import *im, long line)
{
	im->skipped++;
	if (im->errors_kept >= ERRORS_KEPT)
		return 0;
	im->errors_kept++;
	sqlite3_stmt *st = hl_stmt(im->db, "UPDATE contact_imports SET errors = json_insert(errors,"
		" '$[#]', json_object('line', ?2, 'reason', ?3)) WHERE id = ?1");
	if (!st)
		return HL_EDB;
	sqlite3_bind_int64(st, 1, im->id);
	sqlite3_bind_int64(st, 2, line);
	sqlite3_bind_text(st, 3, im->why, -1, SQLITE_STATIC);
	return sqlite3_step(st) == SQLITE_DONE ? 0 : HL_EDB;
}

/* Import rows until the end (1) or until the job's budget is used (0);
 * HL_EDB. */
static int import_rows(struct import *im)
{
	for (int row = 0;; row++) {
		if (im->run && row % 64 == 63 && hl_job_over_budget(im->run))
			return index_batch(im) ? HL_EDB : 0;
		int n = hl_csv_next(im->csv), rc;
		if (!n)
			return index_batch(im) ? HL_EDB : 1;
		struct contact_input in;
		if (n < 0) {
			snprintf(im->why, sizeof(im->why), "%s", hl_csv_error(im->csv));
			rc = 1;
		} else {
			rc = check_row(im, n, &in);
		}
		if (rc == 1)
			rc = note_error(im, hl_csv_record_line(im->csv));
		else if (!rc)
			rc = write_row(im, &in);
		if (rc < 0)
			return rc;
	}
}

/* ---- progress, the request and the job -------------------------------- */

/* Drop the upload of a finished import. 0, HL_EDB. */
static int drop_file(struct import *im)
{
	sqlite3_stmt *st = hl_stmt(im->db, "DELETE FROM contact_import_files WHERE import_id = ?1");
	if (!st)
		return HL_EDB;
	sqlite3_bind_int64(st, 1, im->id);
	return sqlite3_step(st) == SQLITE_DONE ? 0 : HL_EDB;
}

/* Record how far the import got, and when `done`, finish it. 0, HL_EDB. */
static int save_progress(struct import *im, int done)
{
	sqlite3_stmt *st = hl_stmt(im->db, "UPDATE contact_imports SET offset = ?2, line = ?3,"
		" created = created + ?4, updated = updated + ?5, skipped = skipped + ?6,"
		" status = CASE WHEN ?7 THEN 'done' ELSE 'running' END,"
		" finished_at = CASE WHEN ?7 THEN strftime('%Y-%m-%dT%H:%M:%fZ', 'now') END"
		" WHERE id = ?1");
	if (!st)
		return HL_EDB;
	sqlite3_bind_int64(st, 1, im->id);
	sqlite3_bind_int64(st, 2, (int64_t)hl_csv_offset(im->csv));
	sqlite3_bind_int64(st, 3, hl_csv_line(im->csv));
	sqlite3_bind_int64(st, 4, im->created);
	sqlite3_bind_int64(st, 5, im->updated);
	sqlite3_bind_int64(st, 6, im->skipped);
	sqlite3_bind_int(st, 7, done);
	if (sqlite3_step(st) != SQLITE_DONE)
		return HL_EDB;
	return done ? drop_file(im) : 0;
}

/* Answer import `id` of the location: its state, counts and errors. */
static int reply_import(struct hl_req *req, int status, int64_t id)
{
	sqlite3_stmt *st = hl_scoped_read(req,
		"SELECT id, status, bytes, CASE status WHEN 'done' THEN 1.0"
		" ELSE round(offset * 1.0 / bytes, 3) END AS progress, created, updated, skipped,"
		" errors AS json_errors, ignored_columns AS json_ignored_columns, created_at,"
		" finished_at FROM contact_imports WHERE id = ?2 AND location_id = :location"
		" AND (:me = 0 OR user_id = :me)");
	if (!st)
		return HL_EDB;
	sqlite3_bind_int64(st, 2, id);
	hl_bind_int(st, ":me", hl_assigned_user(req));
	return hl_reply_row(req, status, st, "import");
}

/* A new import of `len` bytes: its id, or HL_EDB. A large one keeps the
 * file for the job. */
static int64_t import_create(struct import *im, const char *body, size_t len, int large)
{
	sqlite3_stmt *st = hl_stmt(im->db, "INSERT INTO contact_imports (location_id, user_id,"
				   " status, bytes) VALUES (?1, ?2, ?3, ?4)");
	if (!st)
		return HL_EDB;
	sqlite3_bind_int64(st, 1, im->location);
	sqlite3_bind_int64(st, 2, hl_user_id(im->req));
	sqlite3_bind_text(st, 3, large ? "queued" : "running", -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (int64_t)len);
	if (sqlite3_step(st) != SQLITE_DONE)
		return HL_EDB;
	int64_t id = sqlite3_last_insert_rowid(hl_sqlite(im->db));
	if (!large)
		return id;
	st = hl_stmt(im->db, "INSERT INTO contact_import_files (import_id, csv) VALUES (?1, ?2)");
	if (!st)
		return HL_EDB;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_blob64(st, 2, body, len, SQLITE_STATIC);
	return sqlite3_step(st) == SQLITE_DONE ? id : HL_EDB;
}

/* POST /api/contacts/import: 200 with the report, or 202 for a large
 * file the job imports (follow it at /api/contacts/imports/:id). */
int contacts_import(struct hl_req *req)
{
	size_t len;
	const char *body = hl_body(req, &len), *type = hl_header(req, "Content-Type");
	if (hl_assigned_only(req))
		return hl_reply_error(req, 403, "forbidden", "an import matches any contact of the"
				      " sub-account; it needs a user who sees every contact");
	if (type && !strncasecmp(type, "multipart/", 10))
		return hl_reply_error(req, 415, "unsupported_media_type", "send the CSV file itself"
				      " as the body (Content-Type: text/csv)");
	if (!len)
		return hl_reply_error(req, 422, "validation", "the file is empty: it needs a header row");
	struct import im = { .req = req, .location = hl_location_id(req), .db = hl_write_begin(req) };
	int large = len > INLINE_MAX;
	int64_t id = im.db ? import_create(&im, body, len, large) : HL_EDB;
	if (id < 0)
		return (int)id;
	im.id = id;
	im.csv = hl_csv_open(body, len, 0, 1);
	int rc = im.csv ? read_header(&im, 1) : HL_ENOMEM;
	if (!rc && !large && (rc = import_rows(&im)) == 1)
		rc = save_progress(&im, 1);
	import_free(&im);
	if (rc == HL_EINVAL)
		return hl_reply_error(req, 422, "validation", "%s", im.why);
	return rc < 0 ? rc : reply_import(req, large ? 202 : 200, id);
}

/* GET /api/contacts/imports/:id */
int contacts_import_status(struct hl_req *req)
{
	int64_t id;
	if (hl_param_id(req, "id", &id))
		return 0;
	return reply_import(req, 200, id);
}

/* Mark import `id` failed, for a stored file whose header no longer
 * reads (a custom field it named was deleted meanwhile, say). */
static int import_fail(struct import *im)
{
	sqlite3_stmt *st = hl_stmt(im->db, "UPDATE contact_imports SET status = 'failed',"
		" finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),"
		" errors = json_insert(errors, '$[#]', json_object('line', 1, 'reason', ?2))"
		" WHERE id = ?1");
	if (!st)
		return HL_EDB;
	sqlite3_bind_int64(st, 1, im->id);
	sqlite3_bind_text(st, 2, im->why, -1, SQLITE_STATIC);
	return sqlite3_step(st) == SQLITE_DONE ? drop_file(im) : HL_EDB;
}

/* The import job: the oldest unfinished import, from where it stopped,
 * for as long as the slice's budget lasts. */
int import_slice(struct hl_job_run *run)
{
	struct hl_db *db = hl_job_db(run);
	sqlite3_stmt *st = hl_stmt(db, "SELECT i.id, i.location_id, f.csv, i.offset, i.line,"
		" json_array_length(i.errors) FROM contact_imports i"
		" JOIN contact_import_files f ON f.import_id = i.id"
		" WHERE i.status IN ('queued', 'running') ORDER BY i.id LIMIT 1");
	if (!st)
		return HL_EDB;
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? HL_JOB_DONE : HL_EDB;
	struct import im = { .db = db, .run = run, .id = sqlite3_column_int64(st, 0),
			     .location = sqlite3_column_int64(st, 1),
			     .errors_kept = sqlite3_column_int64(st, 5) };
	const char *csv = sqlite3_column_blob(st, 2);
	size_t len = (size_t)sqlite3_column_bytes(st, 2), offset = (size_t)sqlite3_column_int64(st, 3);
	long line = (long)sqlite3_column_int64(st, 4);
	im.csv = hl_csv_open(csv ? csv : "", len, 0, 1);
	rc = im.csv ? read_header(&im, 0) : HL_ENOMEM;
	if (!rc && offset) {
		hl_csv_close(im.csv);
		rc = (im.csv = hl_csv_open(csv, len, offset, line)) ? 0 : HL_ENOMEM;
	}
	if (!rc)
		rc = import_rows(&im);
	if (rc >= 0)
		rc = save_progress(&im, rc);
	else if (rc == HL_EINVAL)
		rc = import_fail(&im);
	import_free(&im);
	sqlite3_reset(st);
	return rc < 0 ? rc : HL_JOB_MORE;
}

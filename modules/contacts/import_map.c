/* SPDX-License-Identifier: MIT */
/*
 * import_map.c: what an uploaded file's columns become. The upload's
 * answer shows the file's header and first rows with a mapping: the one
 * last used in the sub-account for a file of the same shape (the same set
 * of column names), else one guessed from the names. The person changes
 * it and asks POST /api/contacts/imports/:id/preview what the first rows
 * become under it (each row's values, or why it would be skipped, and
 * whether it adds, updates or skips a contact); running the import saves
 * the mapping for the shape.
 *
 * A mapping, in bodies and records alike, is a JSON array with one
 * member per column: a field's key ("email", "tags", a custom field's
 * key) or null for a column left out.
 */
#include "import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SAMPLE_ROWS 5    /* rows the upload's answer shows */
#define PREVIEW_ROWS 10  /* rows a preview reads */

/* The contact's own fields a column may go to, with what people call
 * them; the custom fields follow. */
static const struct { const char *key, *name; } own_fields[] = {
	{ "first_name", "First name" }, { "last_name", "Last name" },
	{ "full_name", "Full name (first and last)" }, { "email", "E-mail" },
	{ "phone", "Phone" }, { "company_name", "Company" }, { "source", "Source" },
	{ "tags", "Tags" }, { "owner_id", "Owner (user id)" },
};

/* ---- the file's shape ------------------------------------------------------- */

struct named { const char *key; int col; };

static int by_key(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : x->col - y->col;
}

/* The shape of the header just read (the record of im->csv): its names as
 * keys, sorted, joined by a unit separator; order[k] is the column of the
 * k-th name in that order. In the request's arena. */
static const char *shape_of(struct hl_req *req, struct import *im, int n, int *order)
{
	struct named *names = hl_alloc(req, sizeof(*names) * (size_t)n);
	size_t len = 0;
	for (int i = 0; i < n; i++) {
		char key[HEADER_NAME_MAX + 1];
		import_header_key(hl_csv_field(im->csv, i, NULL), key);
		names[i].key = hl_strndup(req, key, strlen(key));
		names[i].col = i;
		len += strlen(key) + 1;
	}
	qsort(names, (size_t)n, sizeof(*names), by_key);
	char *shape = hl_alloc(req, len + 1), *at = shape;
	for (int k = 0; k < n; k++) {
		at += sprintf(at, "%s%s", k ? "\x1f" : "", names[k].key);
		order[k] = names[k].col;
	}
	*at = '\0';
	return shape;
}

/* ---- guessing, saving ---------------------------------------------------------- */

/* Drop a key that an earlier column already takes. */
static void unique(const char **map, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; map[i] && j < i; j++)
			if (map[j] && !strcmp(map[i], map[j]))
				map[i] = NULL;
}

/* The mapping saved for the file's shape into map[n] (still existing
 * fields only): 1, 0 when none is saved, HL_EDB. */
static int saved_mapping(struct hl_req *req, struct import *im, int n, const char **map)
{
	int *order = hl_alloc(req, sizeof(*order) * (size_t)n);
	sqlite3_stmt *st = hl_stmt_scoped(im->db, im->location, "SELECT j.key, j.value"
		" FROM contact_import_mappings m, json_each(m.mapping) j"
		" WHERE m.location_id = :location AND m.shape = :shape ORDER BY j.key");
	if (!st)
		return HL_EDB;
	hl_bind_text(st, ":shape", shape_of(req, im, n, order));
	int rc, found = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int k = sqlite3_column_int(st, 0);
		const char *key = (const char *)sqlite3_column_text(st, 1);
		found = 1;
		if (k >= 0 && k < n && key)
			map[order[k]] = hl_strndup(req, key, strlen(key));
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return HL_EDB;
	for (int i = 0; found && i < n; i++) {
		int here = map[i] ? import_field_exists(im, map[i]) : 0;
		if (here < 0)
			return here;
		if (!here)
			map[i] = NULL; /* a custom field deleted since */
	}
	return found;
}

/* The mapping guessed from the header's names into map[n]. 0, HL_EDB. */
static int guessed_mapping(struct hl_req *req, struct import *im, int n, const char **map)
{
	for (int i = 0; i < n; i++) {
		char key[HEADER_NAME_MAX + 1];
		int rc = import_guess(im, hl_csv_field(im->csv, i, NULL), key);
		if (rc < 0)
			return rc;
		map[i] = rc ? hl_strndup(req, key, strlen(key)) : NULL;
	}
	return 0;
}

/* im->cols (just read) as a JSON array in column order, or in the order
 * of order[] when not NULL. Keys are safe in JSON as they are: a
 * built-in name or a custom key (letters, digits and _). */
static const char *mapping_json(struct hl_req *req, const struct import *im, const int *order)
{
	char *out = hl_alloc(req, (size_t)im->ncols * (HEADER_NAME_MAX + 4) + 3), *at = out;
	*at++ = '[';
	for (int k = 0; k < im->ncols; k++) {
		const char *key = import_target_name(im, order ? order[k] : k);
		at += sprintf(at, key ? "%s\"%s\"" : "%snull", k ? "," : "", key);
	}
	strcpy(at, "]");
	return out;
}

int import_map_save(struct hl_req *req, struct import *im)
{
	int *order = hl_alloc(req, sizeof(*order) * (size_t)im->ncols);
	const char *shape = shape_of(req, im, im->ncols, order);
	sqlite3_stmt *st = hl_stmt(im->db, "UPDATE contact_imports SET mapping = :mapping,"
				   " duplicates = :duplicates WHERE id = :id");
	hl_bind_int(st, ":id", im->id);
	hl_bind_text(st, ":mapping", mapping_json(req, im, NULL));
	hl_bind_text(st, ":duplicates", import_duplicates[im->duplicates]);
	if (hl_step_changes(st) < 0)
		return HL_EDB;
	st = hl_stmt_scoped(im->db, im->location, "INSERT INTO contact_import_mappings"
		" (location_id, shape, mapping) VALUES (:location, :shape, :mapping)"
		" ON CONFLICT DO UPDATE SET mapping = excluded.mapping,"
		" updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')");
	hl_bind_text(st, ":shape", shape);
	hl_bind_text(st, ":mapping", mapping_json(req, im, order));
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

/* ---- the body's mapping ---------------------------------------------------------- */

int import_map_from_body(struct hl_req *req, struct import *im)
{
	static const char *const keys[] = { "mapping", "duplicates", NULL };
	if (hl_fields_only(req, 0, keys))
		return HL_EINVAL;
	int arr = hl_body_find(req, 0, "mapping"), n = hl_body_count(req, arr);
	if (arr < 0 || hl_body_type(req, arr) != HL_JSON_ARRAY || n < 1)
		return hl_reply_invalid(req, "mapping", "an array with a field's key or null for"
					" each column");
	int at = hl_body_find(req, 0, "duplicates");
	const char *dup = at >= 0 ? hl_body_string(req, at) : import_duplicates[DUP_UPDATE];
	for (im->duplicates = 0; dup && im->duplicates < DUP_COUNT &&
	     strcmp(dup, import_duplicates[im->duplicates]); im->duplicates++)
		;
	if (!dup || im->duplicates == DUP_COUNT)
		return hl_reply_invalid(req, "duplicates", "skip, update or create");
	if (!(im->map = calloc((size_t)n, sizeof(*im->map))))
		return HL_ENOMEM;
	im->nmap = n;
	for (int i = 0; i < n; i++) {
		int tok = hl_body_index(req, arr, i);
		const char *key = hl_body_type(req, tok) == HL_JSON_NULL ? NULL : hl_body_string(req, tok);
		if (hl_body_type(req, tok) != HL_JSON_NULL && !key)
			return hl_reply_invalid(req, "mapping", "column %d: a field's key or null", i + 1);
		if (key && *key && !(im->map[i] = strdup(key)))
			return HL_ENOMEM;
	}
	return 0;
}

/* ---- the upload's answer -------------------------------------------------------- */

/* The fields a column may go to: the own ones, then the custom ones. */
static int json_fields(struct import *im, struct hl_json *j)
{
	hl_json_key(j, "fields");
	hl_json_array(j);
	for (size_t i = 0; i < sizeof(own_fields) / sizeof(own_fields[0]); i++) {
		hl_json_object(j);
		hl_json_key(j, "key");
		hl_json_string(j, own_fields[i].key);
		hl_json_key(j, "name");
		hl_json_string(j, own_fields[i].name);
		hl_json_object_end(j);
	}
	sqlite3_stmt *st = hl_stmt_scoped(im->db, im->location, "SELECT key, name FROM custom_fields"
					  " WHERE location_id = :location ORDER BY position, id");
	int rc = st ? SQLITE_ROW : SQLITE_ERROR;
	while (rc == SQLITE_ROW && (rc = sqlite3_step(st)) == SQLITE_ROW)
		hl_json_row(j, st);
	if (st)
		sqlite3_reset(st);
	hl_json_array_end(j);
	return rc == SQLITE_DONE ? 0 : HL_EDB;
}

/* The first rows of the file, each {line, cells}. */
static void json_sample(struct import *im, struct hl_json *j)
{
	hl_json_key(j, "rows");
	hl_json_array(j);
	for (int r = 0, n; r < SAMPLE_ROWS && (n = hl_csv_next(im->csv)) != 0; r++) {
		hl_json_object(j);
		hl_json_key(j, "line");
		hl_json_int(j, hl_csv_record_line(im->csv));
		hl_json_key(j, "cells");
		hl_json_array(j);
		for (int i = 0; i < n; i++)
			hl_json_string(j, hl_csv_field(im->csv, i, NULL));
		hl_json_array_end(j);
		hl_json_object_end(j);
	}
	hl_json_array_end(j);
}

int import_map_reply(struct hl_req *req, struct import *im)
{
	int n = hl_csv_next(im->csv);
	if (n <= 0)
		return hl_reply_error(req, 422, "validation", "%s", n ? hl_csv_error(im->csv)
				      : "the file is empty: it needs a header row");
	const char **map = hl_alloc(req, sizeof(*map) * (size_t)n);
	memset(map, 0, sizeof(*map) * (size_t)n);
	int saved = saved_mapping(req, im, n, map);
	int rc = saved ? saved : guessed_mapping(req, im, n, map);
	if (rc < 0)
		return rc;
	unique(map, n);
	struct hl_json *j = hl_reply_json(req, 201);
	hl_json_object(j);
	hl_json_key(j, "id");
	hl_json_int(j, im->id);
	hl_json_key(j, "status");
	hl_json_string(j, "uploaded");
	hl_json_key(j, "headers");
	hl_json_array(j);
	for (int i = 0; i < n; i++)
		hl_json_string(j, hl_csv_field(im->csv, i, NULL));
	hl_json_array_end(j);
	hl_json_key(j, "mapping");
	hl_json_array(j);
	for (int i = 0; i < n; i++)
		map[i] ? hl_json_string(j, map[i]) : hl_json_null(j);
	hl_json_array_end(j);
	hl_json_key(j, "saved");
	hl_json_bool(j, saved > 0);
	hl_json_key(j, "duplicates");
	hl_json_string(j, import_duplicates[DUP_UPDATE]);
	json_sample(im, j);
	rc = json_fields(im, j);
	hl_json_object_end(j);
	return rc;
}

/* ---- the preview ------------------------------------------------------------------ */

/* The rows a preview has read that add or change a contact, so that a
 * later one with the same e-mail (or phone) shows as its duplicate. */
struct seen {
	long line[PREVIEW_ROWS];
	const char *email[PREVIEW_ROWS], *phone[PREVIEW_ROWS];
	int n;
};

/* The line of an earlier row that `in` duplicates, as contact_match
 * matches (the e-mail, or with none the phone), or 0. */
static long seen_before(const struct seen *s, const struct contact_input *in)
{
	const char *email = in->text[CT_EMAIL], *phone = in->text[CT_PHONE];
	for (int k = 0; k < s->n; k++)
		if ((email && *email) ? s->email[k] && !strcasecmp(s->email[k], email)
				      : phone && *phone && s->phone[k] && !strcmp(s->phone[k], phone))
			return s->line[k];
	return 0;
}

static void remember(struct hl_req *req, struct seen *s, const struct contact_input *in,
		     long line)
{
	const char *email = in->text[CT_EMAIL], *phone = in->text[CT_PHONE];
	s->line[s->n] = line;
	s->email[s->n] = email && *email ? hl_strndup(req, email, strlen(email)) : NULL;
	s->phone[s->n++] = phone && *phone ? hl_strndup(req, phone, strlen(phone)) : NULL;
}

/* What the current row (n fields, or n < 0 unreadable) becomes:
 * {line, action, reason?, values?}. 0, HL_EDB. */
static int preview_row(struct hl_req *req, struct import *im, struct hl_json *j, int n,
		       struct seen *seen)
{
	struct contact_input in;
	long line = hl_csv_record_line(im->csv), of = 0;
	int rc = n < 0 ? (snprintf(im->why, sizeof(im->why), "%s", hl_csv_error(im->csv)), 1)
		       : import_check_row(im, n, &in);
	int64_t id = 0;
	if (!rc && im->duplicates != DUP_CREATE && !(of = seen_before(seen, &in)))
		id = import_match(im, &in, &of);
	if (rc < 0 || id < 0)
		return HL_EDB;
	const char *action = rc ? "skip" : "create";
	if (!rc && (of || id)) {
		import_dup_reason(im, &in, of);
		action = im->duplicates == DUP_SKIP ? "skip" : "update";
	}
	hl_json_object(j);
	hl_json_key(j, "line");
	hl_json_int(j, line);
	hl_json_key(j, "action");
	hl_json_string(j, action);
	if (rc || of || id) {
		hl_json_key(j, "reason");
		hl_json_string(j, im->why);
	}
	if (!rc) {
		hl_json_key(j, "values");
		import_row_json(im, j, &in);
		if (strcmp(action, "skip"))
			remember(req, seen, &in, line);
	}
	hl_json_object_end(j);
	return 0;
}

int import_preview_reply(struct hl_req *req, struct import *im)
{
	int rc = import_read_header(im, 0);
	if (rc == HL_EINVAL)
		return hl_reply_invalid(req, "mapping", "%s", im->why);
	if (rc)
		return rc;
	struct seen seen = { .n = 0 };
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	hl_json_key(j, "mapping");
	hl_json_array(j);
	for (int i = 0; i < im->ncols; i++) {
		const char *key = import_target_name(im, i);
		key ? hl_json_string(j, key) : hl_json_null(j);
	}
	hl_json_array_end(j);
	hl_json_key(j, "duplicates");
	hl_json_string(j, import_duplicates[im->duplicates]);
	hl_json_key(j, "rows");
	hl_json_array(j);
	for (int r = 0, n; !rc && r < PREVIEW_ROWS && (n = hl_csv_next(im->csv)) != 0; r++) {
		if (im->partial && import_offset(im) >= im->end)
			break; /* a row the part read does not hold whole */
		rc = preview_row(req, im, j, n, &seen);
	}
	hl_json_array_end(j);
	hl_json_object_end(j);
	return rc;
}

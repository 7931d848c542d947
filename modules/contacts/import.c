/* SPDX-License-Identifier: MIT */
/*
 * import.c: reading a CSV file of contacts into a location (RFC 4180,
 * UTF-8, a byte order mark or not) whose header row names the columns:
 * the contact's own fields, owner_id, tags (separated by commas or
 * semicolons) and the keys of the location's custom fields; other
 * columns are listed as ignored.
 * Each row creates a contact or changes the one it matches (by e-mail,
 * then phone, as an upsert does); an empty cell leaves a field as it is.
 * A row that fails a check is skipped and reported with its line number
 * and the reason, before anything of it is written. A file that is not
 * UTF-8 (Excel's plain "CSV" is Latin-1 or Windows-1252) is refused whole,
 * naming its first line at fault, rather than imported without the rows
 * that hold an accent.
 *
 * The rows are read the same way inside a request (a small file) and in
 * the import job's slices (a large one; see import_job.c).
 */
#include "import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ERRORS_KEPT 1000
#define INDEX_BATCH 64 /* contacts a job slice indexes for search at a time */
#define HEADER_NAME_MAX 64

enum { T_IGNORE = -1, T_OWNER = CT_COUNT, T_TAGS, T_CUSTOM };

struct column {
	int target;      /* a contact_text, or T_ */
	int64_t field;   /* T_CUSTOM: the custom field */
	char *type, *options, *key;
	char room[32];   /* the row's canonical custom value */
	const char *value;
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
	sqlite3_stmt *st = hl_stmt_scoped(im->db, im->location, "SELECT id, type, options"
					  " FROM custom_fields WHERE location_id = :location AND key = :key");
	if (!st)
		return HL_EDB;
	hl_bind_text(st, ":key", name);
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
				   " json_insert(ignored_columns, '$[#]', :name) WHERE id = :id");
	hl_bind_int(st, ":id", im->id);
	hl_bind_text(st, ":name", name);
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

int import_read_header(struct import *im, int first)
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

void import_free(struct import *im)
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

/* Each name of a tags cell (separated by commas or semicolons, as
 * spreadsheets' lists are), trimmed: checked, and when `id` is not 0 put
 * on that contact. 0, 1 with im->why for a bad name, HL_EDB. */
static int each_tag(struct import *im, const char *cell, int64_t id)
{
	for (const char *p = cell; *p;) {
		const char *end = strpbrk(p, ",;"), *stop = end ? end : p + strlen(p);
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
							    " sub-account%s", v, "");
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
	const char *member, *problem = contact_input_problem(in, 1, im->country, &member);
	return problem ? reject(im, "%s: %s", member, problem) : 0;
}

static int publish(struct import *im, const char *name, int64_t id)
{
	return im->req ? contact_publish(im->req, name, id, NULL)
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
		" '$[#]', json_object('line', :line, 'reason', :reason)) WHERE id = :id");
	hl_bind_int(st, ":id", im->id);
	hl_bind_int(st, ":line", line);
	hl_bind_text(st, ":reason", im->why);
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

size_t import_offset(const struct import *im)
{
	return im->base + hl_csv_offset(im->csv);
}

int import_rows(struct import *im)
{
	/* A slice imports one row at least, however long it took to begin,
	 * and measures each row's cost from here. */
	if (im->run)
		hl_job_over_budget(im->run);
	for (int rows = 0;; rows++) {
		if (im->run && rows && hl_job_over_budget(im->run))
			return index_batch(im) ? HL_EDB : 0;
		if (im->stop && import_offset(im) >= im->stop)
			return index_batch(im) ? HL_EDB : 0;
		int n = hl_csv_next(im->csv), rc;
		if (!n)
			return index_batch(im) ? HL_EDB : 1;
		if (im->partial && import_offset(im) >= im->end) { /* it may go on */
			snprintf(im->why, sizeof(im->why), "line %ld: a row longer than 1 MB",
				 hl_csv_record_line(im->csv));
			return index_batch(im) ? HL_EDB : HL_EINVAL;
		}
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
		/* Index in batches inside the loop, so that the budget sees
		 * their cost: all of it at the end made slices overrun. */
		if (rc >= 0 && im->run && im->nindex >= INDEX_BATCH)
			rc = index_batch(im);
		if (rc < 0)
			return rc;
	}
}

/* SPDX-License-Identifier: MIT */
/*
 * import.c: reading a CSV file of contacts into a location (RFC 4180,
 * UTF-8, a byte order mark or not). Its columns go where the import's
 * mapping says (import_map.c), or, without one, where the header row's
 * names say: the contact's own fields (or the names other tools export
 * them under: "Email Address", "Mobile Phone Number", "Business Name"),
 * owner_id, tags (separated by commas or semicolons), the keys of the
 * location's custom fields, and a full name (split in first and last
 * name); other columns are listed as ignored.
 * A row that matches a contact (by e-mail, then phone, as an upsert does)
 * changes it, is skipped or is added anyway, as the import's duplicates
 * choice says; the report names each line merged or skipped and why (the
 * line of this file that added the contact, when one did). An empty cell
 * leaves a field as it is.
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

const char *const import_duplicates[DUP_COUNT] = { "update", "skip", "create" };

/* ---- the header ----------------------------------------------------------- */

/* "E-mail Address " -> "e_mail_address", "Person - Email" -> "person_email":
 * lower case, spaces and dashes as one _, trimmed. */
static void normalize(const char *in, char *out, size_t cap)
{
	size_t n = 0;
	while (*in == ' ')
		in++;
	for (; *in && n + 1 < cap; in++) {
		char ch = *in == ' ' || *in == '-' ? '_' : *in >= 'A' && *in <= 'Z' ? *in + 32 : *in;
		if (ch != '_' || !n || out[n - 1] != '_')
			out[n++] = ch;
	}
	while (n && out[n - 1] == '_')
		n--;
	out[n] = '\0';
}

/* A field by the key a mapping names it with: the contact's own text
 * fields, owner_id and tags (full_name comes after the custom fields,
 * which may have that key from before it existed). */
static int own_target(const char *key)
{
	for (int t = 0; t < CT_COUNT; t++)
		if (!strcmp(key, contact_text_names[t]))
			return t;
	return !strcmp(key, "owner_id") ? T_OWNER : !strcmp(key, "tags") ? T_TAGS : T_IGNORE;
}

/* A field by a header other tools write for it (the exports of
 * GoHighLevel, HubSpot, Pipedrive, Google and Outlook), normalised. */
static int alias_target(const char *name)
{
	static const struct { const char *alias; int target; } aliases[] = {
		{ "firstname", CT_FIRST_NAME }, { "first", CT_FIRST_NAME },
		{ "given_name", CT_FIRST_NAME }, { "lastname", CT_LAST_NAME },
		{ "last", CT_LAST_NAME }, { "surname", CT_LAST_NAME },
		{ "family_name", CT_LAST_NAME }, { "name", T_NAME }, { "full_name", T_NAME },
		{ "contact_name", T_NAME }, { "person_name", T_NAME }, { "e_mail", CT_EMAIL },
		{ "email_address", CT_EMAIL }, { "e_mail_address", CT_EMAIL },
		{ "email_1", CT_EMAIL }, { "primary_email", CT_EMAIL },
		{ "work_email", CT_EMAIL }, { "person_email", CT_EMAIL },
		{ "person_email_work", CT_EMAIL }, { "person_email_home", CT_EMAIL },
		{ "phone_number", CT_PHONE }, { "mobile", CT_PHONE }, { "mobile_phone", CT_PHONE },
		{ "mobile_phone_number", CT_PHONE }, { "mobile_number", CT_PHONE },
		{ "cell", CT_PHONE }, { "cell_phone", CT_PHONE }, { "telephone", CT_PHONE },
		{ "phone_1", CT_PHONE }, { "primary_phone", CT_PHONE },
		{ "person_phone", CT_PHONE }, { "person_phone_mobile", CT_PHONE },
		{ "person_phone_work", CT_PHONE }, { "company", CT_COMPANY_NAME },
		{ "business_name", CT_COMPANY_NAME }, { "organization", CT_COMPANY_NAME },
		{ "organisation", CT_COMPANY_NAME }, { "organization_name", CT_COMPANY_NAME },
		{ "person_organization", CT_COMPANY_NAME },
		{ "associated_company", CT_COMPANY_NAME }, { "lead_source", CT_SOURCE },
		{ "original_source", CT_SOURCE }, { "contact_source", CT_SOURCE },
		{ "tag", T_TAGS }, { "labels", T_TAGS }, { "person_labels", T_TAGS },
	};
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(name, aliases[i].alias))
			return aliases[i].target;
	return T_IGNORE;
}

static int custom_target(struct import *im, struct column *c, const char *name);

/* Column `c`'s target by `key` (a mapping's, or a header's name as a
 * key): one of the contact's own fields, else a custom field, else
 * full_name, and when `guess`, else what the name is an alias of. 1, 0
 * for none, HL_EDB, HL_ENOMEM. */
static int resolve(struct import *im, struct column *c, const char *key, int guess)
{
	if ((c->target = own_target(key)) != T_IGNORE)
		return 1;
	int rc = custom_target(im, c, key);
	if (rc)
		return rc;
	c->target = !strcmp(key, "full_name") ? T_NAME : guess ? alias_target(key) : T_IGNORE;
	return c->target != T_IGNORE;
}

static void column_free(struct column *c)
{
	free(c->type);
	free(c->options);
	free(c->key);
}

void import_header_key(const char *header, char key[HEADER_NAME_MAX + 1])
{
	normalize(header, key, HEADER_NAME_MAX + 1);
}

int import_guess(struct import *im, const char *header, char key[HEADER_NAME_MAX + 1])
{
	struct column c = { .target = T_IGNORE };
	normalize(header, key, HEADER_NAME_MAX + 1);
	int rc = resolve(im, &c, key, 1);
	if (rc > 0 && c.target != T_CUSTOM)
		snprintf(key, HEADER_NAME_MAX + 1, "%s", c.target == T_OWNER ? "owner_id" :
			 c.target == T_TAGS ? "tags" : c.target == T_NAME ? "full_name" :
			 contact_text_names[c.target]);
	column_free(&c);
	return rc;
}

int import_field_exists(struct import *im, const char *key)
{
	struct column c = { .target = T_IGNORE };
	int rc = resolve(im, &c, key, 0);
	column_free(&c);
	return rc;
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

/* Column `i`'s target by the mapping: 0, HL_EINVAL (im->why) for a key
 * that names no field, HL_EDB, HL_ENOMEM. */
static int mapped_target(struct import *im, struct column *c, int i)
{
	const char *key = im->map[i];
	int rc = key ? resolve(im, c, key, 0) : (c->target = T_IGNORE, 1);
	if (!rc)
		return snprintf(im->why, sizeof(im->why), "column %d: no field '%.64s' to put it"
				" in", i + 1, key), HL_EINVAL;
	return rc < 0 ? rc : 0;
}

/* Column `i`'s target guessed from its name `name` (normalised). */
static int guessed_target(struct import *im, struct column *c, const char *name)
{
	int rc = resolve(im, c, name, 1);
	return rc < 0 ? rc : 0;
}

int import_read_header(struct import *im, int first)
{
	int n = hl_csv_next(im->csv);
	if (n <= 0)
		return snprintf(im->why, sizeof(im->why), "%s", n ? hl_csv_error(im->csv)
				: "the file is empty: it needs a header row"), HL_EINVAL;
	if (im->map && im->nmap != n)
		return snprintf(im->why, sizeof(im->why), "the mapping names %d columns where"
				" the file has %d", im->nmap, n), HL_EINVAL;
	if (!(im->cols = calloc((size_t)n, sizeof(*im->cols))))
		return HL_ENOMEM;
	im->ncols = n;
	int known = 0;
	for (int i = 0; i < n; i++) {
		char name[HEADER_NAME_MAX + 1];
		struct column *c = &im->cols[i];
		normalize(hl_csv_field(im->csv, i, NULL), name, sizeof(name));
		int rc = im->map ? mapped_target(im, c, i) : guessed_target(im, c, name);
		if (rc < 0 || (first && c->target == T_IGNORE && (rc = note_ignored(im,
				hl_csv_field(im->csv, i, NULL)))))
			return rc;
		for (int j = 0; j < i && c->target != T_IGNORE; j++)
			if (im->cols[j].target == c->target && im->cols[j].field == c->field)
				return snprintf(im->why, sizeof(im->why), "the columns %d and %d both"
						" go to '%s'", j + 1, i + 1, import_target_name(im, i)),
				       HL_EINVAL;
		known += c->target != T_IGNORE;
	}
	if (!known)
		return snprintf(im->why, sizeof(im->why), im->map ? "the mapping puts no column"
				" in a contact's field" : "the header row names none of a contact's"
				" fields (first_name, last_name, email, phone, ...)"), HL_EINVAL;
	return 0;
}

const char *import_target_name(const struct import *im, int i)
{
	const struct column *c = &im->cols[i];
	switch (c->target) {
	case T_IGNORE: return NULL;
	case T_OWNER: return "owner_id";
	case T_TAGS: return "tags";
	case T_NAME: return "full_name";
	case T_CUSTOM: return c->key;
	default: return contact_text_names[c->target];
	}
}

int import_map_read(struct import *im, const char *json)
{
	sqlite3_stmt *st = hl_stmt(im->db, "SELECT value, (SELECT json_array_length(:map))"
				   " FROM json_each(:map) ORDER BY key");
	if (!st)
		return HL_EDB;
	hl_bind_text(st, ":map", json);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!im->map && !(im->map = calloc((size_t)sqlite3_column_int(st, 1),
						   sizeof(*im->map))))
			break;
		const char *key = (const char *)sqlite3_column_text(st, 0);
		if (key && !(im->map[im->nmap] = strdup(key)))
			break;
		im->nmap++;
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : rc == SQLITE_ROW ? HL_ENOMEM : HL_EDB;
}

void import_free(struct import *im)
{
	for (int i = 0; i < im->ncols; i++)
		column_free(&im->cols[i]);
	free(im->cols);
	for (int i = 0; i < im->nmap; i++)
		free(im->map[i]);
	free(im->map);
	free(im->made);
	free(im->merged);
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

/* The next name of a tags cell at *p (names are separated by commas or
 * semicolons, as spreadsheets' lists are), trimmed, into name[TAG_NAME_MAX
 * * 4 + 1]: its length (0 for an empty one), -1 at the end of the cell,
 * -2 for a name too long. */
static int next_tag(const char **p, char *name)
{
	if (!**p)
		return -1;
	const char *end = strpbrk(*p, ",;"), *stop = end ? end : *p + strlen(*p);
	const char *a = *p, *b = stop;
	while (a < b && *a == ' ')
		a++;
	while (b > a && b[-1] == ' ')
		b--;
	*p = end ? end + 1 : stop;
	size_t n = (size_t)(b - a);
	if (n > TAG_NAME_MAX * 4)
		return -2;
	memcpy(name, a, n);
	name[n] = '\0';
	return hl_text_length(name) > TAG_NAME_MAX ? -2 : (int)n;
}

/* Each name of a tags cell: checked, and when `id` is not 0 put on that
 * contact. 0, 1 with im->why for a bad name, HL_EDB. */
static int each_tag(struct import *im, const char *cell, int64_t id)
{
	char name[TAG_NAME_MAX * 4 + 1];
	for (int n; (n = next_tag(&cell, name)) != -1;) {
		if (n == -2)
			return reject(im, "tags: a tag name longer than %s characters%s", "64", "");
		if (n && id && tag_attach(im->db, im->location, id, name) < 0)
			return HL_EDB;
	}
	return 0;
}

/* A full name as first and last: the first word and the rest ("Mary Ann
 * Lee" is Mary and Ann Lee), each where the row gives no column of its
 * own. The first word is copied (im->first): the cell goes on. */
static void split_name(struct import *im, const char *full, struct contact_input *in)
{
	while (*full == ' ')
		full++;
	size_t n = strcspn(full, " ");
	const char *rest = full + n;
	while (*rest == ' ')
		rest++;
	if (!(in->given & (1u << CT_FIRST_NAME)) && n) {
		memcpy(im->first, full, n);
		im->first[n] = '\0';
		in->text[CT_FIRST_NAME] = im->first;
		in->given |= 1u << CT_FIRST_NAME;
	}
	if (!(in->given & (1u << CT_LAST_NAME)) && *rest) {
		in->text[CT_LAST_NAME] = rest;
		in->given |= 1u << CT_LAST_NAME;
	}
}

int import_check_row(struct import *im, int nfields, struct contact_input *in)
{
	char num[32];
	const char *full_name = NULL;
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
		if ((c->target < CT_COUNT || c->target == T_NAME) &&
		    hl_text_length(v) > CONTACT_TEXT_MAX)
			return reject(im, "%s: text of at most 200 characters%s",
				      import_target_name(im, i), "");
		if (c->target == T_NAME) {
			full_name = v;
		} else if (c->target < CT_COUNT) {
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
	if (full_name)
		split_name(im, full_name, in);
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

/* The line of this file that added contact `id`, or 0. */
static long made_line(const struct import *im, int64_t id)
{
	size_t lo = 0, hi = im->nmade;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (im->made[mid].id == id)
			return im->made[mid].line;
		if (im->made[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* Note that `line` added contact `id`. 0, HL_ENOMEM. */
static int note_made(struct import *im, int64_t id, long line)
{
	if (im->nmade && im->made[im->nmade - 1].id >= id)
		return 0; /* not in order: the search needs them sorted */
	if (im->nmade == im->made_cap) {
		size_t cap = im->made_cap ? 2 * im->made_cap : 1024;
		void *bigger = realloc(im->made, cap * sizeof(*im->made));
		if (!bigger)
			return HL_ENOMEM;
		im->made = bigger;
		im->made_cap = cap;
	}
	im->made[im->nmade].id = id;
	im->made[im->nmade++].line = line;
	return 0;
}

int64_t import_match(struct import *im, const struct contact_input *in, long *line)
{
	*line = 0;
	if (im->duplicates == DUP_CREATE)
		return 0;
	int64_t id = contact_match(im->db, im->location, in, 0);
	if (id > 0)
		*line = made_line(im, id);
	return id;
}

void import_dup_reason(struct import *im, const struct contact_input *in, long line)
{
	int by_email = in->text[CT_EMAIL] && *in->text[CT_EMAIL];
	char same[240], whose[48] = "a contact already here";
	snprintf(same, sizeof(same), "the same %s, %.200s", by_email ? "e-mail" : "phone",
		 in->text[by_email ? CT_EMAIL : CT_PHONE]);
	if (line)
		snprintf(whose, sizeof(whose), "line %ld's contact", line);
	if (im->duplicates == DUP_SKIP)
		snprintf(im->why, sizeof(im->why), "a duplicate of %s (%s)", whose, same);
	else
		snprintf(im->why, sizeof(im->why), "merged into %s (%s)", whose, same);
}

/* Name a merged line in the report (the first ERRORS_KEPT of them), in
 * im->merged until end_batch writes the batch's: one statement a batch,
 * not one a row rewriting a growing list. 0, HL_ENOMEM. */
static int note_merged(struct import *im, long line, int64_t id)
{
	if (im->merges_kept >= ERRORS_KEPT)
		return 0;
	im->merges_kept++;
	size_t need = im->merged_len + 2 * strlen(im->why) + 96;
	if (need > im->merged_cap) {
		size_t cap = need > 2 * im->merged_cap ? need : 2 * im->merged_cap;
		char *bigger = realloc(im->merged, cap);
		if (!bigger)
			return HL_ENOMEM;
		im->merged = bigger;
		im->merged_cap = cap;
	}
	char *at = im->merged + im->merged_len;
	at += sprintf(at, "%s{\"line\":%ld,\"contact_id\":%lld,\"reason\":\"",
		      im->merged_len ? "," : "", line, (long long)id);
	for (const unsigned char *p = (const unsigned char *)im->why; *p; p++)
		if (*p == '"' || *p == '\\')
			*at++ = '\\', *at++ = (char)*p;
		else if (*p >= 0x20)
			*at++ = (char)*p; /* a reason holds no control characters but by a typo */
	at += sprintf(at, "\"}");
	im->merged_len = (size_t)(at - im->merged);
	return 0;
}

/* Write the merged lines noted (note_merged). 0, HL_EDB. */
static int write_merged(struct import *im)
{
	if (!im->merged_len)
		return 0;
	sqlite3_stmt *st = hl_stmt(im->db, "UPDATE contact_imports SET merged ="
		" CASE merged WHEN '[]' THEN '[' || :more || ']'"
		" ELSE substr(merged, 1, length(merged) - 1) || ',' || :more || ']' END WHERE id = :id");
	hl_bind_int(st, ":id", im->id);
	im->merged[im->merged_len] = '\0';
	hl_bind_text(st, ":more", im->merged);
	im->merged_len = 0;
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

/* Write the checked row, counting it as created or updated: 0, 1 with
 * im->why when it is a duplicate to skip, HL_EDB. */
static int write_row(struct import *im, const struct contact_input *in)
{
	long line = hl_csv_record_line(im->csv), of;
	int64_t id = import_match(im, in, &of);
	int found = id > 0, rc = id < 0 ? (int)id : 0;
	if (found)
		import_dup_reason(im, in, of);
	if (!rc && found && im->duplicates == DUP_SKIP)
		return 1;
	if (!rc && found && !(rc = contact_update(im->db, im->location, id, in)))
		rc = note_merged(im, line, id);
	else if (!rc && !found && (id = contact_insert(im->db, im->location, in)) < 0)
		rc = (int)id;
	else if (!rc && !found)
		rc = note_made(im, id, line);
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

void import_row_json(struct import *im, struct hl_json *j, const struct contact_input *in)
{
	hl_json_object(j);
	for (int t = 0; t < CT_COUNT; t++)
		if (in->given & (1u << t)) {
			hl_json_key(j, contact_text_names[t]);
			hl_json_string(j, in->text[t]);
		}
	if (in->given & OWNER_GIVEN) {
		hl_json_key(j, "owner_id");
		hl_json_int(j, in->owner_id);
	}
	for (int i = 0; i < im->ncols; i++) {
		const struct column *c = &im->cols[i];
		if (!c->value)
			continue;
		hl_json_key(j, import_target_name(im, i));
		if (c->target == T_CUSTOM) {
			hl_json_string(j, c->value);
			continue;
		}
		char name[TAG_NAME_MAX * 4 + 1];
		const char *cell = c->value;
		hl_json_array(j);
		for (int n; (n = next_tag(&cell, name)) != -1;)
			if (n > 0)
				hl_json_string(j, name);
		hl_json_array_end(j);
	}
	hl_json_object_end(j);
}

/* Index the batch's contacts for search, last, and write its merged
 * lines. 0, HL_EDB. */
static int index_batch(struct import *im)
{
	int rc = 0;
	for (size_t i = 0; !rc && i < im->nindex; i++)
		rc = contact_index(im->db, im->index[i].id, im->index[i].fresh);
	im->nindex = 0;
	return rc ? rc : write_merged(im);
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
		} else if (!(rc = import_check_row(im, n, &in))) {
			rc = write_row(im, &in);
		}
		if (rc == 1)
			rc = note_error(im, hl_csv_record_line(im->csv));
		/* Index in batches inside the loop, so that the budget sees
		 * their cost: all of it at the end made slices overrun. */
		if (rc >= 0 && im->run && im->nindex >= INDEX_BATCH)
			rc = index_batch(im);
		if (rc < 0)
			return rc;
	}
}

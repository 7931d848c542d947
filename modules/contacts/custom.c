/* SPDX-License-Identifier: MIT */
/*
 * custom.c: the fields a location adds to its contacts (a key, a name, a
 * type: text, number, date, select with its options, checkbox) and their
 * values, checked against the type before they are stored, whether they
 * come from JSON or from a CSV import. Deleting a field deletes its values
 * (the foreign key cascades).
 *
 * Option lists and the body's values are read by SQLite's JSON functions
 * straight from the body text: they see the JSON types (a number stays a
 * number) and build the stored array without a second JSON writer.
 */
#include "contacts.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_MAX 64
#define NAME_MAX_CHARS 100
#define OPTIONS_MAX 100

/* ---- values ------------------------------------------------------------- */

static int is_leap(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Whether `s` is a calendar date written YYYY-MM-DD. */
static int is_date(const char *s)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y, m, d, end = 0;
	if (strlen(s) != 10 || sscanf(s, "%4d-%2d-%2d%n", &y, &m, &d, &end) != 3 || end != 10 ||
	    s[4] != '-' || s[7] != '-' || m < 1 || m > 12 || d < 1)
		return 0;
	return d <= days[m - 1] + (m == 2 && is_leap(y));
}

/* Whether `value` is one of the JSON array `options`: 1, 0, HL_EDB. */
static int is_option(struct hl_db *db, const char *options, const char *value)
{
	sqlite3_stmt *st = hl_stmt(db, "SELECT 1 FROM json_each(:options) WHERE value = :value");
	hl_bind_text(st, ":options", options ? options : "[]");
	hl_bind_text(st, ":value", value);
	int64_t one;
	return hl_step_int(st, &one);
}

const char *custom_value_check(struct hl_db *db, const char *type, const char *options,
			       const char *value, char room[32], const char **why)
{
	char *end;
	*why = NULL;
	if (!strcmp(type, "number")) {
		double v = strtod(value, &end);
		if (end == value || *end || !isfinite(v))
			return *why = "a number", NULL;
		snprintf(room, 32, "%.15g", v);
		return room;
	}
	if (!strcmp(type, "date"))
		return is_date(value) ? value : (*why = "a date written YYYY-MM-DD", NULL);
	if (!strcmp(type, "checkbox")) {
		if (!strcmp(value, "true") || !strcmp(value, "1") || !strcasecmp(value, "yes"))
			return "true";
		if (!strcmp(value, "false") || !strcmp(value, "0") || !strcasecmp(value, "no"))
			return "false";
		return *why = "true or false", NULL;
	}
	if (!strcmp(type, "select")) {
		int rc = is_option(db, options, value);
		return rc > 0 ? value : (*why = rc ? "(the database failed)" : "one of the field's options",
					 NULL);
	}
	return hl_text_length(value) <= CUSTOM_TEXT_MAX ? value
		: (*why = "text of at most 1000 characters", NULL);
}

int custom_value_set(struct hl_db *db, int64_t location, int64_t id, int64_t field,
		     const char *value)
{
	sqlite3_stmt *st = value
		? hl_stmt_scoped(db, location, "INSERT INTO custom_values (contact_id, field_id, location_id, value)"
			  " VALUES (:contact, :field, :location, :value)"
			  " ON CONFLICT DO UPDATE SET value = excluded.value")
		: hl_stmt_scoped(db, location, "DELETE FROM custom_values WHERE contact_id = :contact"
			  " AND field_id = :field AND location_id = :location");
	hl_bind_int(st, ":contact", id);
	hl_bind_int(st, ":field", field);
	hl_bind_text(st, ":value", value); /* the DELETE has none */
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

int custom_values_from_body(struct hl_req *req, int64_t id)
{
	int obj = hl_body_find(req, 0, "custom_fields");
	if (obj < 0)
		return 0;
	if (hl_body_type(req, obj) != HL_JSON_OBJECT)
		return hl_reply_invalid(req, "custom_fields", "an object of field keys");
	size_t len;
	const char *body = hl_body(req, &len); /* JSON, so NUL-terminated and without NULs */
	sqlite3_stmt *st = hl_scoped_write(req,
		"SELECT j.key, j.type, CASE j.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'"
		" ELSE j.atom END, f.id, f.type, f.options FROM json_each(:body, '$.custom_fields') j"
		" LEFT JOIN custom_fields f ON f.location_id = :location AND f.key = j.key");
	if (!st)
		return HL_EDB;
	hl_bind_text(st, ":body", body);
	struct hl_db *db = hl_write_begin(req);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(st, 0);
		const char *json_type = (const char *)sqlite3_column_text(st, 1);
		const char *value = (const char *)sqlite3_column_text(st, 2), *why = NULL;
		char room[32];
		if (sqlite3_column_type(st, 3) == SQLITE_NULL)
			why = "no such custom field";
		else if (!strcmp(json_type, "object") || !strcmp(json_type, "array"))
			why = "a single value";
		else if (value)
			value = custom_value_check(db, (const char *)sqlite3_column_text(st, 4),
						   (const char *)sqlite3_column_text(st, 5),
						   value, room, &why);
		if (why)
			return hl_reply_invalid(req, hl_sprintf(req, "custom_fields.%s", key), "%s",
						why);
		if (custom_value_set(db, hl_location_id(req), id, sqlite3_column_int64(st, 3), value))
			return HL_EDB;
	}
	return rc == SQLITE_DONE ? 0 : HL_EDB;
}

/* ---- the fields themselves ---------------------------------------------- */

static const char *const define_keys[] = { "key", "name", "type", "options", "position", NULL };
static const char *const change_keys[] = { "name", "options", "position", NULL };

/* The stored type for the API's `type`; "option" is the word for
 * what the table calls select. NULL for no type. */
static const char *type_named(const char *type)
{
	static const char *const types[] = { "text", "number", "date", "select", "checkbox" };
	if (type && !strcmp(type, "option"))
		return "select";
	for (size_t i = 0; type && i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(type, types[i]))
			return types[i];
	return NULL;
}

/* A key: a lower-case letter, then letters, digits and _, and none of the
 * contact's own columns (an import maps its columns by these names). */
static int key_ok(const char *key)
{
	static const char *const taken[] = { "id", "owner_id", "tags", "created_at",
					      "updated_at", "company_id", "health_score",
					      "full_name" };
	if (!key || !*key || strlen(key) > KEY_MAX || *key < 'a' || *key > 'z')
		return 0;
	for (const char *p = key; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return 0;
	for (int f = 0; f < CT_COUNT; f++)
		if (!strcmp(key, contact_text_names[f]))
			return 0;
	for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++)
		if (!strcmp(key, taken[i]))
			return 0;
	return 1;
}

/* Check the body's options for a field of `type`: 0, or HL_EINVAL after
 * answering 422. A select needs 1 to OPTIONS_MAX distinct non-empty texts;
 * other types take none. */
static int options_ok(struct hl_req *req, const char *type)
{
	int tok = hl_body_find(req, 0, "options");
	int given = tok >= 0 && hl_body_type(req, tok) != HL_JSON_NULL;
	if (strcmp(type, "select"))
		return given ? hl_reply_invalid(req, "options", "only a select field has options") : 0;
	size_t len;
	const char *body = hl_body(req, &len); /* JSON, so NUL-terminated and without NULs */
	sqlite3_stmt *st = hl_stmt(hl_read(req),
		"SELECT count(*), count(DISTINCT value), sum(type = 'text' AND length(value)"
		" BETWEEN 1 AND 100) FROM json_each(:body, '$.options')");
	if (!st)
		return HL_EDB;
	hl_bind_text(st, ":body", body);
	int n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
	if (n < 1 || n > OPTIONS_MAX || hl_body_type(req, tok) != HL_JSON_ARRAY ||
	    sqlite3_column_int(st, 1) != n || sqlite3_column_int(st, 2) != n)
		return hl_reply_invalid(req, "options", "an array of 1 to %d different texts of 1 to"
					" 100 characters", OPTIONS_MAX);
	return 0;
}

/* Answer field `id` of the location with `status`. */
static int reply_field(struct hl_req *req, int status, int64_t id)
{
	return hl_reply_record(req, status, id, "custom field",
		"SELECT id, key, name, type, json(options) AS json_options, position, created_at"
		" FROM custom_fields WHERE id = :id AND location_id = :location");
}

/* GET /api/custom-fields */
int custom_fields_list(struct hl_req *req)
{
	sqlite3_stmt *st = hl_scoped_read(req,
		"SELECT id, key, name, type, json(options) AS json_options, position, created_at"
		" FROM custom_fields WHERE location_id = :location ORDER BY position, id LIMIT 1001");
	return st ? hl_reply_page(req, st, 1000, 0) : HL_EDB;
}

/* POST /api/custom-fields: 201, or 409 for a key the location has. */
int custom_fields_create(struct hl_req *req)
{
	const char *key, *name, *type;
	int64_t position;
	int has_position;
	if (hl_fields_only(req, 0, define_keys) ||
	    hl_field_text(req, 0, "key", KEY_MAX, &key) < 0 ||
	    hl_field_text(req, 0, "name", NAME_MAX_CHARS, &name) < 0 ||
	    hl_field_text(req, 0, "type", 16, &type) < 0 ||
	    (has_position = hl_field_int(req, 0, "position", 0, 1000000, &position)) < 0)
		return 0;
	if (!key_ok(key))
		return hl_reply_invalid(req, "key", "a lower-case letter, then letters, digits or _,"
					" up to %d, and not a contact's own field", KEY_MAX);
	if (!name || !*name)
		return hl_reply_invalid(req, "name", "text of 1 to %d characters", NAME_MAX_CHARS);
	if (!(type = type_named(type)))
		return hl_reply_invalid(req, "type", "text, number, date, option (or select)"
					" or checkbox");
	int rc = options_ok(req, type);
	if (rc)
		return rc;
	size_t len;
	const char *body = hl_body(req, &len);
	sqlite3_stmt *st = hl_scoped_write(req,
		"INSERT INTO custom_fields (location_id, key, name, type, options)"
		" VALUES (:location, :key, :name, :type, json_extract(:body, '$.options'))"
		" ON CONFLICT DO NOTHING");
	hl_bind_text(st, ":key", key);
	hl_bind_text(st, ":name", name);
	hl_bind_text(st, ":type", type);
	hl_bind_text(st, ":body", body);
	int64_t id = hl_step_last_id(st);
	if (id <= 0)
		return id ? (int)id : hl_reply_error(req, 409, "duplicate", "key: this sub-account has"
						     " a field '%s'", key);
	/* At the position asked for (a sort key: the page renumbers the
	 * others itself), or after the last. */
	if (hl_move_to_position(req, "custom_fields", NULL, id,
				has_position ? position : HL_POSITION_LAST, 0) < 0)
		return HL_EDB;
	return reply_field(req, 201, id);
}

/* PATCH /api/custom-fields/:id: its name, options and position; the key
 * and type stay (values were checked against them). Values a select no
 * longer offers are kept: removing a choice does not erase data. */
int custom_fields_change(struct hl_req *req)
{
	int64_t id, position;
	const char *name;
	if (hl_param_id(req, "id", &id))
		return 0;
	int has_name, has_position;
	if (hl_fields_only(req, 0, change_keys) ||
	    (has_name = hl_field_text(req, 0, "name", NAME_MAX_CHARS, &name)) < 0 ||
	    (has_position = hl_field_int(req, 0, "position", 0, 1000000, &position)) < 0)
		return 0;
	if (has_name && (!name || !*name))
		return hl_reply_invalid(req, "name", "text of 1 to %d characters", NAME_MAX_CHARS);
	sqlite3_stmt *st = hl_scoped_write(req, "SELECT type FROM custom_fields WHERE id = :id"
					   " AND location_id = :location");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":id", id);
	if (sqlite3_step(st) != SQLITE_ROW)
		return hl_reply_error(req, 404, "not_found", "no such custom field");
	int has_options = hl_body_find(req, 0, "options") >= 0;
	int rc = has_options ? options_ok(req, (const char *)sqlite3_column_text(st, 0)) : 0;
	if (rc)
		return rc;
	size_t len;
	const char *body = hl_body(req, &len);
	st = hl_scoped_write(req, "UPDATE custom_fields SET"
		" name = CASE WHEN :has_name THEN :name ELSE name END,"
		" options = CASE WHEN :has_options THEN json_extract(:body, '$.options')"
		" ELSE options END"
		" WHERE id = :id AND location_id = :location");
	hl_bind_int(st, ":id", id);
	hl_bind_int(st, ":has_name", has_name);
	hl_bind_text(st, ":name", name);
	hl_bind_int(st, ":has_options", has_options);
	hl_bind_text(st, ":body", body);
	if (hl_step_changes(st) < 0 ||
	    (has_position && hl_move_to_position(req, "custom_fields", NULL, id, position, 0) < 0))
		return HL_EDB;
	return reply_field(req, 200, id);
}

/* DELETE /api/custom-fields/:id: the field and every value of it; 204. */
int custom_fields_delete(struct hl_req *req)
{
	static const char *const deletes[] = {
		"DELETE FROM custom_fields WHERE id = :id AND location_id = :location", NULL,
	};
	int64_t id;
	if (hl_param_id(req, "id", &id))
		return 0;
	int rc = hl_delete_if_empty(req, id, "custom field", NULL, NULL, deletes);
	return rc <= 0 ? rc : hl_reply_empty(req);
}

/* SPDX-License-Identifier: MIT */
/*
 * api.c: the staff's API of a sub-account's forms: the list, one form,
 * making (with a slug of 16 random url-safe characters, which cannot be
 * guessed or counted; the first one makes the key of the pages' tokens), changing and deleting one (with its submissions),
 * and a form's submissions, newest first, a keyset page at a time (for
 * an "assigned only" caller, those of the contacts they own). A form of
 * another sub-account is 404. Each write publishes form.created,
 * .updated or .deleted.
 */
#include "forms.h"

#include <sodium.h>

#define RECORD_COLUMNS "f.id, f.name, f.slug, '/f/' || f.slug AS url, f.fields AS json_fields," \
	" f.tags AS json_tags, f.thank_you, f.redirect_url, f.created_at, f.updated_at"

static const char record_sql[] = "SELECT " RECORD_COLUMNS ","
	" (SELECT count(*) FROM form_submissions s WHERE s.form_id = f.id) AS submissions"
	" FROM forms f WHERE f.id = :id AND f.location_id = :location";

static const char list_sql[] = "SELECT " RECORD_COLUMNS ", hex(json_array(f.id)) AS _cursor"
	" FROM forms f WHERE f.location_id = :location"
	" AND f.id > coalesce(json_extract(:after, '$[0]'), 0) ORDER BY f.id LIMIT :limit";

int forms_list(struct hl_req *req)
{
	int64_t limit;
	const char *after;
	if (hl_query_int(req, "limit", 50, 1, 500, &limit) || hl_query_keyset(req, "cursor", "i", &after))
		return 0;
	sqlite3_stmt *st = hl_scoped_read(req, list_sql);
	hl_bind_text(st, ":after", after);
	hl_bind_int(st, ":limit", limit + 1);
	return hl_reply_page(req, st, limit, 10);
}

int forms_record(struct hl_req *req)
{
	return hl_reply_path_record(req, "form", record_sql);
}

/* 16 characters of a-z, A-Z, 0-9, "-" and "_": 96 random bits. */
static void new_slug(char out[17])
{
	static const char abc[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";
	unsigned char raw[16];
	randombytes_buf(raw, sizeof(raw));
	for (int i = 0; i < 16; i++)
		out[i] = abc[raw[i] & 63];
	out[16] = 0;
}

int forms_create(struct hl_req *req)
{
	struct form_body b;
	if (form_body_read(req, &b, 1))
		return 0;
	char slug[17];
	new_slug(slug);
	sqlite3_stmt *st = hl_scoped_write(req, "INSERT INTO forms (location_id, name, slug, fields,"
		" tags, thank_you, redirect_url) VALUES (:location, :name, :slug, :fields,"
		" coalesce(:tags, '[]'), :thank_you, :redirect_url) RETURNING id");
	hl_bind_text(st, ":name", b.name);
	hl_bind_text(st, ":slug", slug);
	hl_bind_text(st, ":fields", b.fields);
	hl_bind_text(st, ":tags", b.tags);
	hl_bind_text(st, ":thank_you", b.thank_you);
	hl_bind_text(st, ":redirect_url", b.redirect_url);
	int64_t id;
	if (hl_step_int(st, &id) <= 0)
		return HL_EDB;
	st = hl_stmt(hl_write_begin(req), "INSERT INTO form_secret (id, secret)"
		     " VALUES (1, randomblob(32)) ON CONFLICT DO NOTHING");
	if (hl_step_changes(st) < 0)
		return HL_EDB;
	int rc = hl_publish_assigned(req, "form.created", id, HL_EVERYONE, NULL);
	return rc ? rc : hl_reply_record(req, 201, id, "form", record_sql);
}

int forms_change(struct hl_req *req)
{
	int64_t id;
	struct form_body b;
	if (hl_param_id(req, "id", &id) || form_body_read(req, &b, 0))
		return 0;
	sqlite3_stmt *st = hl_scoped_write(req, "UPDATE forms SET name = coalesce(:name, name),"
		" fields = coalesce(:fields, fields), tags = coalesce(:tags, tags),"
		" thank_you = iif(:set_thank_you, :thank_you, thank_you),"
		" redirect_url = iif(:set_redirect, :redirect_url, redirect_url),"
		" updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
		" WHERE id = :id AND location_id = :location RETURNING id");
	hl_bind_text(st, ":name", b.name);
	hl_bind_text(st, ":fields", b.fields);
	hl_bind_text(st, ":tags", b.tags);
	hl_bind_int(st, ":set_thank_you", b.has_thank_you);
	hl_bind_text(st, ":thank_you", b.thank_you);
	hl_bind_int(st, ":set_redirect", b.has_redirect);
	hl_bind_text(st, ":redirect_url", b.redirect_url);
	hl_bind_int(st, ":id", id);
	int64_t done;
	int rc = hl_step_int(st, &done);
	if (rc <= 0)
		return rc < 0 ? rc : hl_reply_error(req, 404, "not_found", "no such form");
	rc = hl_publish_assigned(req, "form.updated", id, HL_EVERYONE, NULL);
	return rc ? rc : hl_reply_record(req, 200, id, "form", record_sql);
}

int forms_delete(struct hl_req *req)
{
	static const char *const deletes[] = {
		"DELETE FROM form_submissions WHERE form_id = :id AND location_id = :location",
		"DELETE FROM forms WHERE id = :id AND location_id = :location",
		NULL,
	};
	int64_t id;
	if (hl_param_id(req, "id", &id))
		return 0;
	int rc = hl_delete_if_empty(req, id, "form", NULL, NULL, deletes);
	if (rc <= 0)
		return rc;
	rc = hl_publish_assigned(req, "form.deleted", id, HL_EVERYONE, NULL);
	return rc ? rc : hl_reply_empty(req);
}

int forms_submissions(struct hl_req *req)
{
	int64_t id, limit;
	const char *after;
	if (hl_param_id(req, "id", &id) || hl_query_int(req, "limit", 50, 1, 500, &limit) ||
	    hl_query_keyset(req, "cursor", "i", &after))
		return 0;
	if (hl_scoped_read_int(req, "SELECT 1 FROM forms WHERE id = :id AND location_id = :location", id) <= 0)
		return hl_reply_error(req, 404, "not_found", "no such form");
	sqlite3_stmt *st = hl_scoped_read(req, "SELECT s.id, s.contact_id, s.answers AS json_answers,"
		" s.origin AS json_origin, s.consent, s.created_at, hex(json_array(s.id)) AS _cursor"
		" FROM form_submissions s WHERE s.form_id = :id AND s.location_id = :location"
		" AND (:me = 0 OR s.contact_id IN (SELECT id FROM contacts"
		"  WHERE location_id = :location AND owner_id = :me AND deleted_at IS NULL))"
		" AND s.id < coalesce(json_extract(:after, '$[0]'), 9223372036854775807)"
		" ORDER BY s.id DESC LIMIT :limit");
	hl_bind_int(st, ":id", id);
	hl_bind_text(st, ":after", after);
	hl_bind_int(st, ":limit", limit + 1);
	hl_bind_int(st, ":me", hl_assigned_user(req));
	return hl_reply_page(req, st, limit, 6);
}

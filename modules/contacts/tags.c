/* SPDX-License-Identifier: MIT */
/*
 * tags.c: a location's tags and which contacts carry them. Tags are named
 * freely (case-insensitively unique) and made on first use; putting one on
 * a contact, or taking it off, one contact at a time or up to BULK_MAX in
 * one request, publishes contact.tagged / contact.untagged with the tag
 * ids. GET /api/tags lists them with the number of live contacts each.
 * A location admin renames a tag (PATCH /api/tags/:id), merges it into
 * another (POST /api/tags/:id/merge: its contacts get the other, and it
 * goes) or deletes it (DELETE /api/tags/:id: off every contact). These
 * publish no contact.tagged or contact.untagged: nothing about a contact
 * changed but the tag's name, and a merge or delete of a tag on
 * thousands of contacts is one act, in the audit log as such. That act is
 * one write holding everyone else's, so a tag on more than REWRITE_MAX
 * contacts (deleted ones count) is refused with 409: bulk-remove it from
 * some of them first.
 */
#include "contacts.h"

#include <string.h>

#define TAGS_MAX 100   /* names in one request */
#define BULK_MAX 1000  /* contacts in one bulk request */
/* Contacts a merge or delete rewrites in its request: some tens of ms of
 * the writer, well inside the query time-out. */
#define REWRITE_MAX 5000

int tag_attach(struct hl_db *db, int64_t location, int64_t id, const char *name)
{
	sqlite3_stmt *st = hl_stmt_scoped(db, location, "INSERT INTO tags (location_id, name)"
					  " VALUES (:location, :name) ON CONFLICT DO NOTHING");
	hl_bind_text(st, ":name", name);
	if (hl_step_changes(st) < 0)
		return HL_EDB;
	st = hl_stmt_scoped(db, location,
		"INSERT INTO contact_tags (tag_id, contact_id, location_id)"
		" SELECT id, :contact, :location FROM tags WHERE location_id = :location"
		" AND name = :name COLLATE NOCASE ON CONFLICT DO NOTHING");
	hl_bind_text(st, ":name", name);
	hl_bind_int(st, ":contact", id);
	int64_t put = hl_step_changes(st);
	return put < 0 ? (int)put : put > 0;
}

/* Take tag `name` off contact `id` of the request's location: 1 when it
 * was on, 0, HL_EDB. */
static int tag_detach(struct hl_req *req, int64_t id, const char *name)
{
	sqlite3_stmt *st = hl_scoped_write(req, "DELETE FROM contact_tags WHERE contact_id = :contact"
		" AND tag_id = (SELECT id FROM tags WHERE location_id = :location"
		" AND name = :name COLLATE NOCASE)");
	hl_bind_text(st, ":name", name);
	hl_bind_int(st, ":contact", id);
	int64_t taken = hl_step_changes(st);
	return taken < 0 ? (int)taken : taken > 0;
}

/* A tag name: 1 to TAG_NAME_MAX characters, no comma (an import's tags
 * column separates names with commas). An import splits on semicolons
 * too, but a name may hold one: older imports made such names, and a
 * contact holding one must keep taking changes to its tags. */
int tag_name_ok(const char *s)
{
	size_t chars = hl_text_length(s);
	return chars >= 1 && chars <= TAG_NAME_MAX && !strchr(s, ',');
}

/* The array of tag names at member `key` of the root: HL_FIELD_ABSENT, or
 * the count (names in *out), or HL_EINVAL after answering 422. */
static int read_names(struct hl_req *req, const char *key, const char ***out)
{
	int arr = hl_body_find(req, 0, key);
	if (arr < 0)
		return HL_FIELD_ABSENT;
	int n = hl_body_count(req, arr);
	if (hl_body_type(req, arr) != HL_JSON_ARRAY || n > TAGS_MAX)
		return hl_reply_invalid(req, key, "an array of up to %d tag names", TAGS_MAX);
	const char **names = hl_alloc(req, sizeof(*names) * (size_t)(n + 1));
	for (int i = 0; i < n; i++) {
		const char *s = hl_body_string(req, hl_body_index(req, arr, i));
		if (!s || !tag_name_ok(s))
			return hl_reply_invalid(req, key, "tag names are text of 1 to %d characters"
						" without commas", TAG_NAME_MAX);
		names[i] = s;
	}
	*out = names;
	return n;
}

/* {"tag_ids":[...]} of the names on contact `id`, for the events. */
static const char *tag_ids_of(struct hl_req *req, const char **names, int n)
{
	const char *list = "";
	sqlite3_stmt *st = hl_scoped_write(req, "SELECT id FROM tags WHERE location_id = :location"
					   " AND name = :name COLLATE NOCASE");
	for (int i = 0; st && i < n; i++) {
		int64_t tag;
		hl_bind_text(st, ":name", names[i]);
		if (hl_step_int(st, &tag) == 1)
			list = hl_sprintf(req, "%s%s%lld", list, *list ? "," : "", (long long)tag);
	}
	return hl_sprintf(req, "{\"tag_ids\":[%s]}", list);
}

/* Tag names to put on or take off contacts, and their event's data, made
 * once for however many contacts (a bulk request has up to BULK_MAX). */
struct tag_set {
	const char **names;
	int n;
	const char *event_data; /* NULL until a contact changes */
};

/* Put or take off the set's tags on contact `id`, publishing what changed:
 * the number of changes, or HL_EDB. */
static int apply(struct hl_req *req, int64_t id, struct tag_set *set, int put)
{
	struct hl_db *db = hl_write_begin(req);
	int changed = 0;
	for (int i = 0; i < set->n; i++) {
		int rc = put ? tag_attach(db, hl_location_id(req), id, set->names[i])
			     : tag_detach(req, id, set->names[i]);
		if (rc < 0)
			return rc;
		changed += rc;
	}
	if (!changed)
		return 0;
	if (!set->event_data) /* after the first change, when new tags exist */
		set->event_data = tag_ids_of(req, set->names, set->n);
	int rc = contact_publish(req, put ? "contact.tagged" : "contact.untagged", id,
			    set->event_data);
	return rc ? rc : changed;
}

int tags_from_body(struct hl_req *req, int64_t id)
{
	struct tag_set set = { 0 };
	set.n = read_names(req, "tags", &set.names);
	return set.n <= 0 ? set.n : (apply(req, id, &set, 1) < 0 ? HL_EDB : 0);
}

static const char *const tags_keys[] = { "tags", NULL };

/* POST /api/contacts/:id/tags {"tags": [names]}: the contact whole. */
int tags_add(struct hl_req *req)
{
	int64_t id;
	const char **names;
	if (hl_param_id(req, "id", &id) || hl_fields_only(req, 0, tags_keys))
		return 0;
	int n = read_names(req, "tags", &names);
	if (n == HL_FIELD_ABSENT)
		return hl_reply_invalid(req, "tags", "an array of tag names");
	int here = n < 0 ? n : contact_visible(req, id, 1);
	if (here <= 0)
		return here ? here : hl_reply_error(req, 404, "not_found", "no such contact");
	struct tag_set set = { names, n, NULL };
	int rc = apply(req, id, &set, 1);
	return rc < 0 ? rc : contacts_reply_record(req, 200, id);
}

/* DELETE /api/contacts/:id/tags/:tag: by the tag's id or name; 204. */
int tags_remove(struct hl_req *req)
{
	int64_t id;
	const char *tag = hl_param(req, "tag");
	if (hl_param_id(req, "id", &id))
		return 0;
	sqlite3_stmt *st = tag ? hl_scoped_write(req, "SELECT name FROM tags"
		" WHERE location_id = :location AND (id = :tag OR name = :tag COLLATE NOCASE)") : NULL;
	if (!st)
		return tag ? HL_EDB : hl_reply_error(req, 404, "not_found", "no such tag");
	hl_bind_text(st, ":tag", tag);
	if (sqlite3_step(st) != SQLITE_ROW)
		return hl_reply_error(req, 404, "not_found", "no such tag");
	const char *name = hl_strndup(req, (const char *)sqlite3_column_text(st, 0),
				      (size_t)sqlite3_column_bytes(st, 0));
	int rc = contact_visible(req, id, 1);
	if (rc <= 0)
		return rc ? rc : hl_reply_error(req, 404, "not_found", "no such contact");
	struct tag_set set = { &name, 1, NULL };
	rc = apply(req, id, &set, 0);
	if (rc < 0)
		return rc;
	if (!rc)
		return hl_reply_error(req, 404, "not_found", "the contact does not carry this tag");
	return hl_reply_empty(req);
}

static const char *const bulk_keys[] = { "contact_ids", "add", "remove", NULL };

/* The body's contact_ids: the count, or HL_EINVAL after answering 422. */
static int read_ids(struct hl_req *req, int64_t **out)
{
	int arr = hl_body_find(req, 0, "contact_ids");
	int n = hl_body_count(req, arr);
	if (hl_body_type(req, arr) != HL_JSON_ARRAY || n < 1 || n > BULK_MAX)
		return hl_reply_invalid(req, "contact_ids", "an array of 1 to %d contact ids",
					BULK_MAX);
	int64_t *ids = hl_alloc(req, sizeof(*ids) * (size_t)n);
	for (int i = 0; i < n; i++)
		if (hl_body_int(req, hl_body_index(req, arr, i), &ids[i]))
			return hl_reply_invalid(req, "contact_ids", "element %d is not an id", i);
	*out = ids;
	return n;
}

/* POST /api/tags/bulk {"contact_ids": [...], "add": [...], "remove": [...]}:
 * one transaction; ids of no live contact here are listed, not changed. */
int tags_bulk(struct hl_req *req)
{
	int64_t *ids = NULL;
	const char **add = NULL, **remove = NULL;
	if (hl_fields_only(req, 0, bulk_keys))
		return 0;
	int n = read_ids(req, &ids), nadd = 0, nremove = 0;
	if (n >= 0 && (nadd = read_names(req, "add", &add)) >= 0)
		nremove = read_names(req, "remove", &remove);
	if (n < 0 || nadd < 0 || nremove < 0)
		return 0;
	if (!nadd && !nremove)
		return hl_reply_invalid(req, "add", "name tags to add or remove");
	int added = 0, removed = 0;
	struct tag_set adding = { add, nadd, NULL }, removing = { remove, nremove, NULL };
	char *absent = hl_alloc(req, (size_t)n);
	for (int i = 0; i < n; i++) {
		int rc = contact_visible(req, ids[i], 1);
		if (rc < 0)
			return rc;
		absent[i] = !rc;
		int a = rc ? apply(req, ids[i], &adding, 1) : 0;
		int r = rc && a >= 0 ? apply(req, ids[i], &removing, 0) : 0;
		if (a < 0 || r < 0)
			return HL_EDB;
		added += a;
		removed += r;
	}
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	hl_json_key(j, "added");
	hl_json_int(j, added);
	hl_json_key(j, "removed");
	hl_json_int(j, removed);
	hl_json_key(j, "not_found");
	hl_json_array(j);
	for (int i = 0; i < n; i++)
		if (absent[i])
			hl_json_int(j, ids[i]);
	hl_json_array_end(j);
	hl_json_object_end(j);
	return 0;
}

/* GET /api/tags: the location's tags by name, each with its number of
 * live contacts (kept in tag_counts: migration 019); for an "assigned
 * only" caller, the tags of their own contacts, counted from them (a
 * tag's name can say something of the contacts others tagged with it). */
int tags_list(struct hl_req *req)
{
	int64_t me = hl_assigned_user(req);
	sqlite3_stmt *st = hl_scoped_read(req, me
		/* An "assigned only" caller's own contacts, counted from them. */
		? "WITH mine AS (SELECT ct.tag_id, count(*) AS n FROM contacts c"
		  " JOIN contact_tags ct ON ct.contact_id = c.id WHERE c.location_id = :location"
		  " AND c.owner_id = :me AND c.deleted_at IS NULL GROUP BY ct.tag_id)"
		  " SELECT t.id, t.name, t.color, mine.n AS contacts"
		  " FROM tags t JOIN mine ON mine.tag_id = t.id"
		  " WHERE t.location_id = :location ORDER BY t.name COLLATE NOCASE LIMIT 10001"
		: "SELECT t.id, t.name, t.color, coalesce(n.contacts, 0) AS contacts"
		  " FROM tags t LEFT JOIN tag_counts n ON n.tag_id = t.id"
		  " WHERE t.location_id = :location ORDER BY t.name COLLATE NOCASE LIMIT 10001");
	if (!st)
		return HL_EDB;
	if (me) {
		hl_bind_int(st, ":me", me);
		hl_answer_uncached(req);
	}
	return hl_reply_page(req, st, 10000, 0);
}

/* ---- the tags themselves (a location admin's) ------------------------------ */

#define TAG_SQL "SELECT t.id, t.name, t.color, coalesce(n.contacts, 0) AS contacts" \
	" FROM tags t LEFT JOIN tag_counts n ON n.tag_id = t.id" \
	" WHERE t.id = :id AND t.location_id = :location"

/* Whether tag `id` is one of the location's: 1, 0 after answering 404,
 * HL_EDB. */
static int tag_here(struct hl_req *req, int64_t id, const char *what)
{
	int64_t found = hl_scoped_write_int(req, "SELECT id FROM tags WHERE id = :id"
					    " AND location_id = :location", id);
	if (found < 0)
		return (int)found;
	return found ? 1 : (hl_reply_error(req, 404, "not_found", "%s", what), 0);
}

/* 1 when tag `id` is on at most REWRITE_MAX contacts; 0 after answering
 * 409 that `doing` it must wait; HL_EDB. The count stops past the bound. */
static int tag_small(struct hl_req *req, int64_t id, const char *doing)
{
	sqlite3_stmt *st = hl_scoped_write(req, "SELECT count(*) FROM (SELECT 1 FROM contact_tags"
		" WHERE tag_id = :id AND location_id = :location LIMIT :max + 1)");
	hl_bind_int(st, ":id", id);
	hl_bind_int(st, ":max", REWRITE_MAX);
	int64_t on;
	if (hl_step_int(st, &on) < 0)
		return HL_EDB;
	return on <= REWRITE_MAX ? 1 : (hl_reply_error(req, 409, "conflict", "the tag is on more"
		" than %d contacts, too many to %s at once: remove it from some of them first"
		" (select them by the tag, then Remove tag)", REWRITE_MAX, doing), 0);
}

static const char *const rename_keys[] = { "name", NULL };

/* PATCH /api/tags/:id {"name"}: 200 with the tag; 409 when another tag
 * has the name (merge them instead). */
int tags_rename(struct hl_req *req)
{
	int64_t id;
	const char *name = NULL;
	if (hl_param_id(req, "id", &id) || hl_fields_only(req, 0, rename_keys) ||
	    hl_field_text(req, 0, "name", TAG_NAME_MAX, &name) < 0)
		return 0;
	if (!name || !tag_name_ok(name) || strchr(name, ';'))
		return hl_reply_invalid(req, "name", "text of 1 to %d characters without commas"
					" or semicolons", TAG_NAME_MAX);
	int rc = tag_here(req, id, "no such tag");
	if (rc <= 0)
		return rc;
	sqlite3_stmt *st = hl_scoped_write(req, "SELECT id FROM tags WHERE location_id = :location"
					   " AND name = :name COLLATE NOCASE AND id <> :id");
	hl_bind_int(st, ":id", id);
	hl_bind_text(st, ":name", name);
	int64_t other;
	if ((rc = hl_step_int(st, &other)) != 0)
		return rc < 0 ? rc : hl_reply_error(req, 409, "conflict", "another tag is named"
						    " '%s': merge this one into it instead", name);
	st = hl_scoped_write(req, "UPDATE tags SET name = :name WHERE id = :id"
			     " AND location_id = :location");
	hl_bind_int(st, ":id", id);
	hl_bind_text(st, ":name", name);
	if (hl_step_changes(st) < 0)
		return HL_EDB;
	return hl_reply_record(req, 200, id, "tag", TAG_SQL);
}

static const char *const merge_keys[] = { "into", NULL };

/* POST /api/tags/:id/merge {"into": other}: the tag's contacts carry
 * `other` instead, and the tag goes; 200 with `other`. */
int tags_merge(struct hl_req *req)
{
	int64_t id, into;
	if (hl_param_id(req, "id", &id) || hl_fields_only(req, 0, merge_keys))
		return 0;
	int at = hl_body_find(req, 0, "into");
	if (at < 0 || hl_body_int(req, at, &into))
		return hl_reply_invalid(req, "into", "the id of the tag to merge it into");
	if (into == id)
		return hl_reply_invalid(req, "into", "another tag than this one");
	int rc = tag_here(req, id, "no such tag");
	if (rc > 0)
		rc = tag_here(req, into, "into: no such tag");
	if (rc > 0)
		rc = tag_small(req, id, "merge");
	if (rc <= 0)
		return rc;
	static const char *const steps[] = {
		/* a contact carrying both keeps one */
		"UPDATE OR IGNORE contact_tags SET tag_id = :into WHERE tag_id = :id"
		" AND location_id = :location",
		"DELETE FROM contact_tags WHERE tag_id = :id AND location_id = :location",
		"DELETE FROM tags WHERE id = :id AND location_id = :location",
	};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		sqlite3_stmt *st = hl_scoped_write(req, steps[i]);
		hl_bind_int(st, ":id", id);
		hl_bind_int(st, ":into", into);
		if (hl_step_changes(st) < 0)
			return HL_EDB;
	}
	return hl_reply_record(req, 200, into, "tag", TAG_SQL);
}

/* DELETE /api/tags/:id: off every contact, and gone; 204. */
int tags_delete(struct hl_req *req)
{
	int64_t id;
	if (hl_param_id(req, "id", &id))
		return 0;
	int rc = tag_here(req, id, "no such tag");
	if (rc > 0)
		rc = tag_small(req, id, "delete");
	if (rc <= 0)
		return rc;
	sqlite3_stmt *st = hl_scoped_write(req, "DELETE FROM contact_tags WHERE tag_id = :id"
					   " AND location_id = :location");
	hl_bind_int(st, ":id", id);
	if (hl_step_changes(st) < 0)
		return HL_EDB;
	st = hl_scoped_write(req, "DELETE FROM tags WHERE id = :id AND location_id = :location");
	hl_bind_int(st, ":id", id);
	return hl_step_changes(st) < 0 ? HL_EDB : hl_reply_empty(req);
}

/* SPDX-License-Identifier: MIT */
/*
 * write.c: creating, changing, upserting and deleting contacts from JSON.
 * The body is checked member by member (422 naming the member, unknown
 * members refused); a contact that would duplicate a live one (the same
 * e-mail, or without one the same phone) is 409 naming it, except for an
 * upsert, which changes that one instead. Deleting is soft: the purge job
 * removes the row after a grace period. Every write publishes an event.
 *
 * An "assigned only" caller meets only their own contacts: another's is
 * 404 (a duplicate of it 409 without naming it), what they create is
 * theirs, and they may not give a contact to someone else. A contact
 * given to someone (made theirs, or its owner changed) tells them in
 * their bell (hl_notify; not when they took it themselves).
 */
#include "contacts.h"

#include <stdio.h>
#include <string.h>

static const char *const contact_keys[] = {
	"first_name", "last_name", "email", "phone", "company_name", "source",
	"owner_id", "custom_fields", "tags", NULL,
};

/* The body as a contact_input; answers 422 itself (HL_EINVAL). */
static int read_input(struct hl_req *req, struct contact_input *in, int whole)
{
	memset(in, 0, sizeof(*in));
	int rc = hl_fields_only(req, 0, contact_keys);
	for (int f = 0; f < CT_COUNT && rc >= 0; f++) {
		rc = hl_field_text(req, 0, contact_text_names[f], CONTACT_TEXT_MAX, &in->text[f]);
		if (rc > HL_FIELD_ABSENT)
			in->given |= 1u << f;
	}
	if (rc >= 0)
		rc = hl_field_int(req, 0, "owner_id", 1, INT64_MAX, &in->owner_id);
	if (rc > HL_FIELD_ABSENT)
		in->given |= OWNER_GIVEN;
	if (rc < 0)
		return rc;
	const char *country = hl_location_country(req), *member;
	const char *problem = contact_input_problem(in, whole, country, &member);
	if (problem)
		return hl_reply_invalid(req, member, "%s", problem);
	int ok = in->owner_id ? hl_user_in_location(hl_read(req), hl_location_id(req), in->owner_id) : 1;
	if (ok < 0)
		return ok;
	if (!ok)
		return hl_reply_invalid(req, "owner_id", "no user of this sub-account");
	int64_t me = hl_assigned_user(req);
	if (me && in->given & OWNER_GIVEN && in->owner_id != me) /* they could no longer see it */
		return hl_reply_invalid(req, "owner_id", "you see only your own contacts,"
					" so you may make them only yours");
	return 0;
}

/* 409 for a contact whose e-mail (or phone) `twin` has, naming the field
 * first, as a 422 does, so that the app says it beside it; the twin is
 * named, by its name and number, only to a caller who may open it. */
static int duplicate(struct hl_req *req, int64_t twin, const struct contact_input *in)
{
	int email = in->text[CT_EMAIL] != NULL;
	const char *field = email ? "email" : "phone", *what = email ? "e-mail address" : "phone";
	char name[256], who[300];
	int mine = contact_visible_name(req, twin, name, sizeof(name));
	if (mine < 0)
		return mine;
	if (!mine)
		snprintf(who, sizeof(who), "another contact");
	else if (*name)
		snprintf(who, sizeof(who), "%s (contact %lld)", name, (long long)twin);
	else
		snprintf(who, sizeof(who), "contact %lld", (long long)twin);
	return hl_reply_error(req, 409, "duplicate", "%s: %s already has this %s", field, who, what);
}

/* The JSON array of the given members' names, for contact.updated. */
static const char *given_names(struct hl_req *req, const struct contact_input *in)
{
	const char *list = "";
	for (int f = 0; f < CT_COUNT; f++)
		if (in->given & (1u << f))
			list = hl_sprintf(req, "%s%s\"%s\"", list, *list ? "," : "",
					  contact_text_names[f]);
	if (in->given & OWNER_GIVEN)
		list = hl_sprintf(req, "%s%s\"owner_id\"", list, *list ? "," : "");
	return hl_sprintf(req, "{\"fields\":[%s]}", list);
}

/* Custom values and tags of the body, the search index, then the event
 * and the answer. `index`: 0 none, 1 a new line, 2 the line replaced. */
static int finish(struct hl_req *req, int64_t id, int status, int index, const char *event,
		  const char *data)
{
	int rc = custom_values_from_body(req, id);
	if (!rc)
		rc = tags_from_body(req, id);
	if (rc)
		return rc;
	if (index && (rc = contact_index(hl_write_begin(req), id, index == 1)))
		return rc;
	rc = contact_publish(req, event, id, data);
	return rc ? rc : contacts_reply_record(req, status, id);
}

/* Tell `owner` (0: nobody) that the caller gave them contact `id`. */
static int tell_owner(struct hl_req *req, int64_t id, int64_t owner)
{
	if (!owner)
		return 0;
	sqlite3_stmt *st = hl_scoped_write(req, "SELECT coalesce(nullif(trim(first_name || ' '"
		" || last_name), ''), email, phone) FROM contacts WHERE id = :id AND location_id = :location");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":id", id);
	if (sqlite3_step(st) != SQLITE_ROW)
		return sqlite3_reset(st), HL_EDB;
	const char *text = hl_sprintf(req, "assigned you the contact %s",
				      (const char *)sqlite3_column_text(st, 0));
	sqlite3_reset(st);
	struct hl_notice n = { .user = owner, .kind = "assigned", .text = text,
			       .path = hl_sprintf(req, "/contacts/%lld", (long long)id) };
	return hl_notify(req, &n);
}

static int create(struct hl_req *req, const struct contact_input *in)
{
	struct hl_db *db = hl_write_begin(req);
	int64_t id = db ? contact_insert(db, hl_location_id(req), in) : HL_EDB;
	int rc = id < 0 ? (int)id : tell_owner(req, id, in->owner_id);
	return rc ? rc : finish(req, id, 201, 1, "contact.created", NULL);
}

/* The body of a new contact, and the live contact it would duplicate (0
 * for none): 0, HL_EINVAL after answering 422, or HL_EDB. An "assigned
 * only" caller's new contact is theirs. */
static int read_new(struct hl_req *req, struct contact_input *in, int64_t *twin)
{
	int rc = read_input(req, in, 1);
	if (rc)
		return rc;
	if (!(in->given & OWNER_GIVEN)) /* not given: an upsert's change keeps the owner */
		in->owner_id = hl_assigned_user(req);
	*twin = contact_match(hl_write_begin(req), hl_location_id(req), in, 0);
	return *twin < 0 ? (int)*twin : 0;
}

/* POST /api/contacts */
int contacts_create(struct hl_req *req)
{
	struct contact_input in;
	int64_t twin;
	int rc = read_new(req, &in, &twin);
	if (rc)
		return rc;
	return twin ? duplicate(req, twin, &in) : create(req, &in);
}

/* Change contact `id` as `in` says, refusing an e-mail another contact
 * has and a change that leaves no name, e-mail or phone. */
static int change(struct hl_req *req, int64_t id, const struct contact_input *in)
{
	int rc = contact_visible(req, id, 1);
	if (rc <= 0)
		return rc ? rc : hl_reply_error(req, 404, "not_found", "no such contact");
	struct hl_db *db = hl_write_begin(req);
	if (in->given & (1u << CT_EMAIL) && in->text[CT_EMAIL]) {
		struct contact_input probe = { .text[CT_EMAIL] = in->text[CT_EMAIL] };
		int64_t twin = contact_match(db, hl_location_id(req), &probe, id);
		if (twin)
			return twin < 0 ? (int)twin : duplicate(req, twin, &probe);
	}
	int64_t before = in->given & OWNER_GIVEN ? hl_scoped_write_int(req, "SELECT owner_id"
		" FROM contacts WHERE id = :id AND location_id = :location", id) : 0;
	if (before < 0)
		return (int)before;
	rc = contact_update(db, hl_location_id(req), id, in);
	if (rc)
		return rc == HL_ENOENT ? hl_reply_error(req, 404, "not_found", "no such contact") : rc;
	if (in->given & OWNER_GIVEN && in->owner_id != before &&
	    (rc = tell_owner(req, id, in->owner_id)))
		return rc;
	sqlite3_stmt *st = hl_stmt(db,
		"SELECT 1 FROM contacts WHERE id = :id AND first_name = '' AND last_name = ''"
		" AND email IS NULL AND phone IS NULL");
	hl_bind_int(st, ":id", id);
	int64_t empty;
	if ((rc = hl_step_int(st, &empty)))
		return rc < 0 ? rc : hl_reply_invalid(req, "first_name", "a contact needs a name,"
						      " an e-mail or a phone");
	return finish(req, id, 200, contact_searchable(in->given) ? 2 : 0, "contact.updated",
		      given_names(req, in));
}

/* PATCH /api/contacts/:id: only the members sent change; null clears. */
int contacts_change(struct hl_req *req)
{
	int64_t id;
	if (hl_param_id(req, "id", &id))
		return 0;
	struct contact_input in;
	int rc = read_input(req, &in, 0);
	return rc ? rc : change(req, id, &in);
}

/* POST /api/contacts/upsert: change the contact this one matches (by
 * e-mail, then phone), or create it; 200 or 201. A match the caller may
 * not open is neither changed nor duplicated: 409. */
int contacts_upsert(struct hl_req *req)
{
	struct contact_input in;
	int64_t twin;
	int rc = read_new(req, &in, &twin);
	if (rc)
		return rc;
	if (!twin)
		return create(req, &in);
	rc = contact_visible(req, twin, 1);
	if (rc <= 0)
		return rc ? rc : duplicate(req, twin, &in);
	return change(req, twin, &in);
}

/* DELETE /api/contacts/:id: soft; 204, or 404 for no live contact here. */
int contacts_delete(struct hl_req *req)
{
	int64_t id;
	if (hl_param_id(req, "id", &id))
		return 0;
	sqlite3_stmt *st = hl_scoped_write(req,
		"UPDATE contacts SET deleted_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),"
		" updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
		" WHERE id = :id AND location_id = :location AND deleted_at IS NULL" CONTACT_MINE(""));
	hl_bind_int(st, ":id", id);
	hl_bind_int(st, ":me", hl_assigned_user(req));
	int64_t deleted = hl_step_changes(st);
	if (deleted <= 0)
		return deleted ? (int)deleted : hl_reply_error(req, 404, "not_found", "no such contact");
	/* Its tags no longer count it (see migration 009). */
	st = hl_scoped_write(req, "UPDATE contact_tags SET contact_deleted = 1"
			     " WHERE location_id = :location AND contact_id = :id");
	hl_bind_int(st, ":id", id);
	if (hl_step_changes(st) < 0)
		return HL_EDB;
	int rc = contact_publish(req, "contact.deleted", id, NULL);
	return rc ? rc : hl_reply_empty(req);
}

/* SPDX-License-Identifier: MIT */
/*
 * store.c: writing one contact's own fields, the part that the JSON
 * handlers (write.c) and CSV imports (import.c) share, so a contact is
 * checked, matched and stored the same way whichever door it came in by.
 * Each function takes the write connection and the location explicitly,
 * since an import runs in a job, outside any request. contact_index keeps
 * a contact's line in the trigram search index.
 */
#include "contacts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const contact_text_names[CT_COUNT] = {
	"first_name", "last_name", "email", "phone", "company_name", "source",
};

static int is_given(const struct contact_input *in, int field)
{
	return (in->given >> field) & 1;
}

const char *contact_input_problem(struct contact_input *in, int whole, const char *country,
				  const char **member)
{
	const char *email = in->text[CT_EMAIL], *phone = in->text[CT_PHONE];
	if (is_given(in, CT_EMAIL) && email && !hl_is_email(email))
		return *member = "email", "not an e-mail address";
	if (is_given(in, CT_PHONE) && phone && *phone) {
		if (hl_phone_e164(phone, country, in->phone))
			return *member = "phone", "not a phone number (one from abroad starts with +"
						  " and its country code)";
		in->phone_typed = strcmp(phone, in->phone) ? phone : NULL;
		in->text[CT_PHONE] = in->phone;
	}
	if (!whole)
		return NULL;
	for (int f = CT_FIRST_NAME; f <= CT_PHONE; f++)
		if (in->text[f] && *in->text[f])
			return NULL;
	return *member = "first_name", "a contact needs a name, an e-mail or a phone";
}

int64_t contact_match(struct hl_db *db, int64_t location, const struct contact_input *in,
		      int64_t except)
{
	const char *email = in->text[CT_EMAIL], *phone = in->text[CT_PHONE];
	sqlite3_stmt *st;
	if (email && *email)
		st = hl_stmt_scoped(db, location, "SELECT id FROM contacts WHERE location_id = :location"
				    " AND email = :value COLLATE NOCASE AND deleted_at IS NULL"
				    " AND id <> :except ORDER BY id LIMIT 1");
	else if (phone && *phone)
		st = hl_stmt_scoped(db, location, "SELECT id FROM contacts WHERE location_id = :location"
				    " AND phone = :value AND deleted_at IS NULL AND id <> :except"
				    " ORDER BY id LIMIT 1");
	else
		return 0;
	hl_bind_text(st, ":value", email && *email ? email : phone);
	hl_bind_int(st, ":except", except);
	int64_t id;
	return hl_step_int(st, &id) < 0 ? HL_EDB : id;
}

/* The statements' parameters of the text fields: their names with a colon. */
static const char *const text_params[CT_COUNT] = {
	":first_name", ":last_name", ":email", ":phone", ":company_name", ":source",
};

/* Bind the text fields (an empty one as NULL) and the owner (NULL for
 * nobody: hl_stmt left it unbound). */
static void bind_input(sqlite3_stmt *st, const struct contact_input *in)
{
	for (int f = 0; f < CT_COUNT; f++) {
		const char *v = in->text[f];
		hl_bind_text(st, text_params[f], v && *v ? v : NULL);
	}
	hl_bind_text(st, ":phone_typed", in->phone_typed);
	if (in->owner_id)
		hl_bind_int(st, ":owner_id", in->owner_id);
}

int contact_searchable(unsigned given)
{
	return (given & ((1u << CT_FIRST_NAME) | (1u << CT_LAST_NAME) | (1u << CT_EMAIL) |
			 (1u << CT_PHONE) | (1u << CT_COMPANY_NAME))) != 0;
}

/* The stored row's name, e-mail, phone and company, joined as list.c's
 * SEARCH_TEXT (search.h) joins them and folded (hl_fold: "José" is
 * "jose"), are bound as a value (not selected: see contacts.h on why an
 * INSERT ... SELECT would cost a segment). A line that is not UTF-8
 * (none a person types) is kept as it is. */
int contact_index(struct hl_db *db, int64_t id, int fresh)
{
	sqlite3_stmt *row = hl_stmt(db, "SELECT first_name, last_name, email, phone, company_name"
				    " FROM contacts WHERE id = :id");
	if (!row)
		return HL_EDB;
	hl_bind_int(row, ":id", id);
	if (sqlite3_step(row) != SQLITE_ROW)
		return HL_EDB;
	char line[CT_SOURCE * (CONTACT_TEXT_MAX * 4 + 1)];
	size_t n = 0;
	for (int f = CT_FIRST_NAME; f < CT_SOURCE; f++) {
		size_t len = (size_t)sqlite3_column_bytes(row, f);
		if (n + len + 1 > sizeof(line))
			len = sizeof(line) - n - 1; /* longer than any field is let in */
		if (len)
			memcpy(line + n, sqlite3_column_text(row, f), len);
		n += len;
		line[n++] = ' ';
	}
	line[n - 1] = '\0'; /* in place of the last space (no field holds a NUL) */
	char folded[sizeof(line) * 2], *big = NULL;
	int fold_rc = hl_fold(line, folded, sizeof(folded));
	if (fold_rc == HL_ETOOBIG) { /* rare signs that fold to many letters */
		size_t size = strlen(line) * 18 + 1; /* U+FDFA's eighteen, the most */
		if (!(big = malloc(size)))
			return HL_ENOMEM;
		fold_rc = hl_fold(line, big, size);
	}
	if (fold_rc == HL_ENOMEM) {
		free(big);
		return HL_ENOMEM;
	}
	sqlite3_stmt *st = fresh
		? hl_stmt(db, "INSERT INTO contact_search (rowid, text) VALUES (:id, :text)")
		: hl_stmt(db, "UPDATE contact_search SET text = :text WHERE rowid = :id");
	hl_bind_int(st, ":id", id);
	hl_bind_text(st, ":text", fold_rc < 0 ? line : big ? big : folded);
	int rc = hl_step_changes(st) < 0 ? HL_EDB : 0;
	free(big);
	return rc;
}

int64_t contact_insert(struct hl_db *db, int64_t location, const struct contact_input *in)
{
	sqlite3_stmt *st = hl_stmt_scoped(db, location,
		"INSERT INTO contacts (location_id, first_name, last_name, email, phone, phone_typed,"
		" company_name, source, owner_id) VALUES (:location, coalesce(:first_name, ''),"
		" coalesce(:last_name, ''), :email, :phone, :phone_typed, :company_name, :source,"
		" :owner_id)");
	if (!st)
		return HL_EDB;
	bind_input(st, in);
	return hl_step_last_id(st);
}

/* One statement for every combination of given fields: :given holds the
 * `given` bits, so each column keeps its value unless its bit is set. */
int contact_update(struct hl_db *db, int64_t location, int64_t id,
		   const struct contact_input *in)
{
	sqlite3_stmt *st = hl_stmt_scoped(db, location,
		"UPDATE contacts SET"
		" first_name = CASE WHEN :given & 1 THEN coalesce(:first_name, '') ELSE first_name END,"
		" last_name = CASE WHEN :given & 2 THEN coalesce(:last_name, '') ELSE last_name END,"
		" email = CASE WHEN :given & 4 THEN :email ELSE email END,"
		" phone = CASE WHEN :given & 8 THEN :phone ELSE phone END,"
		" phone_typed = CASE WHEN :given & 8 THEN :phone_typed ELSE phone_typed END,"
		" company_name = CASE WHEN :given & 16 THEN :company_name ELSE company_name END,"
		" source = CASE WHEN :given & 32 THEN :source ELSE source END,"
		" owner_id = CASE WHEN :given & 64 THEN :owner_id ELSE owner_id END,"
		" updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
		" WHERE id = :id AND location_id = :location AND deleted_at IS NULL");
	if (!st)
		return HL_EDB;
	bind_input(st, in);
	hl_bind_int(st, ":given", in->given);
	hl_bind_int(st, ":id", id);
	int64_t changed = hl_step_changes(st);
	return changed < 0 ? (int)changed : changed ? 0 : HL_ENOENT;
}

int contact_publish(struct hl_req *req, const char *event, int64_t id, const char *data)
{
	int64_t owner = hl_scoped_write_int(req, "SELECT owner_id FROM contacts"
					    " WHERE id = :id AND location_id = :location", id);
	return owner < 0 ? (int)owner : hl_publish_assigned(req, event, id, owner, data);
}

/* The live contact `id` of the request's location, as the caller may
 * open it: the one rule of contact_visible and contact_visible_name. */
#define VISIBLE_CONTACT \
	" FROM contacts WHERE id = :id AND location_id = :location AND deleted_at IS NULL" \
	CONTACT_MINE("")

int contact_visible(struct hl_req *req, int64_t id, int write)
{
	static const char sql[] = "SELECT 1" VISIBLE_CONTACT;
	sqlite3_stmt *st = write ? hl_scoped_write(req, sql) : hl_scoped_read(req, sql);
	hl_bind_int(st, ":id", id);
	hl_bind_int(st, ":me", hl_assigned_user(req));
	int64_t one;
	return hl_step_int(st, &one);
}

int contact_visible_name(struct hl_req *req, int64_t id, char *name, size_t size)
{
	sqlite3_stmt *st = hl_scoped_write(req,
		"SELECT substr(trim(coalesce(first_name, '') || ' ' || coalesce(last_name, '')),"
		" 1, :chars)" VISIBLE_CONTACT);
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":id", id);
	hl_bind_int(st, ":me", hl_assigned_user(req));
	hl_bind_int(st, ":chars", (int64_t)(size - 1) / 4); /* UTF-8: 4 bytes at most each */
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? 0 : HL_EDB;
	const char *text = (const char *)sqlite3_column_text(st, 0);
	snprintf(name, size, "%s", text ? text : "");
	return 1;
}

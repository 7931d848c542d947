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

#include <string.h>

const char *const contact_text_names[CT_COUNT] = {
	"first_name", "last_name", "email", "phone", "company_name", "source",
};

static int is_given(const struct contact_input *in, int field)
{
	return (in->given >> field) & 1;
}

const char *contact_input_problem(const struct contact_input *in, int whole)
{
	const char *email = in->text[CT_EMAIL];
	if (is_given(in, CT_EMAIL) && email && !hl_is_email(email))
		return "email: not an e-mail address";
	if (!whole)
		return NULL;
	for (int f = CT_FIRST_NAME; f <= CT_PHONE; f++)
		if (in->text[f] && *in->text[f])
			return NULL;
	return "first_name: a contact needs a name, an e-mail or a phone";
}

int64_t contact_match(struct hl_db *db, int64_t location, const struct contact_input *in,
		      int64_t except)
{
	const char *email = in->text[CT_EMAIL], *phone = in->text[CT_PHONE];
	sqlite3_stmt *st;
	if (email && *email)
		st = hl_stmt(db, "SELECT id FROM contacts WHERE location_id = ?1"
			     " AND email = ?2 COLLATE NOCASE AND deleted_at IS NULL AND id <> ?3"
			     " ORDER BY id LIMIT 1");
	else if (phone && *phone)
		st = hl_stmt(db, "SELECT id FROM contacts WHERE location_id = ?1"
			     " AND phone = ?2 AND deleted_at IS NULL AND id <> ?3 ORDER BY id LIMIT 1");
	else
		return 0;
	if (!st)
		return HL_EDB;
	sqlite3_bind_int64(st, 1, location);
	sqlite3_bind_text(st, 2, email && *email ? email : phone, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, except);
	int rc = sqlite3_step(st);
	return rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : rc == SQLITE_DONE ? 0 : HL_EDB;
}

/* Bind the text fields to parameters 2.. and the owner after them. */
static void bind_input(sqlite3_stmt *st, const struct contact_input *in)
{
	for (int f = 0; f < CT_COUNT; f++) {
		const char *v = in->text[f];
		sqlite3_bind_text(st, 2 + f, v && *v ? v : NULL, -1, SQLITE_STATIC);
	}
	if (in->owner_id)
		sqlite3_bind_int64(st, 2 + CT_COUNT, in->owner_id);
}

int contact_searchable(unsigned given)
{
	return (given & ((1u << CT_FIRST_NAME) | (1u << CT_LAST_NAME) | (1u << CT_EMAIL) |
			 (1u << CT_PHONE) | (1u << CT_COMPANY_NAME))) != 0;
}

/* The stored row's name, e-mail, phone and company, joined as list.c's
 * SEARCH_TEXT (search.h) joins them, are bound as a value (not selected: see
 * contacts.h on why an INSERT ... SELECT would cost a segment). */
int contact_index(struct hl_db *db, int64_t id, int fresh)
{
	sqlite3_stmt *row = hl_stmt(db, "SELECT first_name, last_name, email, phone, company_name"
				    " FROM contacts WHERE id = ?1");
	if (!row)
		return HL_EDB;
	sqlite3_bind_int64(row, 1, id);
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
	sqlite3_stmt *st = fresh
		? hl_stmt(db, "INSERT INTO contact_search (rowid, text) VALUES (?1, ?2)")
		: hl_stmt(db, "UPDATE contact_search SET text = ?2 WHERE rowid = ?1");
	if (!st)
		return HL_EDB;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, line, (int)n - 1, SQLITE_STATIC);
	return sqlite3_step(st) == SQLITE_DONE ? 0 : HL_EDB;
}

int64_t contact_insert(struct hl_db *db, int64_t location, const struct contact_input *in)
{
	sqlite3_stmt *st = hl_stmt(db,
		"INSERT INTO contacts (location_id, first_name, last_name, email, phone, company_name,"
		" source, owner_id) VALUES (?1, coalesce(?2, ''), coalesce(?3, ''), ?4, ?5, ?6, ?7, ?8)");
	if (!st)
		return HL_EDB;
	sqlite3_bind_int64(st, 1, location);
	bind_input(st, in);
	if (sqlite3_step(st) != SQLITE_DONE)
		return HL_EDB;
	return sqlite3_last_insert_rowid(hl_sqlite(db));
}

/* One statement for every combination of given fields: ?9 holds the
 * `given` bits, so each column keeps its value unless its bit is set. */
int contact_update(struct hl_db *db, int64_t location, int64_t id,
		   const struct contact_input *in)
{
	sqlite3_stmt *st = hl_stmt(db,
		"UPDATE contacts SET"
		" first_name = CASE WHEN ?9 & 1 THEN coalesce(?2, '') ELSE first_name END,"
		" last_name = CASE WHEN ?9 & 2 THEN coalesce(?3, '') ELSE last_name END,"
		" email = CASE WHEN ?9 & 4 THEN ?4 ELSE email END,"
		" phone = CASE WHEN ?9 & 8 THEN ?5 ELSE phone END,"
		" company_name = CASE WHEN ?9 & 16 THEN ?6 ELSE company_name END,"
		" source = CASE WHEN ?9 & 32 THEN ?7 ELSE source END,"
		" owner_id = CASE WHEN ?9 & 64 THEN ?8 ELSE owner_id END,"
		" updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
		" WHERE id = ?10 AND location_id = ?1 AND deleted_at IS NULL");
	if (!st)
		return HL_EDB;
	sqlite3_bind_int64(st, 1, location);
	bind_input(st, in);
	sqlite3_bind_int64(st, 9, in->given);
	sqlite3_bind_int64(st, 10, id);
	if (sqlite3_step(st) != SQLITE_DONE)
		return HL_EDB;
	return sqlite3_changes(hl_sqlite(db)) ? 0 : HL_ENOENT;
}

int contact_publish(struct hl_req *req, const char *event, int64_t id, const char *data)
{
	int64_t owner = hl_scoped_write_int(req, "SELECT owner_id FROM contacts"
					    " WHERE id = ?1 AND location_id = :location", id);
	return owner < 0 ? (int)owner : hl_publish_assigned(req, event, id, owner, data);
}

int contact_visible(struct hl_req *req, struct hl_db *db, int64_t id)
{
	sqlite3_stmt *st = hl_stmt(db, "SELECT 1 FROM contacts WHERE id = ?2 AND location_id = ?1"
				   " AND deleted_at IS NULL" CONTACT_MINE(""));
	if (!st)
		return HL_EDB;
	sqlite3_bind_int64(st, 1, hl_location_id(req));
	sqlite3_bind_int64(st, 2, id);
	hl_bind_int(st, ":me", hl_assigned_user(req));
	int rc = sqlite3_step(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : HL_EDB;
}

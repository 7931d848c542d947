/* SPDX-License-Identifier: MIT */
/*
 * write.c: creating and deleting contacts. A new contact is checked field
 * by field (422 naming the field), and an e-mail address a live contact
 * of the location already has is refused with 409 naming that contact.
 * Deleting is soft: the purge job removes the row after a grace period.
 */
#include "contacts.h"

#include <string.h>

#define MAX_TEXT 200

/* The text fields, in the order of the INSERT's parameters. */
static const char *const fields[] = {
	"first_name", "last_name", "email", "phone", "company_name", "source",
};
#define NFIELDS ((int)(sizeof(fields) / sizeof(fields[0])))

/* A text member, NULL when absent or null; 422 (and -1) when it is not
 * text of at most MAX_TEXT characters. */
static int text_field(struct hl_req *req, const char *key, const char **out)
{
	int tok = hl_body_find(req, 0, key);
	*out = NULL;
	if (tok < 0 || hl_body_type(req, tok) == HL_JSON_NULL)
		return 0;
	const char *s = hl_body_string(req, tok);
	if (!s || strlen(s) > MAX_TEXT) {
		hl_reply_error(req, 422, "validation", "%s: text of at most %d characters", key, MAX_TEXT);
		return -1;
	}
	*out = *s ? s : NULL;
	return 0;
}

static int is_email(const char *s)
{
	const char *at = strchr(s, '@');
	return at && at > s && !strchr(at + 1, '@') && strchr(at + 1, '.') &&
	       at[strlen(at) - 1] != '.' && !strpbrk(s, " \t\r\n,;<>");
}

struct contact {
	const char *text[NFIELDS]; /* by `fields`; NULL when not given */
	int64_t owner;
};

/* Answer 422; -1 for read_contact. */
static int invalid(struct hl_req *req, const char *message)
{
	hl_reply_error(req, 422, "validation", "%s", message);
	return -1;
}

/* Read and check the body; answers 422 itself (-1). */
static int read_contact(struct hl_req *req, struct contact *c)
{
	memset(c, 0, sizeof(*c));
	if (hl_body_type(req, 0) != HL_JSON_OBJECT)
		return invalid(req, "send the contact as a JSON object");
	for (int i = 0; i < NFIELDS; i++)
		if (text_field(req, fields[i], &c->text[i]))
			return -1;
	int tok = hl_body_find(req, 0, "owner_id");
	if (tok >= 0 && hl_body_type(req, tok) != HL_JSON_NULL && hl_body_int(req, tok, &c->owner))
		return invalid(req, "owner_id: a user's id");
	if (!c->text[0] && !c->text[1] && !c->text[2] && !c->text[3])
		return invalid(req, "first_name: a contact needs a name, an e-mail or a phone");
	if (c->text[2] && !is_email(c->text[2]))
		return invalid(req, "email: not an e-mail address");
	return 0;
}

/* The owner must be able to open the location. */
static int owner_ok(struct hl_req *req, int64_t owner)
{
	sqlite3_stmt *st = hl_scoped_read(req,
		"SELECT 1 FROM users u WHERE u.id = ?2 AND u.disabled_at IS NULL AND"
		" (u.role IN ('agency_admin', 'agency_user') OR EXISTS (SELECT 1 FROM user_locations"
		" WHERE user_id = u.id AND location_id = :location))");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 2, owner);
	return sqlite3_step(st) == SQLITE_ROW;
}

/* A live contact of the location with this e-mail address, or 0. */
static int64_t holder_of(struct hl_req *req, const char *email)
{
	sqlite3_stmt *st = hl_scoped_write(req,
		"SELECT id FROM contacts WHERE location_id = :location AND email = ?2 COLLATE NOCASE"
		" AND deleted_at IS NULL LIMIT 1");
	if (!st)
		return -1;
	sqlite3_bind_text(st, 2, email, -1, SQLITE_STATIC);
	return sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
}

int contacts_create(struct hl_req *req)
{
	struct contact c;
	if (read_contact(req, &c))
		return 0;
	int ok = c.owner ? owner_ok(req, c.owner) : 1;
	if (ok < 0)
		return HL_EDB;
	if (!ok)
		return hl_reply_error(req, 422, "validation", "owner_id: no user of this location");
	int64_t holder = c.text[2] ? holder_of(req, c.text[2]) : 0;
	if (holder < 0)
		return HL_EDB;
	if (holder)
		return hl_reply_error(req, 409, "duplicate",
				      "contact %lld already has this e-mail address", (long long)holder);
	sqlite3_stmt *st = hl_scoped_write(req,
		"INSERT INTO contacts (location_id, first_name, last_name, email, phone, company_name,"
		" source, owner_id) VALUES (:location, coalesce(?2, ''), coalesce(?3, ''), ?4, ?5, ?6,"
		" ?7, ?8)");
	if (!st)
		return HL_EDB;
	for (int i = 0; i < NFIELDS; i++)
		sqlite3_bind_text(st, 2 + i, c.text[i], -1, SQLITE_STATIC);
	if (c.owner)
		sqlite3_bind_int64(st, 8, c.owner);
	if (sqlite3_step(st) != SQLITE_DONE)
		return HL_EDB;
	return contacts_reply_record(req, 201,
				     sqlite3_last_insert_rowid(hl_sqlite(hl_write_begin(req))));
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
		" WHERE id = ?2 AND location_id = :location AND deleted_at IS NULL");
	if (!st)
		return HL_EDB;
	sqlite3_bind_int64(st, 2, id);
	if (sqlite3_step(st) != SQLITE_DONE)
		return HL_EDB;
	if (!sqlite3_changes(hl_sqlite(hl_write_begin(req))))
		return hl_reply_error(req, 404, "not_found", "no such contact");
	return hl_reply_raw(req, 204, "application/json", "", 0);
}

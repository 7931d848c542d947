/* SPDX-License-Identifier: MIT */
/*
 * intake.c: the service contacts.find_or_add, which other modules call
 * (hl_call) when someone writes in: the conversations module with a text
 * or an e-mail from a sender it may not know.
 *
 *   in:  {"email": "...", "phone": "+15550102000", "first_name": "...",
 *         "last_name": "...", "company_name": "...", "source": "sms",
 *         "tags": ["Lead", ...]}: an e-mail or a phone at least; the
 *         names (for a new contact) and tags (put on either) optional
 *   out: {"id": 123, "added": true}
 *
 * The sender is the sub-account's live contact with that e-mail (without
 * regard to case) or, with none given, that phone, as an upsert matches;
 * else a contact is added, indexed for search and contact.created
 * published, as POST /api/contacts does.
 */
#include "contacts.h"

#include <string.h>

/* The members of `in`, read by SQLite's JSON functions into the
 * request's arena: 0, or HL_EINVAL for text that is not an object. */
static int read_intake(struct hl_req *req, const char *in, struct contact_input *c)
{
	sqlite3_stmt *st = hl_stmt(hl_write_begin(req), "SELECT json_type(:in) = 'object',"
		" json_extract(:in, '$.email'), json_extract(:in, '$.phone'),"
		" json_extract(:in, '$.first_name'), json_extract(:in, '$.source'),"
		" json_extract(:in, '$.last_name'), json_extract(:in, '$.company_name')");
	if (!st)
		return HL_EDB;
	hl_bind_text(st, ":in", in);
	if (sqlite3_step(st) != SQLITE_ROW || !sqlite3_column_int(st, 0)) {
		sqlite3_reset(st);
		return HL_EINVAL;
	}
	static const int fields[] = { CT_EMAIL, CT_PHONE, CT_FIRST_NAME, CT_SOURCE,
				      CT_LAST_NAME, CT_COMPANY_NAME };
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < 6; i++) {
		const char *v = (const char *)sqlite3_column_text(st, i + 1);
		if (v && *v && hl_text_length(v) <= CONTACT_TEXT_MAX) {
			c->text[fields[i]] = hl_strndup(req, v, strlen(v));
			c->given |= 1u << fields[i];
		}
	}
	sqlite3_reset(st);
	const char *member;
	if ((!c->text[CT_EMAIL] && !c->text[CT_PHONE]) || contact_input_problem(c, 1, hl_location_country(req), &member))
		return HL_EINVAL;
	return 0;
}

/* The names of `in`'s member "tags" put on contact `id`: 0, HL_EINVAL
 * for a name tag_name_ok refuses, HL_EDB. */
static int attach_tags(struct hl_req *req, int64_t id, const char *in)
{
	sqlite3_stmt *st = hl_stmt(hl_write_begin(req), "SELECT value FROM json_each(:in, '$.tags')"
				   " WHERE json_type(:in, '$.tags') = 'array' LIMIT 100");
	if (!st)
		return HL_EDB;
	hl_bind_text(st, ":in", in);
	int rc = 0;
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		char *copy = name ? hl_strndup(req, name, strlen(name)) : NULL;
		if (!copy || !tag_name_ok(copy))
			rc = HL_EINVAL;
		else if ((rc = tag_attach(hl_write_begin(req), hl_location_id(req), id, copy)) > 0)
			rc = 0;
	}
	sqlite3_reset(st);
	return rc;
}

int contacts_find_or_add(struct hl_req *req, const char *in, const char **out)
{
	struct contact_input c;
	int rc = read_intake(req, in, &c);
	if (rc)
		return rc;
	struct hl_db *db = hl_write_begin(req);
	int64_t id = contact_match(db, hl_location_id(req), &c, 0);
	int added = id == 0;
	if (added && (id = contact_insert(db, hl_location_id(req), &c)) > 0 &&
	    ((rc = contact_index(db, id, 1)) || (rc = contact_publish(req, "contact.created", id, NULL))))
		return rc;
	if (id < 0)
		return (int)id;
	if ((rc = attach_tags(req, id, in)))
		return rc;
	*out = hl_sprintf(req, "{\"id\":%lld,\"added\":%s}", (long long)id, added ? "true" : "false");
	return 0;
}

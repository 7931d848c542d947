/* SPDX-License-Identifier: MIT */
/*
 * export.c: GET /api/contacts/export.csv, every contact of the location
 * that passes the list's filters, as CSV with a header row: the contact's
 * own fields, its tags (comma-separated) and one column per custom field,
 * named by its key, so that the file imports back as it is.
 *
 * Rows are read in pages of PAGE by id, each page its own short read, so
 * the first bytes leave at once, memory stays flat however many contacts
 * there are, and no read holds back the database's checkpoints for the
 * length of a slow download.
 */
#include "contacts.h"

#include <stdint.h>

#define PAGE 1000

/* The SELECT list: the fixed columns, then the location's custom fields,
 * each by its id (a number) under its key (letters, digits and _ only,
 * as custom.c makes sure), so the text is safe to put together. */
static const char *columns(struct hl_req *req)
{
	const char *sql = "SELECT c.id, c.first_name, c.last_name, c.email, c.phone,"
		" c.company_name, c.source, c.owner_id, (SELECT group_concat(t.name, ', ')"
		" FROM contact_tags ct JOIN tags t ON t.id = ct.tag_id WHERE ct.contact_id = c.id)"
		" AS tags, c.created_at, c.updated_at";
	sqlite3_stmt *st = hl_scoped_read(req, "SELECT id, key FROM custom_fields"
					  " WHERE location_id = :location ORDER BY position, id");
	if (!st)
		return NULL;
	while (sqlite3_step(st) == SQLITE_ROW)
		sql = hl_sprintf(req, "%s, (SELECT value FROM custom_values WHERE contact_id = c.id"
				 " AND field_id = %lld) AS \"%s\"", sql,
				 (long long)sqlite3_column_int64(st, 0), sqlite3_column_text(st, 1));
	return sql;
}

int contacts_export(struct hl_req *req)
{
	struct contact_filters f;
	int rc = contact_filters_read(req, &f);
	if (rc)
		return rc == HL_EINVAL ? 0 : rc;
	const char *select = columns(req);
	if (!select)
		return HL_EDB;
	const char *sql = hl_sprintf(req, "%s%s AND c.id > :last ORDER BY c.id LIMIT %d", select,
				     contact_filters_where(req, &f), PAGE);
	sqlite3_stmt *st = hl_scoped_read(req, sql);
	if (!st)
		return HL_EDB;
	rc = hl_stream_begin(req, 200, "text/csv; charset=utf-8");
	if (!rc)
		rc = hl_stream_csv_header(req, st);
	int64_t last = 0;
	for (int rows = PAGE; !rc && rows == PAGE;) {
		if (!(st = hl_scoped_read(req, sql)))
			return HL_EDB;
		contact_filters_bind(req, st, &f);
		sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":last"), last);
		for (rows = 0; !rc && (rc = sqlite3_step(st)) == SQLITE_ROW; rows++) {
			rc = hl_stream_csv_row(req, st);
			last = sqlite3_column_int64(st, 0);
		}
		rc = rc == SQLITE_DONE ? 0 : rc < 0 ? rc : HL_EDB;
		sqlite3_reset(st); /* end this page's read before the next */
	}
	return rc;
}

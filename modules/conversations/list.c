/* SPDX-License-Identifier: MIT */
/*
 * list.c: GET /api/conversations, the inbox with its filters and keyset
 * pages, newest first, or with ?sort=unread those with unread messages
 * first (each part newest first).
 *
 * One statement put together from the filters asked for, so that each
 * combination is one SQL text prepared once per connection; it walks one
 * of migration 002's indexes backwards (a contact's few conversations are
 * found through the contact and sorted). The cursor is the last row's
 * inbox key and id as a JSON array, in hex: opaque to clients, read back
 * by SQLite. Unread first has no index to walk: the location's
 * conversations that pass the filters are sorted, a page at a time (a few
 * hundred rows in a sub-account of the reference data set); its cursor
 * starts with whether the last row was unread. ?q keeps the conversations
 * whose contact's name holds it, accents and case aside (the header's
 * search), checked along the walk.
 */
#include "conversations.h"

#include <string.h>

struct inbox_filters {
	int64_t unread, starred, contact, assigned, me; /* 0: any */
	const char *channel;                            /* NULL: any */
	const char *q;                                  /* in the contact's name */
	const char *cursor;                             /* JSON text, or NULL */
	int unread_first;                               /* ?sort=unread */
};

/* The order of ?sort=unread, and its cursor's first member. */
#define UNREAD_FIRST "(cv.unread_count > 0)"


static int bad(struct hl_req *req, const char *message)
{
	hl_reply_error(req, 400, "bad_request", "%s", message);
	return HL_EINVAL;
}

/* Read and check the query string: 0, or HL_EINVAL after answering 400. */
static int read_filters(struct hl_req *req, struct inbox_filters *f)
{
	memset(f, 0, sizeof(*f));
	if (hl_query_int(req, "unread", 0, 0, 1, &f->unread) ||
	    hl_query_int(req, "starred", 0, 0, 1, &f->starred) ||
	    hl_query_int(req, "contact", 0, 1, INT64_MAX, &f->contact) || hl_query_user(req, "assigned", &f->assigned))
		return HL_EINVAL;
	f->channel = hl_query(req, "channel");
	if (f->channel && !conv_is_channel(f->channel))
		return bad(req, "channel is " CHANNEL_WORDS);
	const char *sort = hl_query(req, "sort");
	if (sort && strcmp(sort, "newest") && strcmp(sort, "unread"))
		return bad(req, "sort is newest or unread");
	f->unread_first = sort && !strcmp(sort, "unread");
	f->q = hl_query(req, "q");
	if (f->q && (!*f->q || hl_text_length(f->q) > 200))
		return bad(req, "q is 1 to 200 characters");
	f->me = hl_assigned_user(req);
	return hl_query_keyset(req, "cursor", f->unread_first ? "nsi" : "si", &f->cursor);
}

/* The list's statement. SQLite does not take a range of an index from a
 * row value over an expression, hence the cursor's key twice. The + keeps
 * a contact's conversations off the location's indexes. */
static sqlite3_stmt *list_statement(struct hl_req *req, const struct inbox_filters *f)
{
	const char *first = f->unread_first ? UNREAD_FIRST ", " : "";
	const char *sql = hl_sprintf(req, "SELECT " CONVERSATION_COLUMNS
		", hex(json_array(%s" INBOX_KEY ", cv.id)) AS _cursor"
		" FROM conversations cv LEFT JOIN contacts c ON c.id = cv.contact_id"
		" WHERE %scv.location_id = :location%s%s%s%s%s%s%s%s"
		" ORDER BY %s" INBOX_KEY " DESC, cv.id DESC LIMIT :limit",
		first, f->contact ? "+" : "",
		f->unread ? " AND cv.unread_count > 0" : "",
		f->starred ? " AND cv.starred = 1" : "",
		f->channel ? " AND cv.channel = :channel" : "",
		f->contact ? " AND cv.contact_id = :contact" : "",
		f->assigned ? " AND cv.assigned_to = :assigned" : "",
		f->me ? " AND cv.assigned_to = :me" : "",
		f->q ? " AND instr(fold(c.first_name || ' ' || c.last_name), fold(:q))" : "",
		!f->cursor ? "" : f->unread_first ? " AND (" UNREAD_FIRST ", " INBOX_KEY ", cv.id) <"
			" (json_extract(:cursor, '$[0]'), json_extract(:cursor, '$[1]'),"
			" json_extract(:cursor, '$[2]'))"
		: " AND " INBOX_KEY " <= json_extract(:cursor, '$[0]') AND (" INBOX_KEY
		  ", cv.id) < (json_extract(:cursor, '$[0]'), json_extract(:cursor, '$[1]'))",
		f->unread_first ? UNREAD_FIRST " DESC, " : "");
	sqlite3_stmt *st = hl_scoped_read(req, sql);
	if (!st)
		return NULL;
	hl_bind_int(st, ":contact", f->contact);
	hl_bind_int(st, ":assigned", f->assigned);
	hl_bind_int(st, ":me", f->me);
	hl_bind_text(st, ":channel", f->channel);
	hl_bind_text(st, ":cursor", f->cursor);
	hl_bind_text(st, ":q", f->q);
	return st;
}

int conv_list(struct hl_req *req)
{
	struct inbox_filters f;
	int64_t limit;
	if (read_filters(req, &f) || hl_query_int(req, "limit", 50, 1, 1000, &limit))
		return 0;
	sqlite3_stmt *st = list_statement(req, &f);
	hl_bind_int(st, ":limit", limit + 1);
	return hl_reply_page(req, st, limit, sqlite3_column_count(st) - 1);
}

/* SPDX-License-Identifier: MIT */
/*
 * inbox.c: GET /api/mobile/inbox, the newest conversations of every
 * sub-account the user may open, merged newest first (?unread=1: the
 * unread only), in keyset pages of 20 by default.
 *
 * One statement: each sub-account's conversations are a range of its
 * index in time order, and SQLite merges the ranges, stopping each
 * once the page is full, so a page costs about a page per sub-account.
 * "Assigned only" users see the conversations assigned to them.
 */
#include "mobile.h"

/* The page first (newest message first, then by id), then the names:
 * a join inside would keep SQLite from stopping each range early.
 * Conversations without a message yet are not in the inbox. */
static const char page_sql[] =
	"SELECT page.id, page.location_id, l.name AS location_name, page.channel,"
	" trim(k.first_name || ' ' || k.last_name) AS contact_name,"
	" substr(page.last_message_preview, 1, 80) AS preview, page.last_message_at,"
	" page.unread_count, hex(json_array(page.last_message_at, page.id)) AS _cursor"
	" FROM (SELECT * FROM conversations c INDEXED BY %s"
	" WHERE c.location_id IN " MY_LOCATIONS " AND c.last_message_at IS NOT NULL%s%s%s"
	" ORDER BY c.last_message_at DESC, c.id LIMIT :limit) page"
	" JOIN locations l ON l.id = page.location_id JOIN contacts k ON k.id = page.contact_id"
	" ORDER BY page.last_message_at DESC, page.id";

static const char after[] =
	" AND (c.last_message_at < json_extract(:cursor, '$[0]') OR"
	" (c.last_message_at = json_extract(:cursor, '$[0]') AND c.id > json_extract(:cursor, '$[1]')))";

int mobile_inbox(struct hl_req *req)
{
	int64_t limit, unread;
	const char *cursor;
	if (hl_query_int(req, "limit", 20, 1, 100, &limit) ||
	    hl_query_int(req, "unread", 0, 0, 1, &unread) || hl_query_keyset(req, "cursor", "si", &cursor))
		return 0;
	int64_t me = hl_assigned_user(req);
	char *sql = hl_sprintf(req, page_sql,
		unread ? "conversations_location_unread" : "conversations_location_recent",
		unread ? " AND c.unread_count > 0" : "", me ? " AND c.assigned_to = :me" : "",
		cursor ? after : "");
	sqlite3_stmt *st = hl_stmt(hl_read(req), sql);
	hl_bind_int(st, ":user", hl_user_id(req));
	hl_bind_int(st, ":me", me);
	hl_bind_text(st, ":cursor", cursor);
	hl_bind_int(st, ":limit", limit + 1);
	return hl_reply_page(req, st, limit, 8);
}

/* SPDX-License-Identifier: MIT */
/*
 * contacts.c: GET /api/agency/contacts, the contacts of every sub-account,
 * newest first, each naming its sub-account: searched (?q=), by tag
 * (?tag=, the tag's name in any sub-account), in one sub-account
 * (?location_id=), in keyset pages.
 *
 * One statement: each sub-account's newest contacts are a range of the
 * contacts module's (location_id, created_at, id) index, and SQLite merges
 * the ranges, stopping each once the page is full, so a page costs about a
 * page per sub-account, whatever their size. A search of 3 characters or
 * more asks the contacts' trigram index (contact_search), whose lines
 * are folded (hl_fold), with the search folded alike: its matches are the
 * contacts whose text holds it, whatever the case and accents. A shorter
 * one is a prefix of a name or the e-mail.
 */
#include "agency.h"

#include <string.h>

/* The page is taken first, then joined to the names of the sub-accounts:
 * a join inside would keep SQLite from stopping each range early. */
static const char page_sql[] =
	"SELECT page.id, page.location_id, l.name AS location_name, page.first_name, page.last_name,"
	" page.email, page.phone, page.company_name, page.owner_id, page.created_at,"
	" hex(json_array(page.created_at, page.id)) AS _cursor"
	" FROM (SELECT * FROM contacts c%s WHERE c.location_id IN " AGENCY_LOCATIONS
	" AND c.deleted_at IS NULL%s%s%s ORDER BY c.created_at DESC, c.id DESC LIMIT :limit) page"
	" JOIN locations l ON l.id = page.location_id ORDER BY page.created_at DESC, page.id DESC";

/* The words as one phrase of the index. */
static const char by_search[] =
	" AND c.id IN (SELECT rowid FROM contact_search"
	" WHERE contact_search MATCH '\"' || replace(:q, '\"', '\"\"') || '\"')";

/* Ranges the NOCASE indexes of the names and the e-mail can read. */
static const char by_prefix[] =
	" AND (c.first_name COLLATE NOCASE BETWEEN :q AND :q || char(1114111)"
	" OR c.last_name COLLATE NOCASE BETWEEN :q AND :q || char(1114111)"
	" OR c.email COLLATE NOCASE BETWEEN :q AND :q || char(1114111))";

static const char by_tag[] =
	" AND c.id IN (SELECT ct.contact_id FROM tags t JOIN contact_tags ct ON ct.tag_id = t.id"
	" WHERE t.location_id IN " AGENCY_LOCATIONS " AND t.name = :tag COLLATE NOCASE)";

static const char after[] =
	" AND (c.created_at, c.id) < (json_extract(:cursor, '$[0]'), json_extract(:cursor, '$[1]'))";

int agency_contacts(struct hl_req *req)
{
	struct agency_list list;
	const char *q = hl_query(req, "q"), *tag = hl_query(req, "tag");
	int rc = agency_list_read(req, &list, "si");
	if (rc)
		return rc == HL_EINVAL ? 0 : rc;
	if (q && !(q = hl_search_text(req, q)))
		return hl_reply_error(req, 400, "bad_request", "q is text to search for");
	if (q && !*q)
		q = NULL;
	/* Without a search or a tag, walking the ranges in time order is the
	 * plan; with one, SQLite weighs the matches against the walk. */
	char *sql = hl_sprintf(req, page_sql,
			       q || tag ? "" : " INDEXED BY contacts_location_created",
			       !q ? "" : hl_text_length(q) >= 3 ? by_search : by_prefix,
			       tag ? by_tag : "", list.cursor ? after : "");
	sqlite3_stmt *st = agency_read(req, sql, list.location);
	hl_bind_text(st, ":q", q);
	hl_bind_text(st, ":tag", tag);
	hl_bind_text(st, ":cursor", list.cursor);
	hl_bind_int(st, ":limit", list.limit + 1);
	return hl_reply_page(req, st, list.limit, 10);
}

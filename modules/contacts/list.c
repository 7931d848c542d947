/* SPDX-License-Identifier: MIT */
/*
 * list.c: GET /api/contacts, the contact list with its sort orders,
 * filters and keyset pages.
 *
 * The statement is put together from the filters asked for, so that each
 * combination is one SQL text, prepared once per connection, whose plan
 * uses an index: the search through the trigram index (an indexed prefix
 * range for one or two characters), tags through contact_tags, the order
 * through an index per sort key. The cursor is the last row's sort key and
 * id as a JSON array, in hex: opaque to clients, read back by SQLite.
 */
#include "contacts.h"
#include "search.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_TAGS 20

/* Up to this many matches in the trigram index (every location's), a
 * search reads them and sorts what is left (a lookup each, about 1 us);
 * beyond, walking the sort order's index finds a page sooner. The
 * setting search_matches_first; contacts.c reads it. */
long long contacts_matches_first = 1000;

struct contact_sort {
	const char *name;    /* as in ?sort= */
	const char *columns; /* the ORDER BY key, without the id */
	int n;               /* columns in it */
	int descending;
	int best;            /* the best matches of a search first (BEST_FIRST) */
};

static const struct contact_sort sorts[] = {
	{ "-created", "c.created_at", 1, 1, 0 },
	{ "created", "c.created_at", 1, 0, 0 },
	{ "-updated", "c.updated_at", 1, 1, 0 },
	{ "updated", "c.updated_at", 1, 0, 0 },
	{ "name", "c.last_name COLLATE NOCASE, c.first_name COLLATE NOCASE", 2, 0, 0 },
	{ "-name", "c.last_name COLLATE NOCASE, c.first_name COLLATE NOCASE", 2, 1, 0 },
	{ "best", "c.last_name COLLATE NOCASE, c.first_name COLLATE NOCASE", 2, 0, 1 },
};

/* How well contact `c` answers the search :q (folded), best first, as a
 * person picking a contact expects: its name starting with it ("liam w"
 * for Liam Walker), then a word of it (Mary Liam, liam.fan@...), then the
 * rest (the middle of a word: "liam" in Williams). Read from the index's
 * line (s.text, folded, the name first), which the search has at hand;
 * a search too short for the index asks the names, by their prefixes. */
#define BEST_FIRST "CASE WHEN s.text LIKE :q || '%' THEN 0" \
	" WHEN ' ' || s.text LIKE '% ' || :q || '%' THEN 1 ELSE 2 END"
#define BEST_FIRST_SHORT "CASE WHEN c.first_name LIKE :q || '%' THEN 0" \
	" WHEN c.last_name LIKE :q || '%' THEN 1 ELSE 2 END"

/* The SQL being put together, in the request's memory. */
struct sql {
	struct hl_req *req;
	char *text;
};

static void add(struct sql *q, const char *piece)
{
	q->text = hl_sprintf(q->req, "%s%s", q->text, piece);
}

/* Answer 400 for a bad filter; HL_EINVAL for contact_filters_read. */
static int bad(struct hl_req *req, const char *message)
{
	hl_reply_error(req, 400, "bad_request", "%s", message);
	return HL_EINVAL;
}

static const struct contact_sort *find_sort(const char *name)
{
	for (size_t i = 0; i < sizeof(sorts) / sizeof(sorts[0]); i++)
		if (!strcmp(sorts[i].name, name))
			return &sorts[i];
	return NULL;
}

/* How many contacts of every location hold `q`, counted up to `most`:
 * the index counts them without reading a row (about 0.04 us a match),
 * and stops there. HL_EDB on failure. Not scoped: the index holds every
 * location's contacts. */
static int64_t search_hits(struct hl_req *req, const char *q, int64_t most)
{
	sqlite3_stmt *st = hl_stmt(hl_read(req), "SELECT count(*) FROM (SELECT 1 FROM contact_search"
				   " WHERE contact_search MATCH " PHRASE " LIMIT :most)");
	hl_bind_text(st, ":q", q);
	hl_bind_int(st, ":most", most);
	int64_t hits;
	return hl_step_int(st, &hits) < 0 ? HL_EDB : hits;
}

/* How a search of 3 characters or more finds its rows (where): from the
 * matches (fts_first) while there are at most search_matches_first of
 * them in every location; else along the sort order's index, checking
 * each contact against the set of matches, or by LIKE alone (like_walk)
 * when even that set costs more than a page of `page` rows does. The set
 * costs about 0.17 us a match and grows with the server (0.68 ms for a
 * page of "ann", 3,378 matches, on the full data set; 4.4 ms for its
 * 34,326 at ten times it); LIKE on the newest-first index, which holds
 * the searched text (contacts 020), about 0.6 us a contact walked, at
 * either size, and a page walks about page / share of them, the share of
 * contacts that match being about the same in a location as in all of
 * them (the statements alone, sqlite3, the largest sub-account). So LIKE
 * alone once matches^2 > 2 * page * contacts. Those timings would put
 * the factor near 3; the server answered that page in 1.17 ms by the set
 * and 1.02 ms by LIKE (one client, p50), so 2. One count, which stops at
 * the larger bound (0.03 us a match). A page of 0 (every row) never
 * walks by LIKE alone. */
static int plan_search(struct hl_req *req, struct contact_filters *f, int64_t page)
{
	int64_t contacts = 0, bound = 0;
	if (page) {
		sqlite3_stmt *st = hl_stmt(hl_read(req), "SELECT ifnull(max(id), 0) FROM contacts");
		if (!st || hl_step_int(st, &contacts) < 0)
			return HL_EDB;
		bound = (int64_t)ceil(sqrt(2.0 * (double)page * (double)contacts));
	}
	int64_t most = contacts_matches_first >= bound ? contacts_matches_first + 1 : bound;
	int64_t hits = search_hits(req, f->q, most);
	if (hits < 0)
		return HL_EDB;
	f->fts_first = hits <= contacts_matches_first;
	f->like_walk = page && !f->fts_first && hits >= bound;
	return 0;
}

int contact_filters_read(struct hl_req *req, struct contact_filters *f, int64_t page)
{
	const char *sort = hl_query(req, "sort"), *mode = hl_query(req, "tag_mode");
	memset(f, 0, sizeof(*f));
	if (!(f->sort = find_sort(sort ? sort : "-created")))
		return bad(req, "sort is one of created, -created, updated, -updated, name, -name, best");
	const char *q = hl_query(req, "q");
	if (q && !(q = hl_search_text(req, q)))
		return bad(req, "q is text to search for");
	if (q && *q)
		f->q = q;
	if (f->q && hl_text_length(f->q) >= 3 && plan_search(req, f, page))
		return HL_EDB;
	if (f->sort->best) { /* every match ranked: read from the index's matches */
		if (!f->q)
			return bad(req, "sort=best ranks the contacts a search (q) finds: give q");
		f->fts_first = hl_text_length(f->q) >= 3;
		f->like_walk = 0;
	}
	f->ntags = hl_query_all(req, "tag", &f->tags);
	f->tags_first = 1;
	if (f->ntags > MAX_TAGS)
		return bad(req, "at most 20 tags"); /* MAX_TAGS */
	if (mode && strcmp(mode, "any") && strcmp(mode, "all"))
		return bad(req, "tag_mode is any or all");
	f->all_tags = mode && !strcmp(mode, "all");
	if (hl_query_user(req, "owner", &f->owner))
		return HL_EINVAL;
	if (hl_query_time(req, "created_after", &f->after) ||
	    hl_query_time(req, "created_before", &f->before))
		return HL_EINVAL;
	return 0;
}

/* The ids of the location's tags named by the filter, as a subquery. */
static void add_tag_ids(struct sql *q, const struct contact_filters *f)
{
	add(q, " (SELECT id FROM tags WHERE location_id = :location AND name IN (");
	for (int i = 0; i < f->ntags; i++)
		add(q, hl_sprintf(q->req, "%s:tag%d", i ? ", " : "", i));
	add(q, "))");
}

/* A search of 3 characters or more asks the trigram index with a phrase
 * MATCH, which it answers from the index alone, where its LIKE reads every
 * candidate's text (7 times slower on the full data set): the index and
 * :q being folded alike (search.h), its matches are exactly the contacts
 * whose folded text holds :q. With few matches (fts_first) the rows are
 * taken from the index's matches; with more, the sort order's index is
 * walked and each contact checked against them, which stops early; with
 * so many that the set of them costs more than the page (like_walk,
 * plan_search), each contact walked is checked by LIKE alone, on its
 * text folded as the index's is. */
static void where(struct sql *q, const struct contact_filters *f, int assigned_only)
{
	if (f->fts_first)
		add(q, " FROM contact_search s CROSS JOIN contacts c WHERE s.text MATCH " PHRASE
		       " AND c.id = s.rowid AND");
	else
		add(q, " FROM contacts c WHERE");
	add(q, " c.location_id = :location AND c.deleted_at IS NULL");
	if (f->q && hl_text_length(f->q) >= 3) {
		if (f->like_walk)
			add(q, " AND fold(" SEARCH_TEXT ") LIKE '%' || :q || '%'");
		else if (!f->fts_first)
			add(q, " AND c.id IN (SELECT rowid FROM contact_search"
			       " WHERE contact_search MATCH " PHRASE ")");
	} else if (f->q) { /* too short for trigrams: a prefix of a name or the e-mail */
		add(q, " AND " SEARCH_PREFIX);
	}
	if (f->ntags && f->tags_first) {
		add(q, " AND c.id IN (SELECT ct.contact_id FROM contact_tags ct WHERE ct.tag_id IN");
		add_tag_ids(q, f);
		if (f->all_tags)
			add(q, hl_sprintf(q->req, " GROUP BY ct.contact_id HAVING count(*) = %d",
					  f->ntags));
		add(q, ")");
	} else if (f->ntags == 1) { /* one seek of the primary key a contact */
		add(q, " AND EXISTS (SELECT 1 FROM contact_tags ct WHERE ct.contact_id = c.id AND"
		       " ct.tag_id = (SELECT id FROM tags WHERE location_id = :location AND name = :tag0))");
	} else if (f->ntags) {
		add(q, " AND (SELECT count(*) FROM contact_tags ct WHERE ct.contact_id = c.id"
		       " AND ct.tag_id IN");
		add_tag_ids(q, f);
		add(q, f->all_tags ? hl_sprintf(q->req, ") = %d", f->ntags) : ") > 0");
	}
	if (f->owner)
		add(q, " AND c.owner_id = :owner");
	if (assigned_only)
		add(q, " AND c.owner_id = :me");
	if (f->after)
		add(q, " AND c.created_at >= :after");
	if (f->before)
		add(q, " AND c.created_at < :before");
}

/* hl_bind_* binds a parameter only when the statement has it: :me only
 * "assigned only" callers' statements have (where). */
void contact_filters_bind(struct hl_req *req, sqlite3_stmt *st, const struct contact_filters *f)
{
	hl_bind_text(st, ":q", f->q);
	for (int t = 0; t < f->ntags; t++) {
		char name[16];
		snprintf(name, sizeof(name), ":tag%d", t);
		hl_bind_text(st, name, f->tags[t]);
	}
	hl_bind_int(st, ":owner", f->owner);
	hl_bind_int(st, ":me", hl_assigned_user(req));
	hl_bind_text(st, ":after", f->after);
	hl_bind_text(st, ":before", f->before);
	hl_bind_text(st, ":cursor", f->cursor);
}

const char *contact_filters_where(struct hl_req *req, const struct contact_filters *f)
{
	struct sql q = { req, "" };
	where(&q, f, hl_assigned_only(req));
	return q.text;
}

/* After the last row of the previous page, in the sort's direction. */
static void after_cursor(struct sql *q, const struct contact_sort *s)
{
	add(q, hl_sprintf(q->req, " AND (%s, c.id) %s (", s->columns, s->descending ? "<" : ">"));
	for (int i = 0; i <= s->n; i++)
		add(q, hl_sprintf(q->req, "%sjson_extract(:cursor, '$[%d]')", i ? ", " : "", i));
	add(q, ")");
}

static int64_t count(struct hl_req *req, const struct contact_filters *f)
{
	/* Every row is counted: LIKE alone would read each contact of the
	 * location, where the set of matches is read once. */
	struct contact_filters all = *f;
	all.like_walk = 0;
	struct sql q = { req, "SELECT count(*)" };
	where(&q, &all, hl_assigned_only(req));
	sqlite3_stmt *st = hl_scoped_read(req, q.text);
	if (!st)
		return HL_EDB;
	contact_filters_bind(req, st, f);
	int64_t n;
	return hl_step_int(st, &n) < 0 ? HL_EDB : n;
}

/* How a page of the list meets a tag filter. Reading the tags' contacts
 * into a set first costs about 0.27 us a contact tagged; checking each
 * contact met along the sort order's index about 0.32 us a contact
 * walked, and a page walks about page / share of them, the share being
 * the tagged contacts' part of the location's live ones. So the set is
 * read first while tagged^2 <= page * live: a tag on a few contacts
 * costs what they do, one on many what a page does. On the largest
 * sub-account, a tag on 7% of it took 0.29 ms as a set at 7,750 contacts,
 * 0.89 ms as a set and 0.42 ms as checks at 77,000 (the statement alone).
 * Asked only without a search, whose matches lead otherwise. 1, 0 or
 * HL_EDB. */
static int read_tags_first(struct hl_req *req, const struct contact_filters *f, int64_t page)
{
	struct sql q = { req, f->all_tags ? "SELECT min(tc.contacts)" : "SELECT sum(tc.contacts)" };
	add(&q, ", (SELECT live FROM contact_counts WHERE location_id = :location)"
		" FROM tag_counts tc WHERE tc.tag_id IN");
	add_tag_ids(&q, f);
	sqlite3_stmt *st = hl_scoped_read(req, q.text);
	if (!st)
		return HL_EDB;
	contact_filters_bind(req, st, f);
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? 1 : HL_EDB;
	double tagged = sqlite3_column_double(st, 0), live = sqlite3_column_double(st, 1);
	return tagged * tagged <= (double)page * live;
}

/* The page's order: the sort's key and the id, a search's best matches
 * first for sort=best. */
static void order_by(struct sql *q, const struct contact_filters *f)
{
	const struct contact_sort *s = f->sort;
	const char *best = !s->best ? "" : f->fts_first ? BEST_FIRST ", " : BEST_FIRST_SHORT ", ";
	add(q, hl_sprintf(q->req, " ORDER BY %s%s%s, c.id%s LIMIT :limit", best,
			  s->descending && s->n == 2
				  ? "c.last_name COLLATE NOCASE DESC, c.first_name COLLATE NOCASE"
				  : s->columns,
			  s->descending ? " DESC" : "", s->descending ? " DESC" : ""));
}

int contacts_list(struct hl_req *req)
{
	struct contact_filters f;
	int64_t limit, total = -1, want_count;
	if (hl_query_int(req, "limit", 50, 1, 1000, &limit) ||
	    hl_query_int(req, "count", 0, 0, 1, &want_count))
		return 0;
	int rc = contact_filters_read(req, &f, limit + 1);
	if (rc)
		return rc;
	if (hl_query_keyset(req, "cursor", f.sort->n == 1 ? "si" : "ssi", &f.cursor))
		return 0;
	if (f.sort->best && f.cursor)
		return bad(req, "sort=best is one page, the best matches: it takes no cursor");
	if (want_count && (total = count(req, &f)) < 0)
		return HL_EDB;
	if (f.ntags && !f.q && (f.tags_first = read_tags_first(req, &f, limit + 1)) < 0)
		return HL_EDB;
	struct sql q = { req, "SELECT c.id, c.first_name, c.last_name, c.email, c.phone,"
			      " c.phone_typed, c.company_id, c.company_name, c.source, c.owner_id, c.created_at,"
			      " c.updated_at, (SELECT json_group_array(t.name) FROM contact_tags ct"
			      " JOIN tags t ON t.id = ct.tag_id WHERE ct.contact_id = c.id) AS json_tags" };
	add(&q, hl_sprintf(req, ", hex(json_array(%s, c.id)) AS _cursor",
			   f.sort->n == 1 ? f.sort->columns : "c.last_name, c.first_name"));
	where(&q, &f, hl_assigned_only(req));
	if (f.cursor)
		after_cursor(&q, f.sort);
	order_by(&q, &f);
	sqlite3_stmt *st = hl_scoped_read(req, q.text);
	if (!st)
		return HL_EDB;
	contact_filters_bind(req, st, &f);
	hl_bind_int(st, ":limit", f.sort->best ? limit : limit + 1); /* best: no next page */
	return hl_reply_page_total(req, st, limit, 13, total); /* _cursor, after json_tags */
}

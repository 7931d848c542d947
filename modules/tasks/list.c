/* SPDX-License-Identifier: MIT */
/*
 * list.c: GET /api/tasks, the task list with its filters and keyset pages.
 *
 * Open tasks come first, by due date (undated ones last) and id; then the
 * completed ones, the most recently completed first. Each part is one
 * statement walking its own index (migration 002) and put together from
 * the filters asked for, so each combination is one SQL text prepared once
 * per connection. A page that ends the open part goes on into the
 * completed one when no status is asked for. The cursor is the last row's
 * part, sort key and id as a JSON array, in hex: opaque to clients, read
 * back by SQLite. "today" and "week" (7 days from today) are the
 * sub-account's days, in its time zone. ?q keeps the tasks whose title
 * holds it, accents and case aside (the header's search): a walk of the
 * location's tasks in the part's order, which stops at the page's end.
 */
#include "tasks.h"

#include <string.h>

enum part { OPEN, DONE };
enum status { ANY_STATUS, ONLY_OPEN, ONLY_DONE };
enum due { ANY_DUE, OVERDUE, TODAY, WEEK };

struct task_filters {
	enum status status;
	enum due due;
	int64_t assignee, contact, deal, me; /* 0: any */
	const char *q;                       /* words of the title, or NULL */
	const char *cursor;            /* JSON text, or NULL */
	enum part from;                /* the part the cursor is in */
};

/* The open tasks' sort key: undated after every ISO time. */
#define DUE_KEY "ifnull(t.due_at, 'z')"

static const char *const due_sql[] = {
	[ANY_DUE] = "",
	[OVERDUE] = " AND " DUE_KEY " < strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
	[TODAY] = " AND " DUE_KEY " >= " HL_SQL_LOCAL_TODAY " AND " DUE_KEY " < " HL_SQL_LOCAL_TOMORROW,
	[WEEK] = " AND " DUE_KEY " >= " HL_SQL_LOCAL_TODAY
		 " AND " DUE_KEY " < " HL_SQL_MIDNIGHT(HL_SQL_ZONE, 7),
};

static int bad(struct hl_req *req, const char *message)
{
	hl_reply_error(req, 400, "bad_request", "%s", message);
	return HL_EINVAL;
}

/* The index of `s` in `names` (NULL-terminated), or -1; 0 for NULL. */
static int pick(const char *s, const char *const *names)
{
	for (int i = 0; s && names[i]; i++)
		if (!strcmp(s, names[i]))
			return i;
	return s ? -1 : 0;
}

/* The cursor, and the part of the list it is in: ["o", due, id] or ["c",
 * completed_at, id]. HL_EINVAL after a 400 when it is not one this list
 * wrote. */
static int read_cursor(struct hl_req *req, struct task_filters *f)
{
	const char *text;
	if (hl_query_keyset(req, "cursor", "ssi", &text))
		return HL_EINVAL;
	if (!text)
		return 0;
	if (strncmp(text, "[\"o\",", 5) && strncmp(text, "[\"c\",", 5))
		return bad(req, "the cursor is not one this list gave");
	f->from = text[2] == 'o' ? OPEN : DONE;
	if ((f->from == DONE && f->status == ONLY_OPEN) || (f->from == OPEN && f->status == ONLY_DONE))
		return bad(req, "the cursor is not one this list gave");
	f->cursor = text;
	return 0;
}

/* Read and check the query string: 0, or HL_EINVAL after answering 400. */
static int read_filters(struct hl_req *req, struct task_filters *f)
{
	static const char *const statuses[] = { "", "open", "completed", NULL };
	static const char *const dues[] = { "", "overdue", "today", "week", NULL };
	int status = pick(hl_query(req, "status"), statuses), due = pick(hl_query(req, "due"), dues);
	memset(f, 0, sizeof(*f));
	if (status <= 0 && hl_query(req, "status"))
		return bad(req, "status is open or completed");
	if (due <= 0 && hl_query(req, "due"))
		return bad(req, "due is overdue, today or week");
	f->status = (enum status)status;
	f->due = (enum due)due;
	if (f->due == OVERDUE && f->status == ONLY_DONE)
		return bad(req, "due=overdue lists open tasks only");
	if (f->due == OVERDUE)
		f->status = ONLY_OPEN;
	if (hl_query_user(req, "assignee", &f->assignee) || hl_query_int(req, "contact", 0, 1, INT64_MAX, &f->contact) ||
	    hl_query_int(req, "opportunity", 0, 1, INT64_MAX, &f->deal))
		return HL_EINVAL;
	f->q = hl_query(req, "q");
	if (f->q && (!*f->q || hl_text_length(f->q) > 200))
		return bad(req, "q is 1 to 200 characters");
	f->me = hl_assigned_user(req);
	return read_cursor(req, f);
}

/* The statement of one part, with the cursor's condition when the cursor
 * is in that part (a later part starts at its beginning). SQLite does not
 * take a range of the index from a row value over an expression, hence
 * the cursor's due key twice. A contact's or a deal's few tasks are found
 * through tasks_contact or tasks_opportunity, not by walking the
 * location's (the + keeps the planner off the location's indexes) and
 * sorted. */
static sqlite3_stmt *part_statement(struct hl_req *req, const struct task_filters *f,
				    enum part part)
{
	int after = f->cursor && f->from == part;
	const char *sql = hl_sprintf(req, "SELECT " TASK_COLUMNS ", hex(json_array(%s, t.id))"
		" AS _cursor FROM tasks t LEFT JOIN contacts c ON c.id = t.contact_id"
		" WHERE %st.location_id = :location AND t.completed_at %s%s%s%s%s%s%s%s ORDER BY %s LIMIT :limit",
		part == OPEN ? "'o', " DUE_KEY : "'c', t.completed_at",
		f->contact || f->deal ? "+" : "",
		part == OPEN ? "IS NULL" : "IS NOT NULL",
		f->assignee ? " AND t.assignee_id = :assignee" : "",
		f->me ? " AND t.assignee_id = :me" : "",
		f->contact ? " AND t.contact_id = :contact" : "",
		f->deal ? " AND t.opportunity_id = :deal" : "",
		f->q ? " AND instr(fold(t.title), fold(:q))" : "",
		due_sql[f->due],
		!after ? "" : part == OPEN
			? " AND " DUE_KEY " >= json_extract(:cursor, '$[1]') AND (" DUE_KEY ", t.id) >"
			  " (json_extract(:cursor, '$[1]'), json_extract(:cursor, '$[2]'))"
			: " AND (t.completed_at, t.id) < (json_extract(:cursor, '$[1]'), json_extract(:cursor, '$[2]'))",
		part == OPEN ? DUE_KEY ", t.id" : "t.completed_at DESC, t.id DESC");
	sqlite3_stmt *st = hl_scoped_read(req, sql);
	if (!st)
		return NULL;
	hl_bind_int(st, ":assignee", f->assignee);
	hl_bind_int(st, ":me", f->me);
	hl_bind_int(st, ":contact", f->contact);
	hl_bind_int(st, ":deal", f->deal);
	hl_bind_text(st, ":cursor", f->cursor);
	hl_bind_text(st, ":q", f->q);
	return st;
}

/* A page being written: the rows it still has room for, the last row's
 * cursor, and whether a row beyond the page was seen. */
struct page {
	struct hl_json *json;
	int64_t room;
	char last[256];
	int more;
};

/* Write the rows of one part, up to the page's room; a row beyond it
 * means another page follows. */
static int write_part(struct hl_req *req, const struct task_filters *f, enum part part,
		      struct page *p)
{
	sqlite3_stmt *st = part_statement(req, f, part);
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":limit", p->room + 1);
	int rc, cursor_col = sqlite3_column_count(st) - 1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!p->room) {
			p->more = 1;
			break;
		}
		hl_json_row(p->json, st);
		p->room--;
		size_t n = (size_t)sqlite3_column_bytes(st, cursor_col);
		if (n >= sizeof(p->last))
			return HL_EDB; /* no key of ours is that long */
		memcpy(p->last, sqlite3_column_text(st, cursor_col), n + 1);
	}
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : HL_EDB;
}

int tasks_list(struct hl_req *req)
{
	struct task_filters f;
	struct page p = { 0 };
	if (read_filters(req, &f) || hl_query_int(req, "limit", 50, 1, 1000, &p.room))
		return 0;
	p.json = hl_reply_json(req, 200);
	hl_json_object(p.json);
	hl_json_key(p.json, "data");
	hl_json_array(p.json);
	int rc = 0;
	if (f.status != ONLY_DONE && (!f.cursor || f.from == OPEN))
		rc = write_part(req, &f, OPEN, &p);
	if (!rc && !p.more && f.status != ONLY_OPEN)
		rc = write_part(req, &f, DONE, &p);
	if (rc)
		return rc;
	hl_json_array_end(p.json);
	hl_json_key(p.json, "next_cursor");
	if (p.more)
		hl_json_string(p.json, p.last);
	else
		hl_json_null(p.json);
	hl_json_object_end(p.json);
	return 0;
}

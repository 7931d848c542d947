/* SPDX-License-Identifier: MIT */
/*
 * tasks.c: GET /api/agency/tasks, the open tasks of every sub-account:
 * each assignee's open and overdue ones counted ("assignees", the
 * unassigned as a null id), and the tasks themselves by due date, the
 * undated last, in keyset pages (?status=overdue for the overdue only,
 * ?assignee=ID|me, ?location_id= for one sub-account).
 *
 * Two statements: the counts add up what the tasks module keeps per
 * sub-account and assignee (OVERDUE_OF); the page merges each
 * sub-account's range of the open tasks' due-date index, stopping each
 * once the page is full.
 */
#include "agency.h"

#include <string.h>

/* Open tasks from the counts the tasks module keeps per sub-account and
 * assignee, and the overdue ones of each (OVERDUE_OF). */
static const char assignees_sql[] =
	"SELECT nullif(tc.assignee, 0) AS id, u.name, sum(tc.open) AS open,"
	" sum(" OVERDUE_OF("tc", "ot") ") AS overdue"
	" FROM open_task_totals tc" OVERDUE_JOIN("tc", "ot") " LEFT JOIN users u ON u.id = tc.assignee"
	" WHERE tc.location_id IN " AGENCY_LOCATIONS " AND tc.open > 0"
	" GROUP BY tc.assignee ORDER BY u.name COLLATE NOCASE, tc.assignee";

#define DUE "ifnull(t.due_at, 'z')"

/* The page first, then the sub-accounts' names (see contacts.c). */
static const char page_columns[] =
	"SELECT page.id, page.location_id, l.name AS location_name, page.title, page.due_at,"
	" page.assignee_id, page.contact_id, hex(json_array(ifnull(page.due_at, 'z'), page.id)) AS _cursor"
	" FROM (SELECT * FROM tasks t INDEXED BY %s"
	" WHERE t.location_id IN " AGENCY_LOCATIONS " AND t.completed_at IS NULL%s%s%s"
	" ORDER BY " DUE ", t.id LIMIT :limit) page JOIN locations l ON l.id = page.location_id"
	" ORDER BY ifnull(page.due_at, 'z'), page.id";

static int write_assignees(struct hl_req *req, struct hl_json *j, int64_t location)
{
	sqlite3_stmt *st = agency_read(req, assignees_sql, location);
	if (!st)
		return HL_EDB;
	hl_json_key(j, "assignees");
	return hl_json_rows(j, st);
}

static sqlite3_stmt *page(struct hl_req *req, const struct agency_list *list, int overdue,
			  int64_t assignee)
{
	char *sql = hl_sprintf(req, page_columns,
		assignee ? "tasks_open_assignee_due" : "tasks_open_due",
		overdue ? " AND " DUE " < " HL_SQL_NOW : "",
		assignee ? " AND t.assignee_id = :assignee" : "",
		list->cursor ? " AND (" DUE ", t.id) > (json_extract(:cursor, '$[0]'),"
			       " json_extract(:cursor, '$[1]'))" : "");
	sqlite3_stmt *st = agency_read(req, sql, list->location);
	if (st) {
		hl_bind_int(st, ":assignee", assignee);
		hl_bind_text(st, ":cursor", list->cursor);
	}
	return st;
}

int agency_tasks(struct hl_req *req)
{
	struct agency_list list;
	int64_t assignee;
	const char *status = hl_query(req, "status");
	if (hl_query_user(req, "assignee", &assignee))
		return 0;
	if (status && strcmp(status, "open") && strcmp(status, "overdue"))
		return hl_reply_error(req, 400, "bad_request", "status is open or overdue");
	int rc = agency_list_read(req, &list, "si");
	if (rc)
		return rc == HL_EINVAL ? 0 : rc;
	sqlite3_stmt *st = page(req, &list, status && !strcmp(status, "overdue"), assignee);
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":limit", list.limit + 1);
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	rc = write_assignees(req, j, list.location);
	if (!rc)
		rc = hl_json_page(req, j, st, list.limit, 7);
	hl_json_object_end(j);
	return rc;
}

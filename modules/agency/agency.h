/* SPDX-License-Identifier: MIT */
/*
 * agency.h: the agency module's parts. agency.c registers them;
 * projects.c loads every sub-account's counts in one statement and
 * answers GET /api/agency/projects; overview.c adds them up, with a series
 * by day, for GET /api/agency/overview; contacts.c, deals.c and tasks.c
 * answer the lists across sub-accounts.
 *
 * Every statement reads through hl_agency_read: its locations are those of
 * the caller's agency (AGENCY_LOCATIONS), never a statement per location.
 */
#ifndef AGENCY_H
#define AGENCY_H

#include <hyperlevel/hyperlevel.h>

/* The agency's sub-accounts that can be opened, or only :only_location when
 * it is not 0 (?location_id=, see agency_location). */
#define AGENCY_LOCATIONS \
	"(SELECT id FROM locations WHERE agency_id = :agency AND disabled_at IS NULL" \
	" AND (:only_location = 0 OR id = :only_location))"

/* The overdue tasks of `tc`, a row of open_task_totals (a sub-account's
 * open tasks of one assignee), with `ot` its row of overdue_task_totals
 * (LEFT JOINed): those due before today, which the tasks module keeps
 * counted, plus today's due before now (a range of an index). A few rows,
 * however many tasks are overdue or due ahead. */
#define OVERDUE_OF(tc, ot) \
	"(coalesce(" ot ".overdue, 0) + " \
	LATE_TODAY(tc, " AND assignee_id IS nullif(" tc ".assignee, 0)") ")"
#define OVERDUE_JOIN(tc, ot) \
	" LEFT JOIN overdue_task_totals " ot " ON " ot ".location_id = " tc ".location_id" \
	" AND " ot ".assignee = " tc ".assignee"
/* Today's overdue tasks of tc's sub-account, of those `which` picks
 * (" AND ..."). */
#define LATE_TODAY(tc, which) \
	"(SELECT count(*) FROM tasks WHERE location_id = " tc ".location_id" \
	" AND completed_at IS NULL" which \
	" AND due_at >= " HL_SQL_MIDNIGHT("(SELECT timezone FROM locations z" \
	" WHERE z.id = " tc ".location_id)", 0) " AND due_at < " HL_SQL_NOW ")"
/* Every statement of the module reads SQLite's clock (HL_SQL_NOW), as the
 * tasks module's overdue_task_totals does: the tasks overdue before today
 * and today's then meet at one midnight. */

/* 1 when the invoices module is loaded, which the agency wants but works
 * without (set by init): its figures are then null, and each answer says
 * so with hl_json_absent_modules. Arrays of two statement texts are
 * indexed by it. */
extern int agency_invoices;

/* The agency's totals over every sub-account, in one row: sub_accounts,
 * json_counts (as /api/project's counts) and health_score (the mean of
 * every scored contact). Its :q (a name searched for) is left NULL. */
extern const char *const projects_totals_sql[2];

/* The first step of every handler: the caller must see every record (an
 * "assigned only" agency user is answered 403), and the sub-account the
 * screen is narrowed to with ?location_id= is read: *location is 0 when
 * absent. On a bad id it answers 400, on one that is not an open
 * sub-account of the caller's agency 404. After an answer it returns
 * HL_EINVAL (the handler then returns 0); HL_EDB. The agency's screens
 * span sub-accounts, so the current location (X-Location-Id) does not
 * narrow them: their routes take none. */
int agency_location(struct hl_req *req, int64_t *location);
/* A list's query: limit (50 by default, at most 1000), the keyset cursor
 * of `shape` (see hl_query_keyset) and the sub-account, read as
 * agency_location reads it. 0, or what agency_location returns (after an
 * answer to bad input, HL_EINVAL). */
struct agency_list {
	int64_t limit, location;
	const char *cursor;
};
int agency_list_read(struct hl_req *req, struct agency_list *list, const char *shape);
/* hl_agency_read with :only_location bound to `location` (0: every one). */
sqlite3_stmt *agency_read(struct hl_req *req, const char *sql, int64_t location);

int agency_projects(struct hl_req *req);      /* projects.c */
int agency_overview(struct hl_req *req);      /* overview.c */
int agency_contacts(struct hl_req *req);      /* contacts.c */
int agency_deals(struct hl_req *req);         /* deals.c */
int agency_tasks(struct hl_req *req);         /* tasks.c */

#endif

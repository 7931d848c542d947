/* SPDX-License-Identifier: MIT */
/*
 * late.c: the tasks.late job. late_counts (migration 009) counts each
 * sub-account's and assignee's open tasks due before its row's day; the
 * triggers keep that count as tasks change, and this job moves the day up
 * to today once the sub-account's midnight has passed, adding the open tasks due on
 * the days it passes. Readers add those days themselves until it has run,
 * so the figures are right at any time; the job only keeps their range
 * short. A row made by a trigger starts below every day and is counted up
 * here.
 */
#include "tasks.h"

#define BATCH 64

/* Up to BATCH rows behind their sub-account's today: each moves to that
 * day with the tasks due on the days between. Each sub-account has its
 * own today (its time zone), so the rows behind are found through their
 * locations, a row per sub-account and assignee. */
#define TODAY_OF(row) "local_day(unixepoch(), (SELECT timezone FROM locations WHERE id = " \
	row ".location_id))"
static const char catch_up_sql[] =
	"UPDATE late_counts SET day = " TODAY_OF("late_counts") ", late = late +"
	" (SELECT coalesce(sum(d.open), 0) FROM due_days d"
	" WHERE d.location_id = late_counts.location_id AND d.assignee = late_counts.assignee"
	" AND d.day >= late_counts.day AND d.day < " TODAY_OF("late_counts") ")"
	" WHERE (location_id, assignee) IN (SELECT l.location_id, l.assignee FROM late_counts l"
	" WHERE l.day < " TODAY_OF("l") " LIMIT :batch)";

int tasks_late_slice(struct hl_job_run *run)
{
	sqlite3_stmt *st = hl_stmt(hl_job_db(run), catch_up_sql);
	hl_bind_int(st, ":batch", BATCH);
	for (;;) {
		int64_t moved = hl_step_changes(st);
		if (moved < 0)
			return (int)moved;
		if (moved < BATCH)
			return HL_JOB_DONE;
		if (hl_job_over_budget(run))
			return HL_JOB_MORE;
	}
}

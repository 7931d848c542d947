/* SPDX-License-Identifier: MIT */
/*
 * deals.c: a deal's tasks when the deal is deleted (opportunity.deleted):
 * they keep living, about no deal, so no page links to a deal that is
 * gone. The deals' table is the opportunities module's: this only reads
 * the event.
 */
#include "tasks.h"

int tasks_deal_deleted(struct hl_job_run *run, const struct hl_event *ev)
{
	sqlite3_stmt *st = hl_stmt_scoped(hl_job_db(run), ev->location_id,
		"UPDATE tasks SET opportunity_id = NULL,"
		" updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
		" WHERE opportunity_id = :deal AND location_id = :location");
	hl_bind_int(st, ":deal", ev->subject_id);
	int64_t changed = hl_step_changes(st);
	if (changed <= 0)
		return (int)changed;
	return hl_job_publish_assigned(run, "task.updated", ev->location_id, 0, HL_EVERYONE, "{}");
}

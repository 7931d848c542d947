/* SPDX-License-Identifier: MIT */
/*
 * tasks.h: the tasks module's parts. tasks.c registers them (one task's
 * GET as data: TASK_RECORD_SQL); list.c answers the list; write.c
 * creates, changes, deletes, completes and reopens tasks; late.c keeps the overdue counts up to
 * date (the tasks.late job); deals.c lets a deal's tasks go when it is
 * deleted.
 */
#ifndef TASKS_H
#define TASKS_H

#include <hyperlevel/hyperlevel.h>

/* The columns of a task as the list and the record write them (t: tasks,
 * c: the task's contact, joined by a LEFT JOIN). */
#define TASK_COLUMNS "t.id, t.title, t.body, t.due_at, t.completed_at," \
	" CASE WHEN t.completed_at IS NULL THEN 'open' ELSE 'completed' END AS status," \
	" t.contact_id, trim(c.first_name || ' ' || c.last_name) AS contact_name," \
	" t.assignee_id, t.opportunity_id, t.created_at, t.updated_at"
/* One task of the location with its contact's name, by :id (and :me, for
 * "assigned only" callers): GET /api/tasks/:id, and what the writes answer. */
#define TASK_RECORD_SQL "SELECT " TASK_COLUMNS \
	" FROM tasks t LEFT JOIN contacts c ON c.id = t.contact_id" \
	" WHERE t.id = :id AND t.location_id = :location AND (:me = 0 OR t.assignee_id = :me)"


int tasks_list(struct hl_req *req);                /* list.c */
/* Answer task `id` of the location with `status`; 404 if none (or not the
 * caller's own, for "assigned only" callers). */
int tasks_reply_record(struct hl_req *req, int status, int64_t id); /* write.c */
int tasks_create(struct hl_req *req);
int tasks_change(struct hl_req *req);
int tasks_delete(struct hl_req *req);
int tasks_complete(struct hl_req *req);
int tasks_reopen(struct hl_req *req);
int tasks_late_slice(struct hl_job_run *run);      /* late.c */
/* A deleted deal's tasks keep living, about no deal. */
int tasks_deal_deleted(struct hl_job_run *run, const struct hl_event *ev); /* deals.c */

#endif

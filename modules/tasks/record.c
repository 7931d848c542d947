/* SPDX-License-Identifier: MIT */
/*
 * record.c: GET /api/tasks/:id, one task with its contact's name; the
 * writes answer with it too.
 */
#include "tasks.h"

static const char record_sql[] =
	"SELECT " TASK_COLUMNS " FROM tasks t LEFT JOIN contacts c ON c.id = t.contact_id"
	" WHERE t.id = :id AND t.location_id = :location AND (:me = 0 OR t.assignee_id = :me)";

int tasks_reply_record(struct hl_req *req, int status, int64_t id)
{
	return hl_reply_record(req, status, id, "task", record_sql);
}

int tasks_record(struct hl_req *req)
{
	return hl_reply_path_record(req, "task", record_sql);
}

/* SPDX-License-Identifier: MIT */
/*
 * tasks.c: the tasks module: to-dos for a person, about a contact or not,
 * and about a deal of the opportunities module when it is on (through its
 * service opportunities.get: this module never reads its tables).
 * Its routes, migrations and job (late.c). Every query is scoped by the current location
 * (hl_location_id); "assigned only" users see and touch only the tasks
 * assigned to them. Each write publishes a task.* event naming the task's
 * contact, which the contacts module counts as the contact's activity.
 * Its browser page is the list (webui/tasks.js).
 */
#include "tasks.h"

#include "migrations.h"

static const char *const requires[] = { "contacts", NULL };
static const char *const wants[] = { "opportunities", NULL };

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/tasks", .handler = tasks_list,
	  .cache_ms = 60000, .reads = "tasks contacts:lookup" },
	{ .method = "GET", .pattern = "/api/tasks/:id", .record = "task",
	  .record_sql = TASK_RECORD_SQL,
	  .cache_ms = 60000, .reads = "tasks contacts:lookup" },
	{ .method = "POST", .pattern = "/api/tasks", .handler = tasks_create },
	{ .method = "PATCH", .pattern = "/api/tasks/:id", .handler = tasks_change },
	{ .method = "DELETE", .pattern = "/api/tasks/:id", .handler = tasks_delete },
	{ .method = "POST", .pattern = "/api/tasks/:id/complete", .handler = tasks_complete },
	{ .method = "POST", .pattern = "/api/tasks/:id/reopen", .handler = tasks_reopen },
};

/* Moves the overdue counts (late_counts) up to today after midnight. */
static const struct hl_job jobs[] = {
	{ .name = "late", .period_ms = 900 * 1000, .slice = tasks_late_slice },
};

/* The browser page (webui/tasks.js), in the menu, opening with its list. */
static const char *const tasks_uses[] = { "tasks.css", "tasks-form.js", NULL };

static const struct hl_page pages[] = {
	{ .path = "/tasks", .script = "tasks.js", .label = "Tasks", .order = 40,
	  .data = "/api/tasks", .uses = tasks_uses, .search = "search.js" },
	{ .path = "/tasks/:id", .script = "tasks.js", .order = 40, .uses = tasks_uses },
};

/* What is kept by the sub-account's days, made again when its zone changes
 * (through the migration's moves view, which knows how a day is counted). */
static const struct hl_recount recounts[] = {
	/* late_counts is made again from its lowest day as due_days fills
	 * (its triggers), and counted up by the late job. */
	{ "late_counts", "DELETE FROM late_counts WHERE location_id = :location" },
	{ "due_days", "DELETE FROM due_days WHERE location_id = :location" },
	{ "due_days", "INSERT INTO due_day_moves SELECT location_id, assignee_id, due_at, 1 FROM tasks"
	  " WHERE location_id = :location AND completed_at IS NULL" },
};

/* The records people know, as the audit log names them. */
static const struct hl_record_kind records[] = {
	{ .table = "tasks", .noun = "task", .name_sql = "SELECT title FROM tasks WHERE id = :id" },
};

/* How a task's events read on its contact's timeline, with the deal it
 * is for (its name, as the event carries it). The task list shows the
 * contact's tasks. */
#define TASK_LINE(what) "SELECT " what " || ifnull(' for deal ' || json_extract(:data, '$.deal'), '')," \
	" '/tasks?contact=' || contact_id FROM tasks WHERE id = :subject AND location_id = :location"

static const struct hl_event_line event_lines[] = {
	{ "task.created", TASK_LINE("'Task ' || title || ' created'") },
	{ "task.completed", TASK_LINE("'Task ' || title || ' done'") },
	{ "task.reopened", TASK_LINE("'Task ' || title || ' reopened'") },
};

/* A deal deleted lets its tasks go (deals.c). */
static const struct hl_event_handler handlers[] = {
	{ .event = "opportunity.deleted", .handle = tasks_deal_deleted },
};

HL_MODULE(.name = "tasks", .version = "0.3.0", .requires = requires, .wants = wants,
	  .summary = "tasks for a person, about a contact", .migrations = HL_TABLE(migrations),
	  .routes = HL_TABLE(routes), .jobs = HL_TABLE(jobs), .pages = HL_TABLE(pages),
	  .recounts = HL_TABLE(recounts), .records = HL_TABLE(records),
	  .event_lines = HL_TABLE(event_lines), .handlers = HL_TABLE(handlers));


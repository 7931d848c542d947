/* SPDX-License-Identifier: MIT */
/*
 * project.c: GET /api/project, the overview of the current sub-account:
 * its settings, the people who may open it, the server's modules and
 * their states, its counts (those of the dashboard, with every open task
 * and deal) and its health score, the mean of its scored contacts'
 * (the contacts module keeps each contact's). Three statements whatever
 * the size; cached by the core like the dashboard.
 */
#include "reports.h"

static const char location_sql[] =
	"SELECT id, name, timezone, created_at, updated_at FROM locations WHERE id = :location";

/* The core's view of who may open a location (location_users). */
static const char users_sql[] =
	"SELECT u.id, u.name, u.email, u.role,"
	" CASE WHEN u.assigned_only THEN 'true' ELSE 'false' END AS json_assigned_only"
	" FROM location_users lu JOIN users u ON u.id = lu.user_id"
	" WHERE lu.location_id = :location ORDER BY u.name COLLATE NOCASE, u.id";

static int write_location(struct hl_req *req, struct hl_json *j)
{
	sqlite3_stmt *st = hl_scoped_read(req, location_sql);
	if (!st)
		return HL_EDB;
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		hl_json_key(j, "location");
		hl_json_row(j, st);
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? 0 : HL_EDB; /* the core admitted the request to it */
}

static int write_users(struct hl_req *req, struct hl_json *j)
{
	sqlite3_stmt *st = hl_scoped_read(req, users_sql);
	if (!st)
		return HL_EDB;
	hl_json_key(j, "users");
	return hl_json_rows(j, st);
}

/* Which features the sub-account has: names and states, which a screen
 * needs; versions are for operators (`hyperlevel modules`). */
static void write_modules(struct hl_req *req, struct hl_json *j)
{
	const char *name, *version, *state;
	hl_json_key(j, "modules");
	hl_json_array(j);
	for (int i = 0; !hl_module_info(req, i, &name, &version, &state); i++) {
		hl_json_object(j);
		hl_json_key(j, "name");
		hl_json_string(j, name);
		hl_json_key(j, "state");
		hl_json_string(j, state);
		hl_json_object_end(j);
	}
	hl_json_array_end(j);
}

/* The counts, named as the dashboard names the ones it also has. */
static void write_counts(struct hl_json *j, const struct figures *f)
{
	hl_json_key(j, "counts");
	hl_json_object(j);
	hl_json_key(j, "contacts");
	hl_json_int(j, f->contacts);
	reports_write_pair(j, "deals", "open", f->deals_open, "open_value_cents",
			   f->deals_open_cents);
	figures_write_unread(j, f);
	reports_write_pair(j, "tasks", "open", f->tasks_open, "overdue", f->tasks_overdue);
	figures_write_invoices(j, f, -1);
	hl_json_object_end(j);
}

int reports_project(struct hl_req *req)
{
	struct figures *f = hl_alloc(req, sizeof(*f));
	period_init(&f->period, req, 1, time(NULL));
	int rc = figures_load_counts(req, f);
	if (rc)
		return rc;
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	if ((rc = write_location(req, j)) || (rc = write_users(req, j)))
		return rc;
	write_modules(req, j);
	write_counts(j, f);
	hl_json_key(j, "health_score");
	if (f->health < 0)
		hl_json_null(j);
	else
		hl_json_int(j, f->health);
	hl_json_absent_modules(req, j);
	hl_json_object_end(j);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * dashboards.c: the dashboards a location arranges: the list (with each
 * one's number of widgets), one dashboard with its widgets in position
 * order, creating, renaming and deleting (with its widgets). The body is
 * checked member by member (422 naming it, unknown members refused); a
 * dashboard of another location is 404. Each write publishes
 * dashboard.created, .updated or .deleted.
 */
#include "reports.h"

#define NAME_MAX_CHARS 200

static const char *const dashboard_keys[] = { "name", NULL };

/* A dashboard holds a few widgets: SQLite builds their array. */
static const char record_sql[] =
	"SELECT d.id, d.name, d.created_by, d.created_at, d.updated_at,"
	" (SELECT json_group_array(json_object('id', o.id, 'kind', o.kind, 'title', o.title,"
	"  'config', json(o.config), 'position', o.position))"
	"  FROM (SELECT * FROM widgets WHERE dashboard_id = d.id ORDER BY position, id) o)"
	" AS json_widgets FROM dashboards d WHERE d.id = :id AND d.location_id = :location";

static const char list_sql[] =
	"SELECT d.id, d.name, d.created_by, d.created_at, d.updated_at,"
	" (SELECT count(*) FROM widgets w WHERE w.dashboard_id = d.id) AS widgets,"
	" hex(json_array(d.id)) AS _cursor FROM dashboards d"
	" WHERE d.location_id = :location AND d.id > coalesce(json_extract(:after, '$[0]'), 0)"
	" ORDER BY d.id LIMIT :limit";

int dashboards_exists(struct hl_req *req, int64_t id, int write)
{
	static const char sql[] = "SELECT 1 FROM dashboards WHERE id = :id AND location_id = :location";
	return (int)(write ? hl_scoped_write_int(req, sql, id) : hl_scoped_read_int(req, sql, id));
}

static int reply_record(struct hl_req *req, int status, int64_t id)
{
	return hl_reply_record(req, status, id, "dashboard", record_sql);
}

int dashboards_list(struct hl_req *req)
{
	int64_t limit;
	const char *after;
	if (hl_query_int(req, "limit", 50, 1, 1000, &limit) || hl_query_keyset(req, "cursor", "i", &after))
		return 0;
	sqlite3_stmt *st = hl_scoped_read(req, list_sql);
	hl_bind_text(st, ":after", after);
	hl_bind_int(st, ":limit", limit + 1);
	return hl_reply_page(req, st, limit, 6);
}

int dashboards_record(struct hl_req *req)
{
	int64_t id;
	if (hl_param_id(req, "id", &id))
		return 0;
	return reply_record(req, 200, id);
}

/* The name of the body: 422 (HL_EINVAL) unless 1 to 200 characters. */
static int read_name(struct hl_req *req, const char **name)
{
	*name = NULL;
	int rc = hl_fields_only(req, 0, dashboard_keys);
	if (rc >= 0)
		rc = hl_field_text(req, 0, "name", NAME_MAX_CHARS, name);
	if (rc < 0)
		return rc;
	if (!*name || !**name)
		return hl_reply_invalid(req, "name", "required, 1 to 200 characters");
	return 0;
}

int dashboards_create(struct hl_req *req)
{
	const char *name;
	if (read_name(req, &name))
		return 0;
	sqlite3_stmt *st = hl_scoped_write(req, "INSERT INTO dashboards (location_id, name, created_by)"
					   " VALUES (:location, :name, nullif(:user, 0)) RETURNING id");
	hl_bind_text(st, ":name", name);
	hl_bind_int(st, ":user", hl_user_id(req));
	int64_t id;
	if (hl_step_int(st, &id) <= 0)
		return HL_EDB;
	int rc = hl_publish_assigned(req, "dashboard.created", id, HL_EVERYONE, NULL);
	return rc ? rc : reply_record(req, 201, id);
}

int dashboards_change(struct hl_req *req)
{
	int64_t id;
	const char *name;
	if (hl_param_id(req, "id", &id) || read_name(req, &name))
		return 0;
	sqlite3_stmt *st = hl_scoped_write(req, "UPDATE dashboards SET name = :name,"
		" updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
		" WHERE id = :id AND location_id = :location RETURNING id");
	hl_bind_text(st, ":name", name);
	hl_bind_int(st, ":id", id);
	int64_t done;
	int rc = hl_step_int(st, &done);
	if (rc <= 0)
		return rc < 0 ? rc : hl_reply_error(req, 404, "not_found", "no such dashboard");
	rc = hl_publish_assigned(req, "dashboard.updated", id, HL_EVERYONE, NULL);
	return rc ? rc : reply_record(req, 200, id);
}

int dashboards_delete(struct hl_req *req)
{
	static const char *const deletes[] = {
		"DELETE FROM widgets WHERE dashboard_id = :id AND location_id = :location",
		"DELETE FROM dashboards WHERE id = :id AND location_id = :location",
		NULL,
	};
	int64_t id;
	if (hl_param_id(req, "id", &id))
		return 0;
	int rc = hl_delete_if_empty(req, id, "dashboard", NULL, NULL, deletes);
	if (rc <= 0)
		return rc;
	rc = hl_publish_assigned(req, "dashboard.deleted", id, HL_EVERYONE, NULL);
	return rc ? rc : hl_reply_empty(req);
}

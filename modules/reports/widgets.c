/* SPDX-License-Identifier: MIT */
/*
 * widgets.c: a dashboard's widgets: adding one, changing and deleting it.
 * A widget has a kind (one of the widgets table's CHECK), a title, a
 * position (a sort key, ties by id; the end by default) and a config:
 * {"period": "7d" | "30d" | "90d", "group": "day" | "week", "pipeline_id":
 * a pipeline of the location, for pipeline_value only}, kept whole with its
 * defaults filled in. Each write publishes widget.created, .updated or
 * .deleted.
 */
#include "reports.h"

#include <string.h>

#define TITLE_MAX_CHARS 200
#define POSITION_MAX 1000000

static const char *const widget_keys[] = { "kind", "title", "config", "position", NULL };
static const char *const config_keys[] = { "period", "group", "pipeline_id", NULL };
static const char *const kinds[] = { "contacts_new", "pipeline_value", "deals_won", "messages",
				     "tasks_open", "tasks_overdue", "invoices_due", "revenue", NULL };

enum { KIND = 1, TITLE = 2, CONFIG = 4, POSITION = 8 };

/* What a create or a change says; a member whose bit is clear in `given`
 * is left as it is. `config` is the whole config, as stored. */
struct widget_input {
	const char *kind, *title, *config;
	int64_t position;
	unsigned given;
};

static int known_kind(const char *kind)
{
	for (int i = 0; kind && kinds[i]; i++)
		if (!strcmp(kind, kinds[i]))
			return 1;
	return 0;
}

int reports_needs_invoices(const char *kind)
{
	return kind && (!strcmp(kind, "invoices_due") || !strcmp(kind, "revenue"));
}

static int note(int rc, unsigned bit, unsigned *given)
{
	if (rc > HL_FIELD_ABSENT)
		*given |= bit;
	return rc;
}

/* The config at token `tok` (or the defaults, when < 0) for a widget of
 * `kind`, as stored; answers 422 itself (HL_EINVAL). */
static int read_config(struct hl_req *req, int tok, const char *kind, const char **out)
{
	const char *period = NULL, *group = NULL;
	int64_t pipeline = 0;
	if (tok >= 0 && hl_body_type(req, tok) != HL_JSON_OBJECT)
		return hl_reply_invalid(req, "config", "an object");
	int rc = tok < 0 ? 0 : hl_fields_only(req, tok, config_keys);
	if (tok >= 0 && rc >= 0)
		rc = hl_field_text(req, tok, "period", 16, &period);
	if (tok >= 0 && rc >= 0)
		rc = hl_field_text(req, tok, "group", 16, &group);
	if (tok >= 0 && rc >= 0)
		rc = hl_field_int(req, tok, "pipeline_id", 1, INT64_MAX, &pipeline);
	if (rc < 0)
		return rc;
	if (period && !period_days(period))
		return hl_reply_invalid(req, "config.period", "7d, 30d or 90d");
	if (group && strcmp(group, "day") && strcmp(group, "week"))
		return hl_reply_invalid(req, "config.group", "day or week");
	if (pipeline && strcmp(kind, "pipeline_value"))
		return hl_reply_invalid(req, "config.pipeline_id", "only for a pipeline_value widget");
	rc = !pipeline ? 1 : (int)hl_scoped_read_int(req, "SELECT 1 FROM pipelines"
						     " WHERE id = :id AND location_id = :location", pipeline);
	if (rc != 1)
		return rc < 0 ? rc : hl_reply_invalid(req, "config.pipeline_id", "no pipeline of this sub-account");
	*out = hl_sprintf(req, "{\"period\":\"%s\",\"group\":\"%s\"%s}", period ? period : "30d",
			  group ? group : "day",
			  pipeline ? hl_sprintf(req, ",\"pipeline_id\":%lld", (long long)pipeline) : "");
	return 0;
}

/* The body as a widget_input for a widget whose kind is now `kind` (NULL:
 * a new one); answers 422 itself (HL_EINVAL). */
static int read_input(struct hl_req *req, struct widget_input *in, const char *kind)
{
	memset(in, 0, sizeof(*in));
	int rc = hl_fields_only(req, 0, widget_keys);
	if (rc >= 0)
		rc = note(hl_field_text(req, 0, "kind", 32, &in->kind), KIND, &in->given);
	if (rc >= 0)
		rc = note(hl_field_text(req, 0, "title", TITLE_MAX_CHARS, &in->title), TITLE, &in->given);
	if (rc >= 0)
		rc = note(hl_field_int(req, 0, "position", 0, POSITION_MAX, &in->position), POSITION,
			  &in->given);
	if (rc < 0)
		return rc;
	if ((!kind || in->given & KIND) && !known_kind(in->kind))
		return hl_reply_invalid(req, "kind", "one of contacts_new, pipeline_value, deals_won,"
					" messages, tasks_open, tasks_overdue, invoices_due, revenue");
	if (in->given & KIND && !reports_invoices && reports_needs_invoices(in->kind))
		return hl_reply_invalid(req, "kind", "%s needs the invoices module, which is not"
					" enabled", in->kind);
	if ((!kind || in->given & TITLE) && (!in->title || !*in->title))
		return hl_reply_invalid(req, "title", "required, 1 to 200 characters");
	if (in->given & POSITION && hl_body_type(req, hl_body_find(req, 0, "position")) == HL_JSON_NULL)
		return hl_reply_invalid(req, "position", "an integer from 0 to 1000000");
	int tok = hl_body_find(req, 0, "config");
	if (tok >= 0 && hl_body_type(req, tok) != HL_JSON_NULL)
		in->given |= CONFIG;
	if (!kind || in->given & CONFIG)
		return read_config(req, in->given & CONFIG ? tok : -1, in->kind ? in->kind : kind,
				   &in->config);
	return 0;
}

static int reply_widget(struct hl_req *req, int status, int64_t id)
{
	return hl_reply_record(req, status, id, "widget", "SELECT id, dashboard_id, kind, title,"
		" json(config) AS json_config, position FROM widgets"
		" WHERE id = :id AND location_id = :location");
}

/* Widget `id` at the position asked for (a sort key: the page renumbers
 * the others itself), or (`last`) after its dashboard's last. */
static int place(struct hl_req *req, const struct widget_input *in, int64_t id, int last)
{
	if (!(in->given & POSITION) && !last)
		return 0;
	return hl_move_to_position(req, "widgets", "dashboard_id", id,
				   in->given & POSITION ? in->position : HL_POSITION_LAST, 0) < 0
		? HL_EDB : 0;
}

static int publish(struct hl_req *req, const char *event, int64_t id, int64_t dashboard)
{
	return hl_publish_assigned(req, event, id, HL_EVERYONE,
				   hl_sprintf(req, "{\"dashboard_id\":%lld}", (long long)dashboard));
}

int widgets_create(struct hl_req *req)
{
	int64_t dashboard;
	struct widget_input in;
	if (hl_param_id(req, "id", &dashboard))
		return 0;
	int rc = dashboards_exists(req, dashboard, 1);
	if (rc != 1)
		return rc < 0 ? rc : hl_reply_error(req, 404, "not_found", "no such dashboard");
	if (read_input(req, &in, NULL))
		return 0;
	sqlite3_stmt *st = hl_scoped_write(req, "INSERT INTO widgets (location_id, dashboard_id, kind,"
		" title, config, position) VALUES (:location, :dashboard, :kind, :title, :config, 0)"
		" RETURNING id");
	hl_bind_int(st, ":dashboard", dashboard);
	hl_bind_text(st, ":kind", in.kind);
	hl_bind_text(st, ":title", in.title);
	hl_bind_text(st, ":config", in.config);
	int64_t id;
	if (hl_step_int(st, &id) <= 0 || place(req, &in, id, 1))
		return HL_EDB;
	rc = publish(req, "widget.created", id, dashboard);
	return rc ? rc : reply_widget(req, 201, id);
}

/* The widget's dashboard and kind (in the arena): 1, 0 when the location
 * has no such widget, or HL_EDB. */
static int load_widget(struct hl_req *req, int64_t id, int64_t *dashboard, const char **kind)
{
	sqlite3_stmt *st = hl_scoped_read(req, "SELECT dashboard_id, kind FROM widgets"
					  " WHERE id = :id AND location_id = :location");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":id", id);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*dashboard = sqlite3_column_int64(st, 0);
		*kind = hl_strndup(req, (const char *)sqlite3_column_text(st, 1),
				   (size_t)sqlite3_column_bytes(st, 1));
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : HL_EDB;
}

int widgets_change(struct hl_req *req)
{
	int64_t id, dashboard;
	const char *kind;
	struct widget_input in;
	if (hl_param_id(req, "id", &id))
		return 0;
	if (!hl_write_begin(req)) /* what is read next is what is changed */
		return HL_EDB;
	int rc = load_widget(req, id, &dashboard, &kind);
	if (rc != 1)
		return rc < 0 ? rc : hl_reply_error(req, 404, "not_found", "no such widget");
	if (read_input(req, &in, kind))
		return 0;
	/* A widget that stops being pipeline_value loses its pipeline. */
	sqlite3_stmt *st = hl_scoped_write(req, "UPDATE widgets SET"
		" kind = CASE WHEN :given & 1 THEN :kind ELSE kind END,"
		" title = CASE WHEN :given & 2 THEN :title ELSE title END,"
		" config = CASE WHEN :given & 4 THEN :config WHEN :given & 1 AND :kind <> 'pipeline_value'"
		" THEN json_remove(config, '$.pipeline_id') ELSE config END"
		" WHERE id = :id AND location_id = :location RETURNING id");
	hl_bind_int(st, ":given", in.given);
	hl_bind_text(st, ":kind", in.kind);
	hl_bind_text(st, ":title", in.title);
	hl_bind_text(st, ":config", in.config);
	hl_bind_int(st, ":id", id);
	int64_t done;
	if (hl_step_int(st, &done) <= 0 || place(req, &in, id, 0))
		return HL_EDB;
	rc = publish(req, "widget.updated", id, dashboard);
	return rc ? rc : reply_widget(req, 200, id);
}

int widgets_delete(struct hl_req *req)
{
	int64_t id, dashboard;
	if (hl_param_id(req, "id", &id))
		return 0;
	sqlite3_stmt *st = hl_scoped_write(req, "DELETE FROM widgets WHERE id = :id"
					   " AND location_id = :location RETURNING dashboard_id");
	hl_bind_int(st, ":id", id);
	int rc = hl_step_int(st, &dashboard);
	if (rc <= 0)
		return rc < 0 ? rc : hl_reply_error(req, 404, "not_found", "no such widget");
	rc = publish(req, "widget.deleted", id, dashboard);
	return rc ? rc : hl_reply_empty(req);
}

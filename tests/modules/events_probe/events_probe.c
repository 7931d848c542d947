/* SPDX-License-Identifier: MIT */
/*
 * events_probe.c: a test module for events. Its route publishes the events
 * a test sends (next to a write of its own, answering the status asked
 * for, so a test can make the request roll back) and answers what each
 * hl_publish returned; its handlers write every event they are given into
 * events_probe_seen, fail on purpose, or publish from a handler. Built
 * again with EVENTS_PROBE_BAD_HANDLER as a module the loader must refuse.
 */
#include <hyperlevel/hyperlevel.h>

#include <stdio.h>

#include "migrations.h"

#ifndef EVENTS_PROBE_NAME
#define EVENTS_PROBE_NAME "events_probe"
#endif
#define P "/api/" EVENTS_PROBE_NAME

static int publish(struct hl_req *req);
static int on_any(struct hl_job_run *run, const struct hl_event *ev);
static int on_created(struct hl_job_run *run, const struct hl_event *ev);
static int on_broken(struct hl_job_run *run, const struct hl_event *ev);
static int on_chain(struct hl_job_run *run, const struct hl_event *ev);
static int on_contact(struct hl_job_run *run, const struct hl_event *ev);

static const struct hl_route routes[] = {
	{ .method = "POST", .pattern = P "/publish", .handler = publish },
};

/* Handlers run in table order: "thing.*" sees every event first. */
static const struct hl_event_handler handlers[] = {
	{ .event = "thing.*", .handle = on_any },
	{ .event = "thing.created", .handle = on_created },
	{ .event = "thing.broken", .handle = on_broken },
	{ .event = "thing.chain", .handle = on_chain },
	{ .event = "contact.*", .handle = on_contact }, /* what the contacts module says */
#ifdef EVENTS_PROBE_BAD_HANDLER
	{ .event = "Thing.Created", .handle = on_any },
#endif
};

static int init(struct hl_mod *mod)
{
	int rc = hl_add_migrations(mod, migrations);
	if (!rc)
		rc = hl_add_routes(mod, routes);
	if (!rc)
		rc = hl_add_event_handlers(mod, handlers);
	return rc;
}

HL_MODULE(.name = EVENTS_PROBE_NAME, .version = "1.0.0", .init = init,
	  .summary = "a test module for events");

/* ---- the route ------------------------------------------------------------ */

/* Publish the body's event at `item` ({"name", "subject", "data": JSON
 * text or null, "assigned_to": a user, -1 for everyone, if given}) after writing a row, unless `write` is 0; returns what
 * hl_publish returned. */
static int publish_one(struct hl_req *req, int item, int write)
{
	const char *name = hl_body_string(req, hl_body_find(req, item, "name"));
	int64_t subject = 0;
	int tok = hl_body_find(req, item, "subject");
	if (tok >= 0 && hl_body_int(req, tok, &subject))
		return HL_EINVAL;
	const char *data = hl_body_string(req, hl_body_find(req, item, "data"));
	int64_t assigned_to = 0;
	tok = hl_body_find(req, item, "assigned_to");
	if (tok >= 0 && hl_body_int(req, tok, &assigned_to))
		return HL_EINVAL;
	if (write) {
		sqlite3_stmt *st = hl_scoped_write(req,
			"INSERT INTO events_probe_writes (location_id, name) VALUES (:location, ?1)");
		if (!st)
			return HL_EDB;
		sqlite3_bind_text(st, 1, name ? name : "", -1, SQLITE_TRANSIENT);
		if (sqlite3_step(st) != SQLITE_DONE)
			return HL_EDB;
	}
	return tok >= 0 ? hl_publish_assigned(req, name, subject, assigned_to, data)
			: hl_publish(req, name, subject, data);
}

/* POST /api/events_probe/publish {"events": [...], "status": 201,
 * "write": true}: answers {"rc": [what each hl_publish returned]} with
 * `status` (one of 400 and over rolls the writes and events back). */
static int publish(struct hl_req *req)
{
	static const char *const keys[] = { "events", "status", "write", NULL };
	int64_t status;
	int write, has_status, has_write;
	if (hl_fields_only(req, 0, keys) < 0 ||
	    (has_status = hl_field_int(req, 0, "status", 200, 599, &status)) < 0 ||
	    (has_write = hl_field_bool(req, 0, "write", &write)) < 0)
		return 0;
	if (has_status != HL_FIELD_SET)
		status = 201;
	if (has_write != HL_FIELD_SET)
		write = 1;
	int list = hl_body_find(req, 0, "events");
	if (hl_body_type(req, list) != HL_JSON_ARRAY)
		return hl_reply_error(req, 422, "validation", "events: must be an array");
	struct hl_json *j = hl_reply_json(req, (int)status);
	hl_json_object(j);
	hl_json_key(j, "rc");
	hl_json_array(j);
	for (int i = 0, item; (item = hl_body_index(req, list, i)) >= 0; i++) {
		int rc = publish_one(req, item, write);
		if (rc == HL_EDB)
			return rc;
		hl_json_int(j, rc);
	}
	hl_json_array_end(j);
	hl_json_object_end(j);
	return 0;
}

/* ---- the handlers ------------------------------------------------------- */

static int record(struct hl_job_run *run, const struct hl_event *ev, const char *handler)
{
	sqlite3_stmt *st = hl_stmt(hl_job_db(run),
		"INSERT INTO events_probe_seen (handler, name, location_id, subject_id, data)"
		" VALUES (?1, ?2, ?3, ?4, ?5)");
	if (!st)
		return HL_EDB;
	sqlite3_bind_text(st, 1, handler, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, ev->name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, ev->location_id);
	sqlite3_bind_int64(st, 4, ev->subject_id);
	sqlite3_bind_text(st, 5, ev->data, -1, SQLITE_STATIC);
	return sqlite3_step(st) == SQLITE_DONE ? 0 : HL_EDB;
}

static int on_any(struct hl_job_run *run, const struct hl_event *ev)
{
	return record(run, ev, "prefix");
}

static int on_created(struct hl_job_run *run, const struct hl_event *ev)
{
	return record(run, ev, "exact");
}

/* Writes, then fails: the write must be rolled back. */
static int on_broken(struct hl_job_run *run, const struct hl_event *ev)
{
	int rc = record(run, ev, "broken");
	return rc ? rc : HL_EINVAL;
}

/* Publishes thing.chained from a handler, after checking that
 * hl_job_publish refuses a bad name and bad data (the results are
 * recorded as this handler's row). */
static int on_chain(struct hl_job_run *run, const struct hl_event *ev)
{
	int bad_name = hl_job_publish(run, "Thing.Chained", ev->location_id, 0, NULL);
	int bad_data = hl_job_publish(run, "thing.chained", ev->location_id, 0, "[1]");
	int rc = hl_job_publish(run, "thing.chained", ev->location_id, ev->subject_id,
				"{\"from\": \"thing.chain\"}");
	char data[64];
	snprintf(data, sizeof(data), "{\"bad_name\": %d, \"bad_data\": %d}", bad_name, bad_data);
	struct hl_event seen = *ev;
	seen.data = data;
	return rc ? rc : record(run, &seen, "chain");
}

static int on_contact(struct hl_job_run *run, const struct hl_event *ev)
{
	return record(run, ev, "contact");
}

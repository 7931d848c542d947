/* SPDX-License-Identifier: MIT */
/*
 * probe.c: a module for the tests, exercising every public function through
 * HTTP, as Redis's tests/modules do. Built once as "probe" and again, with
 * PROBE_* flags, as the broken variants the loader must refuse.
 */
#include <hyperlevel/hyperlevel.h>

#include <string.h>
#include <time.h>

#include "migrations.h"

#ifndef PROBE_NAME
#define PROBE_NAME "probe"
#endif
#ifndef PROBE_ABI_MAJOR
#define PROBE_ABI_MAJOR HL_ABI_MAJOR
#endif
#ifndef PROBE_ABI_MINOR
#define PROBE_ABI_MINOR HL_ABI_MINOR
#endif
#ifndef PROBE_REQUIRES
#define PROBE_REQUIRES "contacts"
#endif
#define P "/api/" PROBE_NAME

static int hello(struct hl_req *req);
static int echo(struct hl_req *req);
static int echo_json(struct hl_req *req);
static int raw(struct hl_req *req);
static int get_item(struct hl_req *req);
static int latest_item(struct hl_req *req);
static int add_item(struct hl_req *req);
static int delete_item(struct hl_req *req);
static int fail(struct hl_req *req);
static int silent(struct hl_req *req);
static int big(struct hl_req *req);
static int slow(struct hl_req *req);
static int unscoped(struct hl_req *req);
static int get_writes(struct hl_req *req);
static int tick(struct hl_job_run *run);
static int work(struct hl_job_run *run);

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = P "/hello", .handler = hello, .access = HL_ACCESS_PUBLIC },
	{ .method = "GET", .pattern = P "/echo/:a/:b", .handler = echo, .access = HL_ACCESS_PUBLIC },
	{ .method = "POST", .pattern = P "/json", .handler = echo_json, .access = HL_ACCESS_PUBLIC },
	{ .method = "POST", .pattern = P "/raw", .handler = raw, .access = HL_ACCESS_PUBLIC,
	  .flags = HL_ROUTE_RAW_BODY },
	{ .method = "GET", .pattern = P "/items/latest", .handler = latest_item,
	  .access = HL_ACCESS_PUBLIC },
	{ .method = "GET", .pattern = P "/items/:id", .handler = get_item, .access = HL_ACCESS_PUBLIC },
	{ .method = "DELETE", .pattern = P "/items/:id", .handler = delete_item,
	  .access = HL_ACCESS_PUBLIC },
	{ .method = "POST", .pattern = P "/items", .handler = add_item, .access = HL_ACCESS_PUBLIC },
	{ .method = "GET", .pattern = P "/fail", .handler = fail, .access = HL_ACCESS_PUBLIC },
	{ .method = "GET", .pattern = P "/silent", .handler = silent, .access = HL_ACCESS_PUBLIC },
	{ .method = "GET", .pattern = P "/big", .handler = big, .access = HL_ACCESS_PUBLIC },
	{ .method = "GET", .pattern = P "/slow", .handler = slow, .access = HL_ACCESS_PUBLIC },
	{ .method = "GET", .pattern = P "/private", .handler = hello },
	{ .method = "GET", .pattern = P "/unscoped", .handler = unscoped },
	{ .method = "GET", .pattern = P "/get-writes", .handler = get_writes,
	  .access = HL_ACCESS_PUBLIC },
#ifdef PROBE_DUPLICATE_ROUTE
	{ .method = "GET", .pattern = "/api/probe/hello", .handler = hello,
	  .access = HL_ACCESS_PUBLIC },
#endif
};

#ifdef PROBE_IGNORES_ERRORS
/* A route of the core's, registered by an init that ignores the refusal. */
static const struct hl_route taken[] = {
	{ .method = "GET", .pattern = "/api/health", .handler = hello, .access = HL_ACCESS_PUBLIC },
};
#endif

static const struct hl_job jobs[] = {
	{ .name = "tick", .period_ms = 200, .slice = tick },
	{ .name = "work", .period_ms = 1000, .slice = work },
};

/* A page for location admins, at the order of the contacts' pages: it
 * comes after them, the probe being loaded after contacts. */
static const struct hl_page pages[] = {
	{ .path = "/" PROBE_NAME, .script = PROBE_NAME ".js", .label = "Probe",
	  .access = HL_ACCESS_LOCATION_ADMIN, .order = 20 },
#ifdef PROBE_BAD_PAGE
	{ .path = "/" PROBE_NAME "/:id", .script = "../" PROBE_NAME ".js" },
#endif
};

static const char *greeting;
/* probe.work processes rows 1..work_rows, each taking work_row_ms, and
 * heeds hl_job_over_budget unless work_ignores_budget = yes. */
static long long work_rows, work_row_ms;
static int work_ignores_budget;

#ifdef PROBE_NEWER_SYMBOL
/* A function of a future core, which this server does not export. */
HL_API int hl_function_from_the_future(struct hl_mod *mod);
#endif

static int read_work_settings(struct hl_mod *mod)
{
	int rc = hl_setting_int(mod, "work_rows", 0, 0, 1000000, &work_rows);
	if (!rc)
		rc = hl_setting_int(mod, "work_row_ms", 2, 0, 1000, &work_row_ms);
	work_ignores_budget = !strcmp(hl_setting(mod, "work_ignores_budget", "no"), "yes");
	return rc;
}

static int init(struct hl_mod *mod)
{
	greeting = hl_setting(mod, "greeting", "hello");
	hl_log(PROBE_NAME, "greeting is '%s'", greeting);
	int rc = read_work_settings(mod);
	if (!rc)
		rc = hl_add_migrations(mod, migrations);
	if (!rc)
		rc = hl_add_routes(mod, routes);
	if (!rc)
		rc = hl_add_jobs(mod, jobs);
	if (!rc)
		rc = hl_add_pages(mod, pages);
#ifdef PROBE_NEWER_SYMBOL
	if (!rc)
		rc = hl_function_from_the_future(mod);
#endif
#ifdef PROBE_INIT_FAILS
	if (!rc)
		rc = HL_EINVAL;
#endif
#ifdef PROBE_IGNORES_ERRORS
	hl_add_routes(mod, taken);
#endif
	return rc;
}

static const char *const requires[] = { PROBE_REQUIRES, NULL };

#ifdef PROBE_RECORDS
/* Its items are records people know, by name; its counts are not. */
static const struct hl_record_kind records[] = {
	{ .table = "probe_items", .noun = "item",
	  .name_sql = "SELECT name FROM probe_items WHERE id = :id" },
#ifdef PROBE_BAD_RECORDS
	/* the contacts module's already */
	{ .table = "contacts", .noun = "person", .name_sql = "SELECT email FROM contacts WHERE id = :id" },
#endif
};
#endif

#ifdef PROBE_BAD_EVENT_LINE
/* Its SQL is not scoped to the event's sub-account. */
static const struct hl_event_line event_lines[] = {
	{ "probe.item_added", "SELECT name, NULL FROM probe_items WHERE id = :subject" },
};
#endif

#ifndef PROBE_NO_DESCRIPTOR
HL_API const struct hl_module hl_module = {
	.abi_major = PROBE_ABI_MAJOR,
	.abi_minor = PROBE_ABI_MINOR,
	.size = sizeof(struct hl_module),
	.name = PROBE_NAME,
	.version = "9.9.9",
	.requires = requires,
	.init = init,
	.summary = "exercises the module API for the tests",
#ifdef PROBE_RECORDS
	.records = HL_TABLE(records),
#endif
#ifdef PROBE_BAD_EVENT_LINE
	.event_lines = HL_TABLE(event_lines),
#endif
};
#else
HL_API const void *not_a_descriptor = requires;
HL_API int probe_init(struct hl_mod *mod);
HL_API int probe_init(struct hl_mod *mod) { return init(mod); }
#endif

static int hello(struct hl_req *req)
{
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	hl_json_key(j, "greeting");
	hl_json_string(j, greeting);
	hl_json_key(j, "module");
	hl_json_string(j, PROBE_NAME);
	hl_json_key(j, "method");
	hl_json_string(j, hl_method(req));
	hl_json_object_end(j);
	return 0;
}

/* Everything the request context can tell, as JSON. */
static int echo(struct hl_req *req)
{
	const char **tags;
	int ntags = hl_query_all(req, "tag", &tags);
	int64_t n;
	if (hl_query_int(req, "n", 7, 0, 100, &n))
		return 0;
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	hl_json_key(j, "a");
	hl_json_string(j, hl_param(req, "a"));
	hl_json_key(j, "b");
	hl_json_string(j, hl_param(req, "b"));
	hl_json_key(j, "missing");
	hl_json_string(j, hl_param(req, "missing"));
	hl_json_key(j, "q");
	hl_json_string(j, hl_query(req, "q"));
	hl_json_key(j, "n");
	hl_json_int(j, n);
	hl_json_key(j, "tags");
	hl_json_array(j);
	for (int i = 0; i < ntags; i++)
		hl_json_string(j, tags[i]);
	hl_json_array_end(j);
	hl_json_key(j, "header");
	hl_json_string(j, hl_header(req, "X-Probe"));
	hl_json_key(j, "path");
	hl_json_string(j, hl_path(req));
	hl_json_key(j, "pi");
	hl_json_double(j, 3.25);
	hl_json_key(j, "yes");
	hl_json_bool(j, 1);
	hl_json_key(j, "text");
	hl_json_string(j, hl_sprintf(req, "%s-%d", "tab\tquote\"nl\n", 42));
	hl_json_object_end(j);
	return 0;
}

static void echo_value(struct hl_req *req, struct hl_json *j, int tok)
{
	int64_t v;
	int b;
	switch (hl_body_type(req, tok)) {
	case HL_JSON_STRING:
		hl_json_string(j, hl_body_string(req, tok));
		break;
	case HL_JSON_NUMBER:
		if (hl_body_int(req, tok, &v))
			hl_json_string(j, "not an integer");
		else
			hl_json_int(j, v);
		break;
	case HL_JSON_BOOL:
		hl_body_bool(req, tok, &b);
		hl_json_bool(j, b);
		break;
	case HL_JSON_ARRAY:
		hl_json_array(j);
		for (int i = 0; i < hl_body_count(req, tok); i++)
			echo_value(req, j, hl_body_index(req, tok, i));
		hl_json_array_end(j);
		break;
	case HL_JSON_OBJECT:
		hl_json_string(j, "object");
		break;
	default:
		hl_json_null(j);
	}
}

/* POST {"keys": [...], ...}: the values of the named keys, re-encoded. */
static int echo_json(struct hl_req *req)
{
	int keys = hl_body_find(req, 0, "keys");
	if (hl_body_type(req, keys) != HL_JSON_ARRAY)
		return hl_reply_error(req, 422, "validation", "keys must be an array");
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	for (int i = 0; i < hl_body_count(req, keys); i++) {
		const char *key = hl_body_string(req, hl_body_index(req, keys, i));
		if (!key)
			continue;
		hl_json_key(j, key);
		echo_value(req, j, hl_body_find(req, 0, key));
	}
	hl_json_object_end(j);
	return 0;
}

static int raw(struct hl_req *req)
{
	size_t len;
	const char *body = hl_body(req, &len);
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	hl_json_key(j, "length");
	hl_json_int(j, (int64_t)len);
	hl_json_key(j, "first_line");
	const char *nl = memchr(body, '\n', len);
	hl_json_stringn(j, body, nl ? (size_t)(nl - body) : len);
	hl_json_object_end(j);
	return 0;
}

static int get_item(struct hl_req *req)
{
	int64_t id;
	if (hl_param_id(req, "id", &id))
		return 0;
	sqlite3_stmt *st = hl_stmt(hl_read(req), "SELECT id, name FROM probe_items WHERE id = ?1");
	if (!st)
		return HL_EDB;
	sqlite3_bind_int64(st, 1, id);
	return hl_reply_row(req, 200, st, "item");
}

static int latest_item(struct hl_req *req)
{
	sqlite3_stmt *st = hl_stmt(hl_read(req),
				   "SELECT id, name FROM probe_items ORDER BY id DESC LIMIT 1");
	return st ? hl_reply_row(req, 200, st, "item") : HL_EDB;
}

/* POST {"name": "...", "then_fail": true}: inserts, and with then_fail
 * answers 422 after the insert, which must then be rolled back. */
static int add_item(struct hl_req *req)
{
	const char *name = hl_body_string(req, hl_body_find(req, 0, "name"));
	int then_fail = 0;
	hl_body_bool(req, hl_body_find(req, 0, "then_fail"), &then_fail);
	if (!name || !*name)
		return hl_reply_error(req, 422, "validation", "name is required");
	struct hl_db *db = hl_write_begin(req);
	if (!db)
		return HL_EDB;
	sqlite3_stmt *st = hl_stmt(db, "INSERT INTO probe_items (name) VALUES (?1)"
				       " ON CONFLICT (name) DO NOTHING RETURNING id, name");
	if (!st)
		return HL_EDB;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	int step = sqlite3_step(st);
	if (step == SQLITE_DONE)
		return hl_reply_error(req, 409, "conflict", "an item named '%s' exists", name);
	if (step != SQLITE_ROW)
		return HL_EDB;
	hl_json_row(hl_reply_json(req, 201), st);
	if (then_fail)
		return hl_reply_error(req, 422, "validation", "failing after the write");
	return 0;
}

static int delete_item(struct hl_req *req)
{
	int64_t id;
	if (hl_param_id(req, "id", &id))
		return 0;
	sqlite3_stmt *st = hl_stmt(hl_write_begin(req), "DELETE FROM probe_items WHERE id = ?1");
	if (!st)
		return HL_EDB;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_DONE)
		return HL_EDB;
	if (!sqlite3_changes(hl_sqlite(hl_read(req))))
		return hl_reply_error(req, 404, "not_found", "no such item");
	return hl_reply_raw(req, 204, "text/plain", "", 0);
}

static int fail(struct hl_req *req)
{
	(void)req;
	return HL_EDB;
}

static int silent(struct hl_req *req)
{
	(void)req;
	return 0;
}

static int big(struct hl_req *req)
{
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_array(j);
	for (int i = 0; i < 10000; i++)
		hl_json_int(j, i);
	hl_json_array_end(j);
	return 0;
}

/* A tenant query that forgot its scope: the core must refuse it. */
static int unscoped(struct hl_req *req)
{
	sqlite3_stmt *st = hl_scoped_read(req, "SELECT count(*) FROM probe_items");
	if (!st)
		return HL_EDB;
	sqlite3_step(st);
	return hello(req);
}

/* A GET that tries to write: the core must refuse the write. */
static int get_writes(struct hl_req *req)
{
	sqlite3_stmt *st = hl_stmt(hl_write_begin(req), "INSERT INTO probe_items (name) VALUES ('x')");
	if (!st || sqlite3_step(st) != SQLITE_DONE)
		return HL_EDB;
	return hello(req);
}

/* Answers after half a second: a request in flight when a stop comes. */
static int slow(struct hl_req *req)
{
	struct timespec pause = { 0, 500 * 1000 * 1000 };
	nanosleep(&pause, NULL);
	return hello(req);
}

/* Each slice records the cursor it ran at; the cursor counts slices. */
static int tick(struct hl_job_run *run)
{
	int64_t cursor = hl_job_cursor(run);
	sqlite3_stmt *st = hl_stmt(hl_job_db(run), "INSERT INTO probe_ticks (cursor) VALUES (?1)");
	if (!st)
		return HL_EDB;
	sqlite3_bind_int64(st, 1, cursor);
	if (sqlite3_step(st) != SQLITE_DONE)
		return HL_EDB;
	hl_job_set_cursor(run, cursor + 1);
	/* An item named "tick-fails" makes the slice fail after its write. */
	st = hl_stmt(hl_job_db(run), "SELECT 1 FROM probe_items WHERE name = 'tick-fails'");
	if (!st)
		return HL_EDB;
	return sqlite3_step(st) == SQLITE_ROW ? HL_EINVAL : HL_JOB_DONE;
}

/* Sleeps rather than spins: the slice's time is what it measures, and a
 * sleeping probe leaves the CPU to the server on a loaded machine. */
static void pause_ms(long long ms)
{
	struct timespec pause = { ms / 1000, ms % 1000 * 1000 * 1000 };
	nanosleep(&pause, NULL);
}

/* Processes the rows after the cursor, one work_row_ms at a time, while
 * the budget lasts; records each row with the cursor the slice began at. */
static int work(struct hl_job_run *run)
{
	int64_t first = hl_job_cursor(run), row = first;
	sqlite3_stmt *st = hl_stmt(hl_job_db(run), "INSERT INTO probe_work (row, slice) VALUES (?1, ?2)");
	if (!st)
		return HL_EDB;
	while (row < work_rows && (work_ignores_budget || !hl_job_over_budget(run))) {
		pause_ms(work_row_ms);
		sqlite3_bind_int64(st, 1, ++row);
		sqlite3_bind_int64(st, 2, first);
		if (sqlite3_step(st) != SQLITE_DONE)
			return HL_EDB;
		sqlite3_reset(st);
	}
	hl_job_set_cursor(run, row);
	return row < work_rows ? HL_JOB_MORE : HL_JOB_DONE;
}

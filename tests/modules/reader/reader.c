/* SPDX-License-Identifier: MIT */
/*
 * reader.c: a test module for the read cache. Its cached routes count how
 * often their handler really runs (GET /api/reader/runs), can be made slow
 * (the delay_ms setting) to line concurrent misses up, and its write routes
 * change one table or the other, in the current location.
 */
#include <hyperlevel/hyperlevel.h>

#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "migrations.h"

#ifndef READER_NAME
#define READER_NAME "reader"
#endif
#if defined(READER_BAD_READS)
#define ITEM_TABLES "reader_items no_such_table"
#elif defined(READER_FTS_READS)
#define ITEM_TABLES "reader_items reader_search"
#else
#define ITEM_TABLES "reader_items"
#endif
#define P "/api/" READER_NAME

static _Atomic long runs;
static long long delay_ms;

static void pause_if_asked(void)
{
	struct timespec ts = { delay_ms / 1000, (delay_ms % 1000) * 1000000 };
	if (delay_ms)
		nanosleep(&ts, NULL);
}

/* GET /api/reader/items?size=N: the location's items, padded with N bytes
 * of text so tests can ask for answers of a given size. */
static int list_items(struct hl_req *req)
{
	int64_t size;
	if (hl_query_int(req, "size", 0, 0, 4 << 20, &size))
		return 0;
	runs++;
	pause_if_asked();
	sqlite3_stmt *st = hl_scoped_read(req,
		"SELECT id, name FROM reader_items WHERE location_id = :location ORDER BY id");
	if (!st)
		return HL_EDB;
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	hl_json_key(j, "items");
	hl_json_array(j);
	while (sqlite3_step(st) == SQLITE_ROW)
		hl_json_row(j, st);
	hl_json_array_end(j);
	hl_json_key(j, "padding");
	hl_json_array(j);
	for (int64_t i = 0; i < size / 8; i++)
		hl_json_int(j, 1000000 + i % 9000000);
	hl_json_array_end(j);
	hl_json_object_end(j);
	return 0;
}

/* GET /api/reader/all: every location's item count (agency staff). */
static int count_all(struct hl_req *req)
{
	runs++;
	sqlite3_stmt *st = hl_stmt(hl_read(req), "SELECT count(*) AS items FROM reader_items");
	return st ? hl_reply_row(req, 200, st, "count") : HL_EDB;
}

/* GET /api/reader/mine: depends on the user, under a key that does not. */
static int whoami(struct hl_req *req)
{
	runs++;
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	hl_json_key(j, "user");
	hl_json_int(j, hl_user_id(req));
	hl_json_object_end(j);
	return 0;
}

/* GET /api/reader/slow-sql: one statement that takes a while, with
 * literals the slow-query log must not show. */
static int slow_sql(struct hl_req *req)
{
	sqlite3_stmt *st = hl_stmt(hl_read(req),
		"WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 2000000)"
		" SELECT count(*) AS rows FROM n WHERE x > 5 AND 'secret' <> 'public'");
	return st ? hl_reply_row(req, 200, st, "row") : HL_EDB;
}

/* GET /api/reader/export?rows=N: N lines of CSV, streamed line by line;
 * ?fail_at=K stops with an error after K lines. */
static int export_rows(struct hl_req *req)
{
	int64_t rows, fail_at;
	if (hl_query_int(req, "rows", 10, 0, 10000000, &rows) ||
	    hl_query_int(req, "fail_at", -1, -1, 10000000, &fail_at))
		return 0;
	int rc = hl_stream_begin(req, 200, "text/csv; charset=utf-8");
	for (int64_t i = 0; !rc && i < rows; i++) {
		char line[160];
		if (i == fail_at)
			return HL_EIO;
		int n = snprintf(line, sizeof(line),
				 "%lld,contact %lld,person%lld@example.test,+1 555 %07lld,Some Company %lld\n",
				 (long long)i, (long long)i, (long long)i, (long long)(i * 7919 % 10000000),
				 (long long)(i % 977));
		rc = hl_stream_write(req, line, (size_t)n);
	}
	return rc;
}

/* GET /api/reader/typed?type=N&size=S: S bytes of text under one of a few
 * media types, for the compression rules. */
static int typed(struct hl_req *req)
{
	static const char *const types[] = { "text/csv; charset=utf-8", "text/event-stream",
					     "image/png", "application/json" };
	static char text[64 * 1024];
	int64_t type, size;
	if (hl_query_int(req, "type", 0, 0, 3, &type) ||
	    hl_query_int(req, "size", 100, 0, sizeof(text), &size))
		return 0;
	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = "abcdefgh,12345678\n"[i % 18];
	return hl_reply_raw(req, 200, types[type], text, (size_t)size);
}

static int created(struct hl_req *req)
{
	struct hl_json *j = hl_reply_json(req, 201);
	hl_json_object(j);
	hl_json_object_end(j);
	return 0;
}

/* GET /api/reader/scores: the location's total points. */
static int total_points(struct hl_req *req)
{
	sqlite3_stmt *st = hl_scoped_read(req,
		"SELECT coalesce(sum(points), 0) AS points FROM reader_scores WHERE location_id = :location");
	return st ? hl_reply_row(req, 200, st, "total") : HL_EDB;
}

static int add_score(struct hl_req *req)
{
	sqlite3_stmt *st = hl_scoped_write(req,
		"INSERT INTO reader_scores (points, location_id) VALUES (5, :location)");
	if (!st || sqlite3_step(st) != SQLITE_DONE)
		return HL_EDB;
	return created(req);
}

static int count_runs(struct hl_req *req)
{
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	hl_json_key(j, "runs");
	hl_json_int(j, runs);
	hl_json_object_end(j);
	return 0;
}

static int add_item(struct hl_req *req)
{
	sqlite3_stmt *st = hl_scoped_write(req,
		"INSERT INTO reader_items (location_id, name) VALUES (:location, 'item')");
	if (!st || sqlite3_step(st) != SQLITE_DONE)
		return HL_EDB;
	return created(req);
}

static int add_note(struct hl_req *req)
{
	sqlite3_stmt *st = hl_stmt(hl_write_begin(req), "INSERT INTO reader_notes (text) VALUES ('n')");
	if (!st || sqlite3_step(st) != SQLITE_DONE)
		return HL_EDB;
	return created(req);
}

/* A write that fails after changing a row: rolled back, nothing to drop. */
static int add_and_fail(struct hl_req *req)
{
	sqlite3_stmt *st = hl_scoped_write(req,
		"INSERT INTO reader_items (location_id, name) VALUES (:location, 'lost')");
	if (!st || sqlite3_step(st) != SQLITE_DONE)
		return HL_EDB;
	return hl_reply_error(req, 422, "refused", "refused after writing");
}

/* GET /api/reader/repeat?n=N: one statement stepped and reset N times,
 * as a query per row would be, for the metrics' count of statements. */
static int repeat(struct hl_req *req)
{
	int64_t n;
	if (hl_query_int(req, "n", 1, 0, 100, &n))
		return 0;
	sqlite3_stmt *st = hl_stmt(hl_read(req), "SELECT ?1 + 1");
	for (int64_t i = 0; st && i < n; i++) {
		sqlite3_bind_int64(st, 1, i);
		if (sqlite3_step(st) != SQLITE_ROW)
			return HL_EDB;
		sqlite3_reset(st);
	}
	return st ? hl_reply_raw(req, 200, "text/plain", "ok", 2) : HL_EDB;
}

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = P "/items", .handler = list_items,
	  .cache_ms = 60000, .reads = ITEM_TABLES },
	{ .method = "GET", .pattern = P "/all", .handler = count_all,
	  .access = HL_ACCESS_AGENCY, .cache_ms = 60000, .reads = "reader_items" },
	{ .method = "GET", .pattern = P "/short", .handler = list_items,
	  .cache_ms = 300, .reads = "reader_items" },
	{ .method = "GET", .pattern = P "/mine", .handler = whoami,
	  .cache_ms = 60000, .reads = "reader_notes" },
	{ .method = "GET", .pattern = P "/runs", .handler = count_runs },
	{ .method = "GET", .pattern = P "/scores", .handler = total_points,
	  .cache_ms = 60000, .reads = "reader_scores" },
	{ .method = "POST", .pattern = P "/scores", .handler = add_score },
	{ .method = "GET", .pattern = P "/slow-sql", .handler = slow_sql },
	{ .method = "GET", .pattern = P "/typed", .handler = typed, .access = HL_ACCESS_PUBLIC },
	{ .method = "GET", .pattern = P "/repeat", .handler = repeat, .access = HL_ACCESS_PUBLIC },
	{ .method = "GET", .pattern = P "/export", .handler = export_rows,
	  .cache_ms = 60000, .reads = "reader_items" },
	{ .method = "POST", .pattern = P "/items", .handler = add_item },
	{ .method = "POST", .pattern = P "/notes", .handler = add_note },
	{ .method = "POST", .pattern = P "/fail", .handler = add_and_fail },
};

static int init(struct hl_mod *mod)
{
	int rc = hl_setting_int(mod, "delay_ms", 0, 0, 10000, &delay_ms);
#ifdef READER_WANTS
	hl_log(READER_NAME, "%s loaded: %d", READER_WANTS, hl_module_loaded(mod, READER_WANTS));
#endif
	if (!rc)
		rc = hl_add_migrations(mod, migrations);
	if (!rc)
		rc = hl_add_routes(mod, routes);
	return rc;
}

#ifdef READER_WANTS
/* A module it wants that requires it (the variant reader_wants). */
static const char *const wants[] = { READER_WANTS, NULL };
#define WANTS wants
#else
#define WANTS NULL
#endif

HL_MODULE(.name = READER_NAME, .version = "1.0.0", .init = init, .wants = WANTS,
	  .summary = "a test module for the read cache");

/* SPDX-License-Identifier: MIT */
/*
 * Tests core/db/sqlalloc.c through SQLite's own allocation calls: a small
 * block freed while a connection's cache is the thread's goes back to the
 * next allocation of its size, a cache keeps no more than its bound, a
 * thread without a cache frees to the C library, blocks keep their
 * contents across reallocation, and a database works through it all.
 */
#include "../../../core/db/sqlalloc.h"

#include <sqlite3.h>
#include <stdlib.h>

#include "../test.h"

static void a_freed_block_serves_the_next_of_its_size(void)
{
	struct sqlalloc_cache cache = { 0 };
	CHECK_INT(sqlalloc_enter(&cache), 1);
	char *a = sqlite3_malloc(100);
	CHECK_INT(sqlite3_msize(a), 128); /* rounded up to its class */
	sqlite3_free(a);
	CHECK_INT(cache.bytes, 128);
	char *b = sqlite3_malloc(120);
	CHECK(b == a);
	CHECK_INT(cache.bytes, 0);
	char *c = sqlite3_malloc(20); /* another class: not the block above */
	CHECK(c != a);
	sqlite3_free(b);
	sqlite3_free(c);
	sqlalloc_leave();
	sqlalloc_drain(&cache);
	CHECK_INT(cache.bytes, 0);
}

/* Many blocks of one size fill only their class's share: a block of
 * another size freed next is still kept. */
static void a_cache_keeps_no_more_than_its_bound(void)
{
	enum { N = SQLALLOC_CLASS_KEPT / 64 + 10 };
	static void *blocks[N];
	struct sqlalloc_cache cache = { 0 };
	sqlalloc_enter(&cache);
	for (int i = 0; i < N; i++)
		blocks[i] = sqlite3_malloc(64);
	for (int i = 0; i < N; i++)
		sqlite3_free(blocks[i]);
	CHECK_INT(cache.bytes, SQLALLOC_CLASS_KEPT);
	sqlite3_free(sqlite3_malloc(SQLALLOC_SMALL_MAX));
	CHECK_INT(cache.bytes, SQLALLOC_CLASS_KEPT + SQLALLOC_SMALL_MAX);
	void *large = sqlite3_malloc(SQLALLOC_SMALL_MAX + 1); /* never kept */
	sqlite3_free(large);
	CHECK_INT(cache.bytes, SQLALLOC_CLASS_KEPT + SQLALLOC_SMALL_MAX);
	sqlalloc_leave();
	sqlalloc_drain(&cache);
	CHECK_INT(cache.bytes, 0);
}

static void one_cache_per_thread_and_none_after_leaving(void)
{
	struct sqlalloc_cache first = { 0 }, second = { 0 };
	CHECK_INT(sqlalloc_enter(&first), 1);
	CHECK_INT(sqlalloc_enter(&second), 0); /* the first stays the thread's */
	sqlite3_free(sqlite3_malloc(40));
	CHECK_INT(first.bytes, 64);
	CHECK_INT(second.bytes, 0);
	sqlalloc_leave();
	sqlite3_free(sqlite3_malloc(40)); /* no cache: back to the C library */
	CHECK_INT(first.bytes, 64);
	sqlalloc_drain(&first);
}

static void reallocation_keeps_the_contents(void)
{
	struct sqlalloc_cache cache = { 0 };
	sqlalloc_enter(&cache);
	char *p = sqlite3_malloc(10);
	memcpy(p, "0123456789", 10);
	CHECK(sqlite3_realloc(p, 30) == p); /* still within its class */
	p = sqlite3_realloc(p, 500);
	CHECK(p && !memcmp(p, "0123456789", 10));
	CHECK_INT(sqlite3_msize(p), 512);
	memset(p + 10, 'x', 490);
	p = sqlite3_realloc(p, 100000); /* small to large */
	CHECK(p && !memcmp(p, "0123456789", 10) && p[499] == 'x');
	CHECK_INT(sqlite3_msize(p), 100000);
	p = sqlite3_realloc(p, 200000); /* large to large */
	CHECK(p && !memcmp(p, "0123456789", 10) && p[499] == 'x');
	p = sqlite3_realloc(p, 16); /* large to small */
	CHECK(p && !memcmp(p, "0123456789", 10));
	CHECK_INT(sqlite3_msize(p), 32);
	sqlite3_free(p);
	sqlalloc_leave();
	sqlalloc_drain(&cache);
}

static void a_database_works_through_it(void)
{
	struct sqlalloc_cache cache = { 0 };
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	sqlalloc_enter(&cache);
	CHECK_INT(sqlite3_open(":memory:", &db), SQLITE_OK);
	CHECK_INT(sqlite3_exec(db, "CREATE TABLE t(a INTEGER, b TEXT);"
				   "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
				   "WHERE i < 5000) INSERT INTO t SELECT i, printf('row %d', i) FROM n;",
			     NULL, NULL, NULL), SQLITE_OK);
	CHECK_INT(sqlite3_prepare_v2(db, "SELECT count(*), sum(length(b)) FROM t", -1, &st, NULL),
		  SQLITE_OK);
	CHECK_INT(sqlite3_step(st), SQLITE_ROW);
	CHECK_INT(sqlite3_column_int(st, 0), 5000);
	CHECK_INT(sqlite3_column_int(st, 1), 38893); /* "row 1" .. "row 5000" */
	sqlite3_finalize(st);
	CHECK(cache.bytes > 0 && cache.bytes <= SQLALLOC_CLASSES * SQLALLOC_CLASS_KEPT);
	sqlalloc_leave();
	CHECK_INT(sqlite3_close(db), SQLITE_OK);
	sqlalloc_drain(&cache);
}

int main(void)
{
	sqlalloc_install();
	if (sqlite3_initialize() != SQLITE_OK)
		return 1;
	static test_fn *const tests[] = {
		a_freed_block_serves_the_next_of_its_size,
		a_cache_keeps_no_more_than_its_bound,
		one_cache_per_thread_and_none_after_leaving,
		reallocation_keeps_the_contents,
		a_database_works_through_it,
	};
	return test_main(tests, sizeof(tests) / sizeof(tests[0]));
}

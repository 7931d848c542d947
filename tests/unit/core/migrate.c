/* SPDX-License-Identifier: MIT */
/*
 * Tests core/db/migrate.c on a real database from core/db/db.c: steps applied
 * once and recorded with their checksums, edited, renamed or unknown steps
 * refused, a failing step rolled back; and db.c's statement cache and pool.
 */
#include "db/db.h"
#include "db/migrate.h"

#include <dirent.h>
#include <limits.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test.h"
#include "../temp_db.h"

/* A fresh database in a temporary directory, with its write connection. */
struct fixture {
	struct temp_db t;
	struct hl_db *w;
};

static int open_fixture(struct fixture *f)
{
	f->w = NULL;
	if (temp_db_open(&f->t, "migrate"))
		return -1;
	f->w = db_write_lock(f->t.db);
	return 0;
}

static void close_fixture(struct fixture *f)
{
	if (f->w)
		db_write_unlock(f->t.db, f->w);
	temp_db_close(&f->t);
}

/* The first column of the first row of `sql`, as an integer (-1 on error). */
static long long query_int(struct hl_db *c, const char *sql)
{
	sqlite3_stmt *st = hl_stmt(c, sql);
	long long v = st && sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
	if (st)
		sqlite3_reset(st);
	return v;
}

static int table_exists(struct hl_db *c, const char *name)
{
	sqlite3_stmt *st = hl_stmt(c, "SELECT count(*) FROM sqlite_master"
				      " WHERE type = 'table' AND name = ?1");
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	int n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
	sqlite3_reset(st);
	return n;
}

static long long recorded(struct hl_db *c, const char *owner)
{
	sqlite3_stmt *st = hl_stmt(c, "SELECT count(*) FROM schema_migrations WHERE owner = ?1");
	sqlite3_bind_text(st, 1, owner, -1, SQLITE_STATIC);
	long long n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
	sqlite3_reset(st);
	return n;
}

static const struct hl_migration steps[] = {
	{ .name = "001_people", .sql = "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT);" },
	{ .name = "002_pets", .sql = "CREATE TABLE pets (id INTEGER PRIMARY KEY, owner INTEGER);"
				     "INSERT INTO pets (owner) VALUES (1);" },
	{ .name = "003_toys", .sql = "CREATE TABLE toys (id INTEGER PRIMARY KEY);" },
};

/* A retired step is recorded but not run on a database that never ran
 * it, and a database that did run it still starts: its text is the same. */
static void retired_step_is_recorded_not_run(void)
{
	struct fixture f;
	if (open_fixture(&f))
		return;
	struct hl_migration retired[2] = { steps[0], steps[1] };
	retired[1].flags = HL_MIGRATION_RETIRED;
	int applied = -1;
	CHECK_INT(migrate_owner(f.w, "fresh", "test", retired, 2, &applied), 0);
	CHECK_INT(applied, 2);
	CHECK_INT(recorded(f.w, "fresh"), 2);
	CHECK_INT(table_exists(f.w, "people"), 1);
	CHECK_INT(table_exists(f.w, "pets"), 0);
	close_fixture(&f);

	if (open_fixture(&f))
		return;
	CHECK_INT(migrate_owner(f.w, "old", "test", steps, 2, &applied), 0);
	CHECK_INT(table_exists(f.w, "pets"), 1);
	CHECK_INT(migrate_owner(f.w, "old", "test", retired, 2, &applied), 0);
	CHECK_INT(applied, 0);
	close_fixture(&f);
}

static void two_steps_are_applied_and_recorded_with_checksums(void)
{
	struct fixture f;
	if (open_fixture(&f))
		return;
	int applied = -1;
	CHECK_INT(migrate_owner(f.w, "mod", "test", steps, 2, &applied), 0);
	CHECK_INT(applied, 2);
	CHECK_INT(table_exists(f.w, "people"), 1);
	CHECK_INT(query_int(f.w, "SELECT count(*) FROM pets"), 1);
	sqlite3_stmt *st = hl_stmt(f.w, "SELECT seq, name, checksum FROM schema_migrations"
					" WHERE owner = 'mod' ORDER BY seq");
	for (int i = 0; i < 2; i++) {
		unsigned char h[crypto_hash_sha256_BYTES];
		char hex[2 * crypto_hash_sha256_BYTES + 1];
		crypto_hash_sha256(h, (const unsigned char *)steps[i].sql, strlen(steps[i].sql));
		sodium_bin2hex(hex, sizeof(hex), h, sizeof(h));
		CHECK_INT(sqlite3_step(st), SQLITE_ROW);
		CHECK_INT(sqlite3_column_int(st, 0), i + 1);
		CHECK_STR((const char *)sqlite3_column_text(st, 1), steps[i].name);
		CHECK_STR((const char *)sqlite3_column_text(st, 2), hex);
	}
	CHECK_INT(sqlite3_step(st), SQLITE_DONE);
	sqlite3_reset(st);
	close_fixture(&f);
}

static void second_run_applies_nothing_and_new_step_only_itself(void)
{
	struct fixture f;
	if (open_fixture(&f))
		return;
	int applied = -1;
	CHECK_INT(migrate_owner(f.w, "mod", "test", steps, 2, &applied), 0);
	CHECK_INT(migrate_owner(f.w, "mod", "test", steps, 2, &applied), 0);
	CHECK_INT(applied, 0);
	CHECK_INT(query_int(f.w, "SELECT count(*) FROM pets"), 1); /* not inserted twice */
	CHECK_INT(migrate_owner(f.w, "mod", "test", steps, 3, &applied), 0);
	CHECK_INT(applied, 1);
	CHECK_INT(table_exists(f.w, "toys"), 1);
	CHECK_INT(recorded(f.w, "mod"), 3);
	CHECK_INT(query_int(f.w, "SELECT count(*) FROM pets"), 1);
	close_fixture(&f);
}

static void edited_step_is_refused(void)
{
	struct fixture f;
	if (open_fixture(&f))
		return;
	struct hl_migration edited[] = { steps[0], steps[1], steps[2] };
	edited[1].sql = "CREATE TABLE pets (id INTEGER PRIMARY KEY, owner INTEGER, name TEXT);";
	int applied = -1;
	CHECK_INT(migrate_owner(f.w, "mod", "test", steps, 2, &applied), 0);
	CHECK_INT(migrate_owner(f.w, "mod", "test", edited, 3, &applied), HL_EINVAL);
	CHECK_INT(applied, 0);
	CHECK_INT(table_exists(f.w, "toys"), 0); /* nothing after it applied */
	close_fixture(&f);
}

static void renamed_step_is_refused(void)
{
	struct fixture f;
	if (open_fixture(&f))
		return;
	struct hl_migration renamed[] = { steps[0], steps[1] };
	renamed[0].name = "001_persons";
	int applied = -1;
	CHECK_INT(migrate_owner(f.w, "mod", "test", steps, 2, &applied), 0);
	CHECK_INT(migrate_owner(f.w, "mod", "test", renamed, 2, &applied), HL_EINVAL);
	CHECK_INT(applied, 0);
	close_fixture(&f);
}

static void database_ahead_of_the_shipped_steps_is_refused(void)
{
	struct fixture f;
	if (open_fixture(&f))
		return;
	int applied = -1;
	CHECK_INT(migrate_owner(f.w, "mod", "test", steps, 3, &applied), 0);
	CHECK_INT(migrate_owner(f.w, "mod", "test", steps, 2, &applied), HL_EINVAL);
	CHECK_INT(migrate_owner(f.w, "mod", "test", steps, 0, &applied), HL_EINVAL);
	CHECK_INT(applied, 0);
	close_fixture(&f);
}

static void failing_step_is_rolled_back_and_earlier_ones_stay(void)
{
	struct fixture f;
	if (open_fixture(&f))
		return;
	const struct hl_migration with_bad[] = {
		steps[0], steps[1],
		{ .name = "003_bad", .sql = "CREATE TABLE half (id INTEGER); INSERT INTO people (name) VALUES ('x');"
			     " SELEC nonsense;" },
	};
	int applied = -1;
	CHECK_INT(migrate_owner(f.w, "mod", "test", with_bad, 3, &applied), HL_EDB);
	CHECK_INT(applied, 2);
	CHECK_INT(table_exists(f.w, "people"), 1);
	CHECK_INT(table_exists(f.w, "pets"), 1);
	CHECK_INT(table_exists(f.w, "half"), 0);
	CHECK_INT(query_int(f.w, "SELECT count(*) FROM people"), 0);
	CHECK_INT(recorded(f.w, "mod"), 2);
	CHECK(sqlite3_get_autocommit(hl_sqlite(f.w))); /* no transaction left open */
	/* A corrected step applies on the next start. */
	CHECK_INT(migrate_owner(f.w, "mod", "test", steps, 3, &applied), 0);
	CHECK_INT(applied, 1);
	close_fixture(&f);
}

/* Found by the migrate fuzz target: a trigger's END one too many is a
 * COMMIT, which ended the runner's transaction, so the rest of the step
 * and its record were written on their own and a failed step was recorded
 * as applied (ROLLBACK likewise lost the step's first part). */
static void step_cannot_end_the_runners_transaction(void)
{
	static const char *const enders[] = { "COMMIT;", "END;", "ROLLBACK;", "BEGIN;" };
	for (size_t i = 0; i < sizeof(enders) / sizeof(enders[0]); i++) {
		struct fixture f;
		if (open_fixture(&f))
			return;
		char sql[256];
		snprintf(sql, sizeof(sql), "CREATE TABLE half (id INTEGER); %s"
			 " CREATE TABLE after_end (id INTEGER);", enders[i]);
		const struct hl_migration bad[] = { steps[0], { .name = "002_ends", .sql = sql } };
		int applied = -1;
		CHECK_INT(migrate_owner(f.w, "mod", "test", bad, 2, &applied), HL_EDB);
		CHECK_INT(applied, 1);
		CHECK_INT(recorded(f.w, "mod"), 1);
		CHECK_INT(table_exists(f.w, "half"), 0);
		CHECK_INT(table_exists(f.w, "after_end"), 0);
		CHECK(sqlite3_get_autocommit(hl_sqlite(f.w)));
		close_fixture(&f);
	}
}

static void owners_are_independent(void)
{
	struct fixture f;
	if (open_fixture(&f))
		return;
	const struct hl_migration other[] = {
		{ .name = "001_people", .sql = "CREATE TABLE other_people (id INTEGER PRIMARY KEY);" },
	};
	int applied = -1;
	CHECK_INT(migrate_owner(f.w, "a", "test", steps, 2, &applied), 0);
	CHECK_INT(applied, 2);
	CHECK_INT(migrate_owner(f.w, "b", "test", other, 1, &applied), 0);
	CHECK_INT(applied, 1); /* same step name, another owner */
	CHECK_INT(migrate_owner(f.w, "a", "test", steps, 3, &applied), 0);
	CHECK_INT(applied, 1);
	CHECK_INT(migrate_owner(f.w, "b", "test", other, 1, &applied), 0);
	CHECK_INT(applied, 0);
	CHECK_INT(recorded(f.w, "a"), 3);
	CHECK_INT(recorded(f.w, "b"), 1);
	close_fixture(&f);
}

static void stmt_cache_returns_the_same_statement_reset(void)
{
	struct fixture f;
	if (open_fixture(&f))
		return;
	sqlite3_stmt *a = hl_stmt(f.w, "SELECT ?1");
	CHECK(a != NULL);
	sqlite3_bind_int(a, 1, 5);
	CHECK_INT(sqlite3_step(a), SQLITE_ROW);
	CHECK_INT(sqlite3_column_int(a, 0), 5);
	CHECK(sqlite3_stmt_busy(a));
	sqlite3_stmt *b = hl_stmt(f.w, "SELECT ?1");
	CHECK(b == a);
	CHECK(!sqlite3_stmt_busy(b));              /* reset */
	CHECK_INT(sqlite3_step(b), SQLITE_ROW);
	CHECK_INT(sqlite3_column_type(b, 0), SQLITE_NULL); /* bindings cleared */
	CHECK(hl_stmt(f.w, "SELECT ?1 ") != a);    /* keyed by the exact text */
	CHECK(hl_stmt(f.w, "SELEC nonsense") == NULL);
	/* Giving the connection back resets what it handed out. */
	CHECK(sqlite3_stmt_busy(b));
	db_conn_reset(f.w);
	CHECK(!sqlite3_stmt_busy(b));
	close_fixture(&f);
}

static void stmt_cache_grows_past_its_first_size(void)
{
	struct fixture f;
	if (open_fixture(&f))
		return;
	sqlite3_stmt *first[200];
	char sql[64];
	for (int i = 0; i < 200; i++) {
		snprintf(sql, sizeof(sql), "SELECT %d", i);
		first[i] = hl_stmt(f.w, sql);
	}
	int same = 0;
	for (int i = 0; i < 200; i++) {
		snprintf(sql, sizeof(sql), "SELECT %d", i);
		sqlite3_stmt *st = hl_stmt(f.w, sql);
		same += st && st == first[i] && sqlite3_step(st) == SQLITE_ROW &&
			sqlite3_column_int(st, 0) == i;
	}
	CHECK_INT(same, 200);
	close_fixture(&f);
}

static int statements_of(struct hl_db *c)
{
	int n = 0;
	for (sqlite3_stmt *st = NULL; (st = sqlite3_next_stmt(hl_sqlite(c), st));)
		n++;
	return n;
}

/* A client asking for ever new shapes of a list cannot grow a connection's
 * statements without bound; those of the current lease stay usable. */
static void stmt_cache_stays_bounded(void)
{
	struct fixture f;
	if (open_fixture(&f))
		return;
	char sql[64];
	for (int i = 0; i < 5000; i++) {
		snprintf(sql, sizeof(sql), "SELECT %d", i);
		CHECK(hl_stmt(f.w, sql) != NULL);
		if (i % 10 == 9)
			db_conn_reset(f.w); /* a request ends */
	}
	CHECK(statements_of(f.w) <= 1100);
	sqlite3_stmt *held = hl_stmt(f.w, "SELECT 'held'");
	for (int i = 0; i < 1200; i++) { /* one lease longer than the cache */
		snprintf(sql, sizeof(sql), "SELECT %d + 1", i);
		CHECK(hl_stmt(f.w, sql) != NULL);
	}
	CHECK(sqlite3_step(held) == SQLITE_ROW && !strcmp((const char *)sqlite3_column_text(held, 0), "held"));
	sqlite3_reset(held);
	db_conn_reset(f.w);
	close_fixture(&f);
}

static void readers_are_lent_returned_and_read_only(void)
{
	struct fixture f;
	if (open_fixture(&f))
		return;
	CHECK_INT(hl_exec(f.w, "CREATE TABLE t (x); INSERT INTO t VALUES (7);"), 0);
	struct hl_db *r1 = db_lend(f.t.db), *r2 = db_lend(f.t.db);
	CHECK(r1 && r2 && r1 != r2 && r1 != f.w && r2 != f.w);
	CHECK_INT(query_int(r1, "SELECT x FROM t"), 7); /* sees the committed write */
	CHECK_INT(hl_exec(r2, "INSERT INTO t VALUES (8)"), HL_EDB);
	sqlite3_stmt *st = hl_stmt(r1, "SELECT x FROM t");
	CHECK_INT(sqlite3_step(st), SQLITE_ROW);
	db_return(f.t.db, r1);
	CHECK(!sqlite3_stmt_busy(st)); /* its read ended with the lease */
	CHECK(db_lend(f.t.db) == r1);    /* the only free one */
	db_return(f.t.db, r1);
	db_return(f.t.db, r2);
	db_return(f.t.db, NULL);
	CHECK_INT(query_int(f.w, "SELECT count(*) FROM t"), 1);
	close_fixture(&f);
}

static void init(void)
{
	CHECK(sodium_init() >= 0);
}

TEST_MAIN(init,
	  two_steps_are_applied_and_recorded_with_checksums,
	  retired_step_is_recorded_not_run,
	  second_run_applies_nothing_and_new_step_only_itself,
	  edited_step_is_refused,
	  renamed_step_is_refused,
	  database_ahead_of_the_shipped_steps_is_refused,
	  failing_step_is_rolled_back_and_earlier_ones_stay,
	  step_cannot_end_the_runners_transaction,
	  owners_are_independent,
	  stmt_cache_returns_the_same_statement_reset,
	  stmt_cache_grows_past_its_first_size,
	  stmt_cache_stays_bounded,
	  readers_are_lent_returned_and_read_only)

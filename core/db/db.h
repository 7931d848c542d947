/* SPDX-License-Identifier: MIT */
/*
 * db.h: the database: one SQLite file in WAL mode, one write connection and
 * a small pool of read connections.
 *
 * Readers are lent to a request for its duration (db_lend), not kept per
 * HTTP thread: civetweb holds a thread per open connection, so threads may
 * number in the hundreds while the useful number of readers is about twice
 * the cores. The write connection is taken under a process-wide mutex
 * (db_write_lock), so writers queue here instead of spinning on
 * SQLITE_BUSY, and it is the only connection that commits, so it is the only
 * one that checkpoints the WAL (SQLite 3.40 needs that; see DESIGN.md).
 *
 * Every connection keeps its prepared statements in a cache keyed by SQL
 * text (hl_stmt), and resets those it handed out when it is given back, so
 * no read transaction outlives a request.
 */
#ifndef HL_DB_H
#define HL_DB_H

#include <hyperlevel/hyperlevel.h>

#include "lib/config.h"

#include <time.h>

#include <stddef.h>
#include <stdint.h>

struct db;

/* Open (creating if needed) DATA_DIR/hyperlevel.db with the settings'
 * PRAGMAs. Returns 0, or HL_EDB/HL_EIO after logging one line. */
int db_open(struct db **out, const struct config *cfg);
void db_close(struct db *db);
const char *db_path(const struct db *db);
/* When the database (its file or its WAL) was last written, to the second. */
time_t db_modified(const struct db *db);
/* What the connections keep, as each last left a request or a write; any
 * thread. */
struct db_cache_usage {
	long long page_bytes;  /* SQLite's page caches */
	long long statements;  /* prepared statements */
	long long block_bytes; /* freed small blocks kept for reuse (sqlalloc.h) */
};

void db_cache_usage(const struct db *db, struct db_cache_usage *u);

/* A read connection; waits while all are lent, for at most the setting
 * reader_wait_ms, then returns NULL (the caller answers 503). */
struct hl_db *db_lend(struct db *db);
/* A read connection if one is free now, else NULL: for a thread that must
 * not wait (the live channel's). */
struct hl_db *db_lend_now(struct db *db);
/* Give back a lent connection (NULL is ignored). */
void db_return(struct db *db, struct hl_db *c);

/* Interrupt the connection's statements once now_us() passes `deadline_us`
 * (0: never), until it is given back or unlocked; db_overran says whether
 * one was, so the caller answers 503 rather than blame the database. */
void db_set_deadline(struct hl_db *c, long long deadline_us);
int db_overran(const struct hl_db *c);

/* The write connection, exclusively, until db_write_unlock. */
struct hl_db *db_write_lock(struct db *db);
void db_write_unlock(struct db *db, struct hl_db *w);
/* Whether another thread waits for the write connection `w`, which the
 * caller holds: a job slice then ends early (hl_job_over_budget). */
int db_writer_wanted(struct hl_db *w);

/* Transactions on the write connection; each returns 0 or HL_EDB. A
 * rollback that fails stops the process: the writer would be unusable. */
int db_begin(struct hl_db *w);
int db_commit(struct hl_db *w);
void db_rollback(struct hl_db *w);

/* Let go of the pages connection `c` holds of the database (outside a
 * transaction): those it mapped stay in the system's file cache but leave
 * the process's resident memory, those in its page cache are freed; the
 * next reads map and cache what they touch. For after a walk over a whole
 * table (a job's pass) that would otherwise keep it all resident. 0 or
 * HL_EDB. */
int db_let_go(struct hl_db *c);

/* The rows the write connection changed while recording, in the tables
 * it was told to watch (db_watch), as SQLite's pre-update hook reports
 * them (tables WITHOUT ROWID and virtual tables are not reported). The
 * first DB_CHANGES_KEPT are kept; the rest are only counted. A deleted
 * row keeps its old values, so that what it was can still be read once
 * it is gone; a text or blob over DB_CHANGE_VALUE_MAX bytes is kept as
 * NULL (a name is never that long, and the list stays small). */
#define DB_CHANGES_KEPT 100
#define DB_CHANGE_VALUE_MAX 1024

struct db_change {
	char table[64];
	const char *op; /* "insert", "update" or "delete" */
	int64_t rowid;
	sqlite3_value **old; /* a deletion's columns in table order, or NULL */
	int nold;
};

struct db_changes {
	struct db_change list[DB_CHANGES_KEPT];
	size_t n;
	size_t more;
};

/* The tables whose rows are recorded: `n` names, copied. Called on the
 * main thread before serving; again, it replaces the list. 0 or
 * HL_ENOMEM. */
int db_watch(struct db *db, const char *const *tables, int n);
/* Start recording on the writer, what was noted forgotten (on = 1), or
 * stop, what was noted kept for db_recorded_changes (on = 0). */
void db_record_changes(struct hl_db *w, int on);
const struct db_changes *db_recorded_changes(const struct hl_db *w);
/* Stop recording and let go of what was noted (the deleted rows' values). */
void db_forget_changes(struct hl_db *w);

/* What commits changed, per table and location (changes.h); learn the
 * tables once migrations are done. */
struct changes *db_changes(const struct db *db);
int db_learn_tables(struct db *db);

/* Reset the statements handed out since the last call (ends reads), and
 * return how many times they ran since then: a run is one or more steps
 * followed by a reset, so a statement stepped and reset in a loop counts
 * once per pass. (The counts per route in the metrics come from here.) */
uint64_t db_conn_reset(struct hl_db *c);

#endif

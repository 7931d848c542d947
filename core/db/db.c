/* SPDX-License-Identifier: MIT */
/*
 * db.c: connections, their PRAGMAs, the statement cache and the lending of
 * connections (see db.h).
 *
 * Invariants: a read connection is on the free list, lent to exactly one
 * request, or handed to the first waiter; while anyone waits the free list
 * is empty. Waiters are served in the order they came, each handed its
 * connection by db_return, so that under a burst no request waits behind
 * later ones (a woken waiter used to lose the connection to a newcomer:
 * at 50 clients one request waited 400 ms while the median was 50). The
 * write connection is used only by the holder of the write lock, taken in
 * turn (a ticket each, served in order: the job thread, which takes it
 * again as soon as it lets it go, would otherwise win it from a waiting
 * request slice after slice); a statement handed out by hl_stmt is on its
 * connection's `used` list until db_conn_reset.
 */
#include "db/db.h"
#include "db/changes.h"
#include "db/checkpoint.h"
#include "db/slowsql.h"
#include "db/sqlalloc.h"
#include "db/fold_sql.h"
#include "db/phone_sql.h"
#include "db/zone_sql.h"
#include "lib/hash.h"
#include "lib/log.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct cached_stmt {
	char *sql;            /* key, owned */
	uint64_t hash;
	sqlite3_stmt *st;
	uint64_t lease;       /* lease number it was last handed out in */
};

struct hl_db {
	sqlite3 *sql;
	struct db_changes changes; /* rows written while recording (writer only) */
	int recording;
	char **watch;              /* the tables recorded (db_watch), the db's */
	int nwatch;
	const char *watch_name;    /* the hook's last table name, and its */
	int watch_hit;             /* index in watch (-1: not watched) */
	struct changes *tables;    /* the writer's: what commits changed, for the cache */
	struct change_set pending; /* tables and locations of the open transaction */
	struct cached_stmt *slots; /* open addressing, power-of-two size */
	size_t nslots, nused_slots;
	sqlite3_stmt **used;       /* handed out during the current lease */
	size_t nused, capused;
	uint64_t lease;
	struct hl_db *next_free;
	int log_plans;             /* log each new statement's query plan */
	long long deadline_us;     /* statements past it are interrupted; 0: none */
	int overran;               /* one was, since the deadline was set */
	_Atomic long long cache_bytes; /* its page cache, as of its last return */
	_Atomic long long statements;  /* nused_slots, as of its last return */
	_Atomic long long blocks_kept; /* blocks.bytes, as of its last return */
	struct sqlalloc_cache blocks;  /* SQLite's small blocks, freed while held */
	int entered;                   /* blocks is its holder's thread cache */
	_Atomic int waiting;           /* the writer's: threads waiting for its lock */
};

/* A request waiting for a read connection, on its own stack. */
struct pool_waiter {
	pthread_cond_t cond;
	struct hl_db *given;       /* set by db_return, which wakes it */
	struct pool_waiter *next;
};

struct db {
	char *path;
	int lock_fd;           /* flock on DATA_DIR/hyperlevel.lock: one process per data */
	struct hl_db *writer;
	pthread_mutex_t write_lock;    /* guards the tickets */
	pthread_cond_t write_turn;     /* a ticket's turn came */
	unsigned long long write_next, write_serving; /* the next ticket, the one served */
	struct hl_db *readers;
	int nreaders;
	struct hl_db *free_list;
	long long wait_ms;     /* the longest db_lend waits */
	pthread_mutex_t pool_lock;
	pthread_condattr_t monotonic; /* the waiters' clock */
	struct pool_waiter *waiters;  /* the first to come first */
	struct pool_waiter **waiters_end;
	struct changes *changes;
	char **watch;          /* db_watch's names, owned */
	int nwatch;
	struct checkpointer *checkpointer; /* the WAL's checkpoints, off the writer */
};

static int watched(struct hl_db *w, const char *table)
{
	/* SQLite passes the same name pointer for every row of a table; the
	 * name is compared too, as a schema reload may reuse the pointer. */
	int i = w->watch_hit;
	if (table == w->watch_name && i >= 0 && !strcmp(w->watch[i], table))
		return 1;
	w->watch_name = table;
	for (i = 0; i < w->nwatch; i++)
		if (!strcmp(w->watch[i], table))
			break;
	w->watch_hit = i < w->nwatch ? i : -1;
	return w->watch_hit >= 0;
}

/* A deleted row's columns, copied out of the hook (no use of the
 * connection: sqlite3_preupdate_old and sqlite3_value_dup only). */
static void keep_old(sqlite3 *sql, struct db_change *x)
{
	int n = sqlite3_preupdate_count(sql);
	if (n <= 0 || !(x->old = sqlite3_malloc64((sqlite3_uint64)n * sizeof(*x->old))))
		return;
	for (int i = 0; i < n; i++) {
		sqlite3_value *v = NULL;
		x->old[i] = NULL;
		if (sqlite3_preupdate_old(sql, i, &v) != SQLITE_OK || !v)
			continue;
		int type = sqlite3_value_type(v);
		if ((type == SQLITE_TEXT || type == SQLITE_BLOB) &&
		    sqlite3_value_bytes(v) > DB_CHANGE_VALUE_MAX)
			continue;
		x->old[i] = sqlite3_value_dup(v);
	}
	x->nold = n;
}

/* Note a row of a watched table while recording. */
static void record(struct hl_db *w, sqlite3 *sql, int op, const char *table,
		   sqlite3_int64 old_rowid, sqlite3_int64 new_rowid)
{
	struct db_changes *ch = &w->changes;
	if (!w->recording || !watched(w, table))
		return;
	if (ch->n == DB_CHANGES_KEPT) {
		ch->more++;
		return;
	}
	struct db_change *x = &ch->list[ch->n++];
	snprintf(x->table, sizeof(x->table), "%s", table);
	x->op = op == SQLITE_INSERT ? "insert" : op == SQLITE_DELETE ? "delete" : "update";
	x->rowid = op == SQLITE_DELETE ? old_rowid : new_rowid;
	x->old = NULL;
	x->nold = 0;
	if (op == SQLITE_DELETE)
		keep_old(sql, x);
}

int db_watch(struct db *db, const char *const *tables, int n)
{
	char **names = n > 0 ? calloc((size_t)n, sizeof(*names)) : NULL;
	if (n > 0 && !names)
		return HL_ENOMEM;
	for (int i = 0; i < n; i++)
		if (!(names[i] = strdup(tables[i]))) {
			while (i--)
				free(names[i]);
			free(names);
			return HL_ENOMEM;
		}
	for (int i = 0; i < db->nwatch; i++)
		free(db->watch[i]);
	free(db->watch);
	db->watch = db->writer->watch = names;
	db->nwatch = db->writer->nwatch = n;
	db->writer->watch_name = NULL;
	db->writer->watch_hit = -1;
	return 0;
}

void db_forget_changes(struct hl_db *w)
{
	struct db_changes *ch = &w->changes;
	w->recording = 0;
	for (size_t i = 0; i < ch->n; i++) {
		for (int k = 0; k < ch->list[i].nold; k++)
			sqlite3_value_free(ch->list[i].old[k]);
		sqlite3_free(ch->list[i].old);
		ch->list[i].old = NULL;
		ch->list[i].nold = 0;
	}
	ch->n = ch->more = 0;
}

void db_record_changes(struct hl_db *w, int on)
{
	if (on)
		db_forget_changes(w);
	w->recording = on;
}

const struct db_changes *db_recorded_changes(const struct hl_db *w)
{
	return &w->changes;
}

/* SQLite's pre-update hook: note the table and location of every row
 * written, whoever writes it, for the read cache (changes.h); and while
 * recording, the row itself. It must not use the connection. */
static void before_change(void *arg, sqlite3 *sql, int op, const char *database,
			  const char *table, sqlite3_int64 old_rowid, sqlite3_int64 new_rowid)
{
	struct hl_db *w = arg;
	if (strcmp(database, "main"))
		return;
	changes_note(w->tables, &w->pending, sql, op, table);
	record(w, sql, op, table, old_rowid, new_rowid);
}

struct changes *db_changes(const struct db *db)
{
	return db->changes;
}

int db_learn_tables(struct db *db)
{
	return changes_learn(db->changes, db->writer->sql);
}

/* Statements kept per connection at most. SQL is built from a request's
 * filters, so a client can ask for many shapes of one list; when the cache
 * is full, the statements not handed out in the current lease go. */
#define STMT_CACHE_MAX 1024

/* Move the cached statements into a table of `n` slots; with `prune`,
 * finalize those not handed out in the current lease instead. */
static int rehash(struct hl_db *c, size_t n, int prune)
{
	struct cached_stmt *slots = calloc(n, sizeof(*slots));
	if (!slots)
		return HL_ENOMEM;
	c->nused_slots = 0;
	for (size_t i = 0; i < c->nslots; i++) {
		struct cached_stmt *s = &c->slots[i];
		if (!s->sql)
			continue;
		if (prune && s->lease != c->lease) {
			free(s->sql);
			sqlite3_finalize(s->st);
			continue;
		}
		size_t j = s->hash & (n - 1);
		while (slots[j].sql)
			j = (j + 1) & (n - 1);
		slots[j] = *s;
		c->nused_slots++;
	}
	free(c->slots);
	c->slots = slots;
	c->nslots = n;
	return 0;
}

static int cache_grow(struct hl_db *c)
{
	return rehash(c, c->nslots ? c->nslots * 2 : 64, 0);
}

static int note_used(struct hl_db *c, struct cached_stmt *s)
{
	if (s->lease == c->lease)
		return 0;
	if (c->nused == c->capused) {
		size_t cap = c->capused ? c->capused * 2 : 16;
		sqlite3_stmt **u = realloc(c->used, cap * sizeof(*u));
		if (!u)
			return HL_ENOMEM;
		c->used = u;
		c->capused = cap;
	}
	c->used[c->nused++] = s->st;
	s->lease = c->lease;
	return 0;
}

/* `[plan] SQL => step; step; ...` for a statement prepared for the first
 * time (the log_plans setting), so tests can look for full scans. */
static void log_plan(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	char *explain = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", sql);
	if (explain && sqlite3_prepare_v2(db, explain, -1, &st, NULL) == SQLITE_OK) {
		char steps[2048] = "";
		size_t used = 0;
		while (sqlite3_step(st) == SQLITE_ROW && used < sizeof(steps) - 2)
			used += (size_t)snprintf(steps + used, sizeof(steps) - used, "%s%s",
						 used ? "; " : "", (const char *)sqlite3_column_text(st, 3));
		log_info("[plan] %s => %s", sql, steps);
	}
	sqlite3_finalize(st);
	sqlite3_free(explain);
}

HL_API sqlite3_stmt *hl_stmt(struct hl_db *c, const char *sql)
{
	/* NULL so hl_stmt(hl_write_begin(req), ...) needs one check; after an
	 * interrupt, which may have rolled the transaction back, so that no
	 * later write runs on its own. */
	if (!c || c->overran)
		return NULL;
	uint64_t h = hash_fnv1a(sql, strlen(sql));
	size_t mask = c->nslots - 1, j = h & mask;
	while (c->slots[j].sql) {
		struct cached_stmt *s = &c->slots[j];
		if (s->hash == h && !strcmp(s->sql, sql)) {
			sqlite3_reset(s->st);
			sqlite3_clear_bindings(s->st);
			return note_used(c, s) ? NULL : s->st;
		}
		j = (j + 1) & mask;
	}
	/* Full, and holding more than this lease's statements: prune, once. */
	if (c->nused_slots >= STMT_CACHE_MAX && c->nused_slots > c->nused) {
		if (rehash(c, c->nslots, 1)) {
			log_error("out of memory caching a statement");
			return NULL;
		}
		return hl_stmt(c, sql);
	}
	if ((c->nused_slots + 1) * 10 > c->nslots * 7) {
		if (cache_grow(c)) {
			log_error("out of memory caching a statement");
			return NULL;
		}
		return hl_stmt(c, sql);
	}
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v3(c->sql, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK) {
		log_error("SQL error: %s, in: %.300s", sqlite3_errmsg(c->sql), sql);
		return NULL;
	}
	if (c->log_plans)
		log_plan(c->sql, sql);
	char *key = strdup(sql);
	if (!key) {
		sqlite3_finalize(st);
		return NULL;
	}
	struct cached_stmt *s = &c->slots[j];
	s->sql = key;
	s->hash = h;
	s->st = st;
	s->lease = c->lease - 1;
	c->nused_slots++;
	return note_used(c, s) ? NULL : st;
}

/* Step `st` to its end and reset it: SQLITE_DONE, or the failing code;
 * *first is column 0 of the first row (0 without one), *rows 1 when there
 * was one. */
static int step_to_end(sqlite3_stmt *st, int64_t *first, int *rows)
{
	int rc = sqlite3_step(st);
	*rows = rc == SQLITE_ROW;
	*first = *rows ? sqlite3_column_int64(st, 0) : 0;
	while (rc == SQLITE_ROW)
		rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc;
}

HL_API sqlite3_stmt *hl_stmt_scoped(struct hl_db *c, int64_t location, const char *sql)
{
	sqlite3_stmt *st = hl_stmt(c, sql);
	if (!st)
		return NULL;
	int idx = sqlite3_bind_parameter_index(st, ":location");
	if (!idx || location <= 0) {
		log_error("%s: %.60s", idx ? "no location for a scoped statement"
					   : "a scoped statement needs a :location parameter", sql);
		return NULL;
	}
	sqlite3_bind_int64(st, idx, location);
	return st;
}

HL_API void hl_bind_int(sqlite3_stmt *st, const char *name, int64_t value)
{
	int i = st ? sqlite3_bind_parameter_index(st, name) : 0;
	if (i)
		sqlite3_bind_int64(st, i, value);
}

HL_API void hl_bind_text(sqlite3_stmt *st, const char *name, const char *value)
{
	int i = st ? sqlite3_bind_parameter_index(st, name) : 0;
	if (i)
		sqlite3_bind_text(st, i, value, -1, SQLITE_TRANSIENT);
}

HL_API void hl_bind_blob(sqlite3_stmt *st, const char *name, const void *data, size_t len)
{
	int i = st ? sqlite3_bind_parameter_index(st, name) : 0;
	if (i)
		sqlite3_bind_blob64(st, i, data, len, SQLITE_TRANSIENT);
}

HL_API int hl_step_int(sqlite3_stmt *st, int64_t *out)
{
	int rows;
	*out = 0;
	if (!st || step_to_end(st, out, &rows) != SQLITE_DONE)
		return HL_EDB;
	return rows;
}

HL_API int64_t hl_step_changes(sqlite3_stmt *st)
{
	int64_t first;
	int rows;
	if (!st || step_to_end(st, &first, &rows) != SQLITE_DONE)
		return HL_EDB;
	return sqlite3_changes64(sqlite3_db_handle(st));
}

HL_API int64_t hl_step_last_id(sqlite3_stmt *st)
{
	int64_t first;
	int rows;
	if (!st || step_to_end(st, &first, &rows) != SQLITE_DONE)
		return HL_EDB;
	sqlite3 *db = sqlite3_db_handle(st);
	return sqlite3_changes64(db) ? sqlite3_last_insert_rowid(db) : 0;
}

HL_API int hl_exec(struct hl_db *c, const char *sql)
{
	char *err = NULL;
	if (!c || c->overran)
		return HL_EDB;
	if (sqlite3_exec(c->sql, sql, NULL, NULL, &err) != SQLITE_OK) {
		log_error("SQL error: %s, in: %.300s", err ? err : sqlite3_errmsg(c->sql), sql);
		sqlite3_free(err);
		return HL_EDB;
	}
	return 0;
}

HL_API sqlite3 *hl_sqlite(struct hl_db *c)
{
	return c ? c->sql : NULL;
}

HL_API const char *hl_db_errmsg(struct hl_db *c)
{
	return c ? sqlite3_errmsg(c->sql) : "no database connection";
}

uint64_t db_conn_reset(struct hl_db *c)
{
	uint64_t runs = 0;
	for (size_t i = 0; i < c->nused; i++) {
		sqlite3_reset(c->used[i]);
		runs += (uint64_t)sqlite3_stmt_status(c->used[i], SQLITE_STMTSTATUS_RUN, 1);
	}
	c->nused = 0;
	c->lease++;
	return runs;
}

/* SQLite's progress handler, every PROGRESS_STEPS steps of a statement:
 * one past its connection's deadline is interrupted (SQLITE_INTERRUPT). */
#define PROGRESS_STEPS 1000

static int past_deadline(void *arg)
{
	struct hl_db *c = arg;
	if (!c->deadline_us || now_us() <= c->deadline_us)
		return 0;
	c->overran = 1;
	return 1;
}

void db_set_deadline(struct hl_db *c, long long deadline_us)
{
	c->deadline_us = deadline_us;
	c->overran = 0;
}

int db_overran(const struct hl_db *c)
{
	return c && c->overran;
}

static void conn_close(struct hl_db *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nslots; i++) {
		free(c->slots[i].sql);
		sqlite3_finalize(c->slots[i].st);
	}
	free(c->slots);
	free(c->used);
	sqlite3_close(c->sql);
	sqlalloc_drain(&c->blocks);
	memset(c, 0, sizeof(*c));
}

static int conn_open(struct hl_db *c, const char *path, const struct config *cfg, int writer)
{
	char pragmas[512];
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (writer ? SQLITE_OPEN_CREATE : 0);
	if (sqlite3_open_v2(path, &c->sql, flags, NULL) != SQLITE_OK) {
		log_error("%s: cannot open the database: %s", path,
			  c->sql ? sqlite3_errmsg(c->sql) : "out of memory");
		return HL_EDB;
	}
	/* recursive_triggers: a REPLACE fires the delete triggers of the rows
	 * it replaces, so that counts kept by triggers stay right. */
	snprintf(pragmas, sizeof(pragmas),
		 "PRAGMA busy_timeout = 10000;"
		 "PRAGMA journal_mode = WAL;"
		 "PRAGMA synchronous = NORMAL;"
		 "PRAGMA temp_store = MEMORY;"
		 "PRAGMA cache_size = -%lld;"
		 "PRAGMA mmap_size = %lld;"
		 "PRAGMA foreign_keys = ON;"
		 "PRAGMA secure_delete = OFF;"
		 "PRAGMA recursive_triggers = ON;"
		 "PRAGMA query_only = %d;",
		 cfg->sqlite_cache_mb * 1024, cfg->sqlite_mmap_mb * 1024 * 1024, !writer);
	if (hl_exec(c, pragmas) || cache_grow(c) || zone_sql_register(c->sql) != SQLITE_OK ||
	    phone_sql_register(c->sql) != SQLITE_OK || fold_sql_register(c->sql) != SQLITE_OK) {
		log_error("%s: cannot set up the database connection", path);
		return HL_EDB;
	}
	/* "text" is an identifier, never a string: SQL stays unambiguous and
	 * no literal can pass for a name in the slow-query log. */
	sqlite3_db_config(c->sql, SQLITE_DBCONFIG_DQS_DML, 0, (int *)NULL);
	sqlite3_db_config(c->sql, SQLITE_DBCONFIG_DQS_DDL, 0, (int *)NULL);
	slowsql_watch(c->sql, cfg->slow_query_ms);
	sqlite3_progress_handler(c->sql, PROGRESS_STEPS, past_deadline, c);
	c->log_plans = (int)cfg->log_plans;
	c->lease = 1;
	return 0;
}

static int make_dir(const char *dir)
{
	if (mkdir(dir, 0750) && errno != EEXIST) {
		log_error("%s: cannot create the data directory: %s", dir, strerror(errno));
		return HL_EIO;
	}
	return 0;
}

/* One process per data directory: two servers (or a server and a
 * `hyperlevel migrate`) would each think they are the only writer. */
static int lock_data_dir(struct db *db, const char *dir)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/hyperlevel.lock", dir);
	db->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0640);
	if (db->lock_fd < 0) {
		log_error("%s: %s", path, strerror(errno));
		return HL_EIO;
	}
	if (flock(db->lock_fd, LOCK_EX | LOCK_NB)) {
		log_error("%s is used by another hyperlevel process", dir);
		return HL_EIO;
	}
	return 0;
}

static int pool_size(const struct config *cfg)
{
	if (cfg->read_connections > 0)
		return (int)cfg->read_connections;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int n = cores > 0 ? (int)cores * 2 : 4;
	return n < 2 ? 2 : n;
}

/* The checkpointer's moment between two writes (checkpoint.h): it takes
 * its turn at the write lock as any writer does. */
static void hold_writers(void *arg)
{
	db_write_lock(arg);
}

static void release_writers(void *arg)
{
	struct db *db = arg;
	db_write_unlock(db, db->writer);
}

int db_open(struct db **out, const struct config *cfg)
{
	int rc = HL_ENOMEM;
	struct db *db = calloc(1, sizeof(*db));
	*out = NULL;
	if (!db)
		return HL_ENOMEM;
	/* SQLite's global memory statistics take one lock on every allocation
	 * of every thread; nothing reads them. Both are ignored once SQLite is
	 * up (a second db_open in one process). */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	sqlalloc_install();
	pthread_mutex_init(&db->write_lock, NULL);
	pthread_cond_init(&db->write_turn, NULL);
	pthread_mutex_init(&db->pool_lock, NULL);
	pthread_condattr_init(&db->monotonic);
	pthread_condattr_setclock(&db->monotonic, CLOCK_MONOTONIC);
	db->waiters_end = &db->waiters;
	db->wait_ms = cfg->reader_wait_ms;
	db->lock_fd = -1;
	if ((rc = make_dir(cfg->data_dir)) || (rc = lock_data_dir(db, cfg->data_dir)))
		goto out;
	rc = HL_ENOMEM;
	if (asprintf(&db->path, "%s/hyperlevel.db", cfg->data_dir) < 0) {
		db->path = NULL;
		goto out;
	}
	if (!(db->writer = calloc(1, sizeof(*db->writer))))
		goto out;
	if ((rc = conn_open(db->writer, db->path, cfg, 1)))
		goto out;
	rc = HL_ENOMEM;
	if (!(db->changes = db->writer->tables = changes_new()))
		goto out;
	sqlite3_preupdate_hook(db->writer->sql, before_change, db->writer);
	db->nreaders = pool_size(cfg);
	rc = HL_ENOMEM;
	if (!(db->readers = calloc((size_t)db->nreaders, sizeof(*db->readers))))
		goto out;
	for (int i = 0; i < db->nreaders; i++) {
		if ((rc = conn_open(&db->readers[i], db->path, cfg, 0)))
			goto out;
		db->readers[i].next_free = db->free_list;
		db->free_list = &db->readers[i];
	}
	if ((rc = checkpointer_start(&db->checkpointer, db->path, db->writer->sql,
				      (struct checkpoint_writers){ hold_writers, release_writers, db })))
		goto out;
	*out = db;
	db = NULL;
	rc = 0;
out:
	db_close(db);
	return rc;
}

void db_close(struct db *db)
{
	if (!db)
		return;
	checkpointer_stop(db->checkpointer); /* one checkpointing connection at a time */
	for (int i = 0; db->readers && i < db->nreaders; i++)
		conn_close(&db->readers[i]);
	free(db->readers);
	if (db->writer) {
		db_forget_changes(db->writer);
		conn_close(db->writer);
		free(db->writer);
	}
	for (int i = 0; i < db->nwatch; i++)
		free(db->watch[i]);
	free(db->watch);
	changes_free(db->changes);
	pthread_mutex_destroy(&db->write_lock);
	pthread_cond_destroy(&db->write_turn);
	pthread_mutex_destroy(&db->pool_lock);
	pthread_condattr_destroy(&db->monotonic);
	if (db->lock_fd >= 0)
		close(db->lock_fd);
	free(db->path);
	free(db);
}

time_t db_modified(const struct db *db)
{
	char wal[PATH_MAX + 8];
	struct stat st;
	time_t at = 0;
	snprintf(wal, sizeof(wal), "%s-wal", db->path);
	if (!stat(db->path, &st))
		at = st.st_mtime;
	if (!stat(wal, &st) && st.st_mtime > at)
		at = st.st_mtime;
	return at;
}

const char *db_path(const struct db *db)
{
	return db->path;
}

/* The queue of waiters, with pool_lock held: w joins it last, or leaves
 * it from wherever it stands. */
static void join_queue(struct db *db, struct pool_waiter *w)
{
	assert(!db->free_list);
	w->next = NULL;
	*db->waiters_end = w;
	db->waiters_end = &w->next;
}

static void leave_queue(struct db *db, struct pool_waiter *w)
{
	struct pool_waiter **at = &db->waiters;
	while (*at != w) {
		assert(*at);
		at = &(*at)->next;
	}
	*at = w->next;
	if (db->waiters_end == &w->next)
		db->waiters_end = at;
}

/* Queue w last and wait until db_return hands it a connection or
 * wait_ms pass; on a timeout take it off the queue. Called with pool_lock. */
static struct hl_db *wait_in_turn(struct db *db, struct pool_waiter *w, long long wait_ms)
{
	struct timespec until;
	monotonic_in(wait_ms * 1000, &until);
	pthread_cond_init(&w->cond, &db->monotonic);
	join_queue(db, w);
	int rc = 0;
	while (!w->given && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&w->cond, &db->pool_lock, &until);
	if (!w->given)
		leave_queue(db, w);
	pthread_cond_destroy(&w->cond);
	return w->given;
}

static struct hl_db *lend(struct db *db, long long wait_ms)
{
	struct pool_waiter w = { .given = NULL, .next = NULL };
	pthread_mutex_lock(&db->pool_lock);
	struct hl_db *c = db->free_list;
	if (c)
		db->free_list = c->next_free;
	else if (wait_ms)
		c = wait_in_turn(db, &w, wait_ms);
	pthread_mutex_unlock(&db->pool_lock);
	if (c)
		c->entered = sqlalloc_enter(&c->blocks);
	return c;
}

struct hl_db *db_lend(struct db *db)
{
	struct hl_db *c = lend(db, db->wait_ms);
	if (!c)
		log_warn("no read connection came free in %lld ms", db->wait_ms);
	return c;
}

struct hl_db *db_lend_now(struct db *db)
{
	return lend(db, 0);
}

/* The page cache, the statement cache and the small-block cache are the
 * connection's own: they are read here, by its current holder, and kept
 * for db_cache_usage to add up from any thread. */
static void note_cache_size(struct hl_db *c)
{
	int now = 0, high = 0;
	sqlite3_db_status(c->sql, SQLITE_DBSTATUS_CACHE_USED, &now, &high, 0);
	atomic_store_explicit(&c->cache_bytes, now, memory_order_relaxed);
	atomic_store_explicit(&c->statements, (long long)c->nused_slots, memory_order_relaxed);
	atomic_store_explicit(&c->blocks_kept, (long long)c->blocks.bytes, memory_order_relaxed);
}

static void add_usage(const struct hl_db *c, struct db_cache_usage *u)
{
	u->page_bytes += atomic_load_explicit(&c->cache_bytes, memory_order_relaxed);
	u->statements += atomic_load_explicit(&c->statements, memory_order_relaxed);
	u->block_bytes += atomic_load_explicit(&c->blocks_kept, memory_order_relaxed);
}

void db_cache_usage(const struct db *db, struct db_cache_usage *u)
{
	memset(u, 0, sizeof(*u));
	add_usage(db->writer, u);
	for (int i = 0; i < db->nreaders; i++)
		add_usage(&db->readers[i], u);
}

void db_return(struct db *db, struct hl_db *c)
{
	if (!c)
		return;
	note_cache_size(c);
	db_conn_reset(c);
	db_set_deadline(c, 0);
	if (c->entered)
		sqlalloc_leave();
	pthread_mutex_lock(&db->pool_lock);
	struct pool_waiter *w = db->waiters;
	assert(!w || !db->free_list);
	if (w) {
		if (!(db->waiters = w->next))
			db->waiters_end = &db->waiters;
		w->given = c;
		pthread_cond_signal(&w->cond);
	} else {
		c->next_free = db->free_list;
		db->free_list = c;
	}
	pthread_mutex_unlock(&db->pool_lock);
}

struct hl_db *db_write_lock(struct db *db)
{
	pthread_mutex_lock(&db->write_lock);
	unsigned long long ticket = db->write_next++;
	if (ticket != db->write_serving) {
		atomic_fetch_add(&db->writer->waiting, 1);
		while (ticket != db->write_serving)
			pthread_cond_wait(&db->write_turn, &db->write_lock);
		atomic_fetch_sub(&db->writer->waiting, 1);
	}
	pthread_mutex_unlock(&db->write_lock);
	db->writer->entered = sqlalloc_enter(&db->writer->blocks);
	return db->writer;
}

int db_writer_wanted(struct hl_db *w)
{
	return atomic_load(&w->waiting) > 0;
}

void db_write_unlock(struct db *db, struct hl_db *w)
{
	note_cache_size(w);
	db_conn_reset(w);
	db_set_deadline(w, 0);
	/* Writes made outside BEGIN ... COMMIT have committed by now. */
	if (sqlite3_get_autocommit(w->sql))
		changes_publish(w->tables, &w->pending);
	if (w->entered)
		sqlalloc_leave();
	pthread_mutex_lock(&db->write_lock);
	db->write_serving++;
	if (atomic_load(&w->waiting))
		pthread_cond_broadcast(&db->write_turn);
	pthread_mutex_unlock(&db->write_lock);
}

int db_begin(struct hl_db *w)
{
	changes_publish(w->tables, &w->pending); /* autocommit writes before */
	return hl_exec(w, "BEGIN IMMEDIATE");
}

int db_commit(struct hl_db *w)
{
	db_conn_reset(w);
	if (hl_exec(w, "COMMIT")) {
		/* COMMIT can fail after its commit point (a checkpoint's I/O
		 * error): count the rows as changed; a spare bump only costs
		 * cached answers a miss. */
		changes_publish(w->tables, &w->pending);
		db_rollback(w);
		return HL_EDB;
	}
	/* Only now: a reader that takes its stamp after this sees the rows. */
	changes_publish(w->tables, &w->pending);
	return 0;
}

int db_let_go(struct hl_db *c)
{
	char sql[96];
	int64_t size;
	sqlite3_db_release_memory(c->sql);
	sqlite3_stmt *st = hl_stmt(c, "PRAGMA mmap_size");
	if (!st || hl_step_int(st, &size) <= 0)
		return HL_EDB;
	sqlite3_reset(st);
	if (!size)
		return 0;
	/* SQLite unmaps the file when the limit changes, and maps it again,
	 * untouched, at the next read under the limit restored. */
	snprintf(sql, sizeof(sql), "PRAGMA mmap_size = 0; PRAGMA mmap_size = %lld", (long long)size);
	return hl_exec(c, sql);
}

void db_rollback(struct hl_db *w)
{
	db_conn_reset(w);
	changes_forget(&w->pending);
	if (!sqlite3_get_autocommit(w->sql))
		sqlite3_exec(w->sql, "ROLLBACK", NULL, NULL, NULL);
	/* A writer stuck inside a transaction would refuse every later BEGIN. */
	if (!sqlite3_get_autocommit(w->sql))
		fatal("the database cannot roll back: %s", sqlite3_errmsg(w->sql));
}

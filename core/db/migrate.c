/* SPDX-License-Identifier: MIT */
/*
 * migrate.c: the migration runner of migrate.h.
 */
#include "db/migrate.h"
#include "db/db.h"
#include "lib/log.h"

#include <sodium.h>
#include <string.h>

static const char bootstrap[] =
	"CREATE TABLE IF NOT EXISTS schema_migrations ("
	" owner TEXT NOT NULL,"
	" seq INTEGER NOT NULL,"
	" name TEXT NOT NULL,"
	" checksum TEXT NOT NULL,"
	" applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')),"
	" PRIMARY KEY (owner, seq)) WITHOUT ROWID";

static void checksum(const char *sql, char hex[2 * crypto_hash_sha256_BYTES + 1])
{
	unsigned char h[crypto_hash_sha256_BYTES];
	crypto_hash_sha256(h, (const unsigned char *)sql, strlen(sql));
	sodium_bin2hex(hex, 2 * crypto_hash_sha256_BYTES + 1, h, sizeof(h));
}

/* Compare the recorded steps with the shipped ones; *done = steps recorded. */
static int verify(struct hl_db *w, const char *owner, const char *where,
		  const struct hl_migration *steps, int nsteps, int *done)
{
	sqlite3_stmt *st = hl_stmt(w, "SELECT seq, name, checksum FROM schema_migrations"
				      " WHERE owner = :owner ORDER BY seq");
	if (!st)
		return HL_EDB;
	hl_bind_text(st, ":owner", owner);
	int n = 0, rc = 0, step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW && !rc) {
		const char *name = (const char *)sqlite3_column_text(st, 1);
		const char *sum = (const char *)sqlite3_column_text(st, 2);
		if (n >= nsteps) {
			log_error("%s: the database has migration '%s' of %s, which this version does"
				  " not ship: it was written by a newer version", where, name, owner);
			rc = HL_EINVAL;
		} else if (strcmp(name, steps[n].name)) {
			log_error("%s: migration %d of %s is '%s' in the database but '%s' here",
				  where, n + 1, owner, name, steps[n].name);
			rc = HL_EINVAL;
		} else {
			char hex[2 * crypto_hash_sha256_BYTES + 1];
			checksum(steps[n].sql, hex);
			if (strcmp(hex, sum)) {
				log_error("%s: migration '%s' of %s was changed after it was applied;"
					  " add a new migration instead of editing a shipped one",
					  where, name, owner);
				rc = HL_EINVAL;
			}
		}
		n++;
	}
	if (!rc && step != SQLITE_DONE && step != SQLITE_ROW) {
		log_error("%s: reading schema_migrations: %s", where, hl_db_errmsg(w));
		rc = HL_EDB;
	}
	sqlite3_reset(st);
	*done = n;
	return rc;
}

/* A step runs inside the transaction that records it. A COMMIT, END or
 * ROLLBACK in its text (a trigger's END once too often) would end that
 * transaction early: the rest of the step and its record would then be
 * written on their own, and a step that failed could be recorded as
 * applied. SQLite's authorizer refuses those statements as they are
 * prepared, so the step fails and rolls back whole. */
static int no_transaction_end(void *ended, int action, const char *a, const char *b,
			      const char *c, const char *d)
{
	(void)a, (void)b, (void)c, (void)d;
	if (action != SQLITE_TRANSACTION)
		return SQLITE_OK;
	*(int *)ended = 1;
	return SQLITE_DENY;
}

static int run_step(struct hl_db *w, const char *sql, char **err)
{
	int ended = 0;
	sqlite3_set_authorizer(hl_sqlite(w), no_transaction_end, &ended);
	int rc = sqlite3_exec(hl_sqlite(w), sql, NULL, NULL, err);
	sqlite3_set_authorizer(hl_sqlite(w), NULL, NULL);
	if (rc != SQLITE_OK && ended) {
		sqlite3_free(*err);
		*err = sqlite3_mprintf("it holds BEGIN, COMMIT, END or ROLLBACK: the runner"
				       " gives each step a transaction of its own");
	}
	return rc;
}

static int apply(struct hl_db *w, const char *owner, const char *where,
		 const struct hl_migration *m, int seq)
{
	char hex[2 * crypto_hash_sha256_BYTES + 1];
	checksum(m->sql, hex);
	if (db_begin(w))
		return HL_EDB;
	char *err = NULL;
	/* A retired step is recorded, not run: its work is done elsewhere. */
	if (!(m->flags & HL_MIGRATION_RETIRED) && run_step(w, m->sql, &err) != SQLITE_OK) {
		log_error("%s: migration '%s' of %s failed: %s", where, m->name, owner,
			  err ? err : hl_db_errmsg(w));
		sqlite3_free(err);
		db_rollback(w);
		return HL_EDB;
	}
	sqlite3_stmt *st = hl_stmt(w, "INSERT INTO schema_migrations (owner, seq, name, checksum)"
				      " VALUES (:owner, :seq, :name, :checksum)");
	hl_bind_text(st, ":owner", owner);
	hl_bind_int(st, ":seq", seq);
	hl_bind_text(st, ":name", m->name);
	hl_bind_text(st, ":checksum", hex);
	if (hl_step_changes(st) < 0 || db_commit(w)) {
		log_error("%s: recording migration '%s' of %s: %s", where, m->name, owner,
			  hl_db_errmsg(w));
		db_rollback(w);
		return HL_EDB;
	}
	return 0;
}

int migrate_owner(struct hl_db *w, const char *owner, const char *where,
		  const struct hl_migration *steps, int nsteps, int *applied)
{
	int done = 0, rc;
	*applied = 0;
	if (hl_exec(w, bootstrap))
		return HL_EDB;
	if ((rc = verify(w, owner, where, steps, nsteps, &done)))
		return rc;
	for (int i = done; i < nsteps; i++) {
		if ((rc = apply(w, owner, where, &steps[i], i + 1)))
			return rc;
		(*applied)++;
	}
	return 0;
}

int migrate_verify(struct hl_db *w, const char *owner, const char *where,
		   const struct hl_migration *steps, int nsteps)
{
	int done;
	return verify(w, owner, where, steps, nsteps, &done);
}

int migrate_pending(struct hl_db *w, const char *owner, int nsteps)
{
	sqlite3_stmt *st = hl_stmt(w, "SELECT 1 FROM sqlite_schema WHERE name = 'schema_migrations'");
	int64_t exists = 0;
	if (hl_step_int(st, &exists) < 0)
		return HL_EDB;
	st = exists ? hl_stmt(w, "SELECT count(*), (SELECT count(*) FROM schema_migrations)"
				 " FROM schema_migrations WHERE owner = :owner") : NULL;
	if (!st)
		return exists ? HL_EDB : 0;
	hl_bind_text(st, ":owner", owner);
	int rc = sqlite3_step(st);
	int64_t mine = sqlite3_column_int64(st, 0), all = sqlite3_column_int64(st, 1);
	sqlite3_reset(st);
	if (rc != SQLITE_ROW)
		return HL_EDB;
	/* A new database holds nothing to lose. */
	return all && mine < nsteps ? nsteps - (int)mine : 0;
}

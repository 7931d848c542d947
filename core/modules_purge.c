/* SPDX-License-Identifier: MIT */
/*
 * modules_purge.c: `hyperlevel modules purge NAME`, which takes a disabled
 * module's data out of the database for good: after a checked backup, its
 * tables, views, indexes and triggers are dropped and its migration
 * records and job state deleted, in one transaction. Enabling the module
 * again later runs its migrations afresh, on empty tables.
 *
 * The database does not say which module made which object, so the
 * module's migrations are asked: the core's steps and every enabled
 * module's are replayed, in load order, into an empty database in memory,
 * then the purged module's, and SQLite's authorizer notes what each one
 * creates. An object is the purged module's when one of its own steps
 * creates it and no other owner's does (two modules may both create an
 * index IF NOT EXISTS); only those still in the real database are
 * dropped. A step that fails in the replay (it reads a table of a module
 * that is off, say) is skipped statement by statement: what it would
 * have created is still noted, since the authorizer runs as the statement
 * is prepared. Retired steps are not replayed: what they made belongs to
 * the module that now makes it.
 */
#include "backup.h"
#include "db.h"
#include "log.h"
#include "migrate.h"
#include "module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The names the replay saw created: by the purged module, by the rest. */
struct created {
	char **mine;
	int nmine;
	char **others;
	int nothers;
	int replaying_mine;
	int failed;       /* out of memory */
};

static int noted(char **names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return 1;
	return 0;
}

static void note(struct created *c, const char *name)
{
	char ***names = c->replaying_mine ? &c->mine : &c->others;
	int *n = c->replaying_mine ? &c->nmine : &c->nothers;
	if (!name || noted(*names, *n, name))
		return;
	char **grown = realloc(*names, sizeof(*grown) * (size_t)(*n + 1));
	char *copy = strdup(name);
	if (!grown || !copy) {
		free(copy);
		if (grown)
			*names = grown;
		c->failed = 1;
		return;
	}
	*names = grown;
	(*names)[(*n)++] = copy;
}

static int note_creations(void *arg, int action, const char *a, const char *b, const char *c,
			  const char *d)
{
	(void)b, (void)c, (void)d;
	if (action == SQLITE_CREATE_TABLE || action == SQLITE_CREATE_INDEX ||
	    action == SQLITE_CREATE_VIEW || action == SQLITE_CREATE_TRIGGER ||
	    action == SQLITE_CREATE_VTABLE)
		note(arg, a);
	return SQLITE_OK;
}

/* Where the statement starting at `sql` ends: after the first ';' at
 * which the text so far is a complete statement (a trigger's body holds
 * semicolons of its own), or at the end. */
static const char *statement_end(const char *sql)
{
	for (const char *semi = strchr(sql, ';'); semi; semi = strchr(semi + 1, ';')) {
		char *part = strndup(sql, (size_t)(semi - sql + 1));
		int complete = part && sqlite3_complete(part);
		free(part);
		if (complete)
			return semi + 1;
	}
	return sql + strlen(sql);
}

/* Run `sql` statement by statement, going on past a failed one. */
static void replay(sqlite3 *scratch, const char *sql)
{
	while (*sql) {
		sqlite3_stmt *st = NULL;
		const char *tail = NULL;
		if (sqlite3_prepare_v2(scratch, sql, -1, &st, &tail) != SQLITE_OK || !tail ||
		    tail <= sql)
			tail = statement_end(sql);
		while (st && sqlite3_step(st) == SQLITE_ROW)
			;
		sqlite3_finalize(st);
		sql = tail;
	}
}

static void replay_steps(sqlite3 *scratch, const struct hl_migration *steps, int n)
{
	for (int i = 0; i < n; i++)
		if (!(steps[i].flags & HL_MIGRATION_RETIRED))
			replay(scratch, steps[i].sql);
}

/* Fill *c with what `m`'s migrations create and what the core's and the
 * enabled modules' create. 0, HL_EDB or HL_ENOMEM. */
static int learn_objects(const struct modules *set, struct hl_mod *m, struct created *c)
{
	sqlite3 *scratch = NULL;
	if (sqlite3_open_v2(":memory:", &scratch, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		log_error("an in-memory database: %s", scratch ? sqlite3_errmsg(scratch) : "no memory");
		sqlite3_close(scratch);
		return HL_EDB;
	}
	sqlite3_set_authorizer(scratch, note_creations, c);
	replay_steps(scratch, core_migrations, core_migrations_count);
	for (int i = 0; i < modules_count(set); i++) {
		struct hl_mod *other = modules_at(set, i);
		int n;
		if (other != m && mod_state(other) == MOD_LOADED) {
			const struct hl_migration *steps = mod_migrations(other, &n);
			replay_steps(scratch, steps, n);
		}
	}
	int n;
	const struct hl_migration *steps = mod_migrations(m, &n);
	c->replaying_mine = 1;
	replay_steps(scratch, steps, n);
	sqlite3_close(scratch);
	return c->failed ? HL_ENOMEM : 0;
}

/* Drop, in the real database, the purged module's objects of one kind
 * (kinds in an order that leaves no dependent behind: views, triggers,
 * virtual tables, tables, then any index left); `dropped` counts them. */
static int drop_kind(struct hl_db *w, const struct created *c, const char *type, int virtual,
		     int *dropped)
{
	sqlite3_stmt *st = hl_stmt(w, "SELECT 1 FROM sqlite_schema WHERE name = :name"
				      " AND type = :type AND (sql LIKE 'CREATE VIRTUAL%') = :virtual");
	if (!st)
		return HL_EDB;
	for (int i = 0; i < c->nmine; i++) {
		if (noted(c->others, c->nothers, c->mine[i]))
			continue;
		hl_bind_text(st, ":name", c->mine[i]);
		hl_bind_text(st, ":type", type);
		hl_bind_int(st, ":virtual", virtual);
		int found = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_reset(st);
		if (!found)
			continue;
		char *drop = sqlite3_mprintf("DROP %s IF EXISTS \"%w\"", type, c->mine[i]);
		int rc = drop ? hl_exec(w, drop) : HL_ENOMEM;
		sqlite3_free(drop);
		if (rc)
			return rc;
		printf("  dropped %s %s\n", type, c->mine[i]);
		(*dropped)++;
	}
	return 0;
}

/* Drop the objects and forget the module's records, in one transaction;
 * `deleted` counts the migration records and job states. */
static int drop_all(struct hl_db *w, const char *name, const struct created *c, int *dropped,
		    int64_t *deleted)
{
	char prefix[256];
	snprintf(prefix, sizeof(prefix), "%s.", name);
	int rc = db_begin(w);
	if (!rc)
		rc = drop_kind(w, c, "view", 0, dropped);
	if (!rc)
		rc = drop_kind(w, c, "trigger", 0, dropped);
	if (!rc)
		rc = drop_kind(w, c, "table", 1, dropped);
	if (!rc)
		rc = drop_kind(w, c, "table", 0, dropped);
	if (!rc)
		rc = drop_kind(w, c, "index", 0, dropped);
	sqlite3_stmt *st = rc ? NULL : hl_stmt(w, "DELETE FROM schema_migrations WHERE owner = :name");
	hl_bind_text(st, ":name", name);
	int64_t n = rc ? HL_EDB : hl_step_changes(st);
	deleted[0] = n;
	st = n < 0 ? NULL : hl_stmt(w, "DELETE FROM job_state"
				      " WHERE substr(name, 1, length(:prefix)) = :prefix");
	hl_bind_text(st, ":prefix", prefix);
	deleted[1] = n = n < 0 ? n : hl_step_changes(st);
	if (!rc && n < 0)
		rc = HL_EDB;
	if (!rc)
		rc = db_commit(w);
	if (rc) {
		log_error("purging %s: %s; nothing was changed", name, hl_db_errmsg(w));
		db_rollback(w);
	}
	return rc;
}

/* The checks before anything is touched: the module is installed (its
 * migrations tell its tables), off in its own conf, and no module
 * enabled in its conf requires it. 0, or HL_EINVAL / HL_ENOENT logged. */
static int purgeable(const struct modules *set, const struct config *cfg, struct hl_mod *m,
		     const char *name)
{
	char users[1024];
	if (!m || !mod_file(m)) {
		log_error("there is no module '%s' in %s: its file is needed to know its tables"
			  " (hyperlevel modules lists them)", name, cfg->modules_dir);
		return HL_ENOENT;
	}
	if (mod_enabled_in_conf(m) != 0) {
		log_error("%s is enabled: disable it first (hyperlevel modules disable %s)", name,
			  name);
		return HL_EINVAL;
	}
	if (modules_required_by(set, name, users, sizeof(users))) {
		log_error("cannot purge %s: %s require%s it", name, users,
			  strchr(users, ',') ? "" : "s");
		return HL_EINVAL;
	}
	int n;
	if (!mod_migrations(m, &n) && mod_state(m) == MOD_REFUSED)
		return HL_EINVAL; /* it could not be opened: logged */
	return 0;
}

static void forget(struct created *c)
{
	for (int i = 0; i < c->nmine; i++)
		free(c->mine[i]);
	for (int i = 0; i < c->nothers; i++)
		free(c->others[i]);
	free(c->mine);
	free(c->others);
}

int modules_purge(const struct modules *set, const struct config *cfg, const char *name)
{
	struct hl_mod *m = modules_find(set, name);
	int rc = purgeable(set, cfg, m, name);
	if (rc)
		return rc;
	char path[4096];
	snprintf(path, sizeof(path), "%s/hyperlevel.db", cfg->data_dir);
	if (access(path, F_OK)) {
		printf("%s: there is no database at %s, so nothing to purge\n", name, path);
		return 0;
	}
	struct created c = { 0 };
	struct backup_info saved;
	struct db *db = NULL;
	/* The data folder's lock first: no backup is made for a purge that
	 * a running server stops. */
	if ((rc = learn_objects(set, m, &c)) || (rc = db_open(&db, cfg)) ||
	    (rc = backup_make(cfg, &saved))) {
		forget(&c);
		db_close(db);
		return rc;
	}
	printf("backup: %s\n", saved.path);
	struct hl_db *w = db_write_lock(db);
	int dropped = 0;
	int64_t deleted[2] = { 0, 0 };
	/* Another module's table may point at one of these with a foreign
	 * key; dropping would delete its rows first, or fail. */
	rc = hl_exec(w, "PRAGMA foreign_keys = OFF");
	if (!rc)
		rc = drop_all(w, name, &c, &dropped, deleted);
	hl_exec(w, "PRAGMA foreign_keys = ON");
	db_write_unlock(db, w);
	db_close(db);
	forget(&c);
	if (!rc)
		printf("%s purged: %d schema object%s dropped, %lld migration record%s and %lld job"
		       " state%s deleted; enabling it again starts it afresh\n", name, dropped,
		       dropped == 1 ? "" : "s", (long long)deleted[0], deleted[0] == 1 ? "" : "s",
		       (long long)deleted[1], deleted[1] == 1 ? "" : "s");
	return rc;
}

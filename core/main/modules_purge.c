/* SPDX-License-Identifier: MIT */
/*
 * modules_purge.c: `hyperlevel modules purge NAME`, which takes a disabled
 * module's data out of the database for good: after a checked backup, its
 * tables, views, indexes and triggers are dropped and its migration
 * records and job state deleted, in one transaction. Enabling the module
 * again later runs its migrations afresh, on empty tables.
 *
 * The database does not say which module made which object, so the
 * modules' migrations are asked: the core's steps and every other
 * installed module's are replayed, requirements first, into an empty
 * database in memory; then the purged module's. Its objects are those
 * its steps added to that database's schema (a table it renamed counts
 * under its new name; an index another module also makes IF NOT EXISTS
 * was there already, so is not its). Only those still in the real
 * database are dropped. Nothing is dropped when the replay cannot tell:
 * a step of the purged module fails on the empty database, or changes an
 * object that is not its own (ALTER TABLE on another module's table), or
 * the database holds steps of it that its file does not ship. Retired
 * steps are not replayed: what they made belongs to the module that now
 * makes it.
 */
#include "db/backup.h"
#include "db/db.h"
#include "db/migrate.h"
#include "db/zone_sql.h"
#include "lib/log.h"
#include "platform/module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A schema object of the replay: its type, name and text. */
struct object {
	char type[16];
	char *name;
	char *sql;
};

struct schema {
	struct object *o;
	int n;
};

static void schema_free(struct schema *s)
{
	for (int i = 0; i < s->n; i++) {
		free(s->o[i].name);
		free(s->o[i].sql);
	}
	free(s->o);
	s->o = NULL;
	s->n = 0;
}

/* What `db` holds (but SQLite's own objects), into *s. 0 or HL_ENOMEM. */
static int read_schema(sqlite3 *db, struct schema *s)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, "SELECT type, name, coalesce(sql, '') FROM sqlite_schema"
				    " WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'", -1, &st, NULL);
	while (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
		struct object *grown = realloc(s->o, sizeof(*grown) * (size_t)(s->n + 1));
		if (!grown) {
			rc = SQLITE_NOMEM;
			break;
		}
		s->o = grown;
		struct object *o = &s->o[s->n++];
		snprintf(o->type, sizeof(o->type), "%s", (const char *)sqlite3_column_text(st, 0));
		o->name = strdup((const char *)sqlite3_column_text(st, 1));
		o->sql = strdup((const char *)sqlite3_column_text(st, 2));
		if (!o->name || !o->sql)
			rc = SQLITE_NOMEM;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_OK ? 0 : HL_ENOMEM;
}

/* The object of `s` called `name` (names are not case-sensitive). */
static const struct object *find(const struct schema *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!sqlite3_stricmp(s->o[i].name, name))
			return &s->o[i];
	return NULL;
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

/* Run `steps` statement by statement, going on past a failed one; the
 * first failure is logged as `owner`'s when `strict`. How many failed. */
static int replay(sqlite3 *scratch, const char *owner, const struct hl_migration *steps, int n,
		  int strict)
{
	int failed = 0;
	for (int i = 0; i < n; i++) {
		if (steps[i].flags & HL_MIGRATION_RETIRED)
			continue;
		for (const char *sql = steps[i].sql; *sql;) {
			sqlite3_stmt *st = NULL;
			const char *tail = NULL;
			int rc = sqlite3_prepare_v2(scratch, sql, -1, &st, &tail);
			while (rc == SQLITE_OK && st && (rc = sqlite3_step(st)) == SQLITE_ROW)
				;
			if (rc != SQLITE_OK && rc != SQLITE_DONE && strict && !failed++)
				log_error("cannot tell %s's tables: its migration '%s' fails on an empty"
					  " database (%s); nothing was changed", owner, steps[i].name,
					  sqlite3_errmsg(scratch));
			sqlite3_finalize(st);
			sql = tail && tail > sql ? tail : statement_end(sql);
		}
	}
	return failed;
}

/* Whether every module `o` requires has been replayed (`m`, the purged
 * one, is replayed last and waits for nobody). */
static int requirements_done(const struct modules *set, struct hl_mod *o, struct hl_mod *m,
			     const char *done)
{
	for (const char *const *r = mod_requires(o); r && *r; r++)
		for (int k = 0; k < modules_count(set); k++) {
			struct hl_mod *dep = modules_at(set, k);
			if (!done[k] && dep != m && mod_file(dep) && !strcmp(mod_name(dep), *r))
				return 0;
		}
	return 1;
}

/* Replay every installed module but `m`, each after those it requires;
 * the last pass takes what a cycle or a missing requirement held back.
 * 0 or HL_ENOMEM. */
static int replay_others(sqlite3 *scratch, const struct modules *set, struct hl_mod *m)
{
	int n = modules_count(set);
	char *done = calloc((size_t)n + 1, 1);
	if (!done)
		return HL_ENOMEM;
	for (int pass = 0; pass <= n; pass++)
		for (int i = 0; i < n; i++) {
			struct hl_mod *o = modules_at(set, i);
			int count;
			if (done[i] || o == m || !mod_file(o) ||
			    (pass < n && !requirements_done(set, o, m, done)))
				continue;
			const struct hl_migration *steps = mod_migrations(o, &count);
			replay(scratch, mod_name(o), steps, count, 0);
			done[i] = 1;
		}
	free(done);
	return 0;
}

/* Into *mine, the objects `m`'s migrations make, as the schema after its
 * replay has and the schema before had not. 0, or HL_EINVAL / HL_EDB /
 * HL_ENOMEM after one line. */
static int learn_objects(const struct modules *set, struct hl_mod *m, struct schema *mine)
{
	sqlite3 *scratch = NULL;
	struct schema before = { 0 }, after = { 0 };
	if (sqlite3_open_v2(":memory:", &scratch, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		log_error("an in-memory database: %s", scratch ? sqlite3_errmsg(scratch) : "no memory");
		sqlite3_close(scratch);
		return HL_EDB;
	}
	zone_sql_register(scratch);
	replay(scratch, "core", core_migrations, core_migrations_count, 0);
	int n, rc = replay_others(scratch, set, m);
	if (!rc)
		rc = read_schema(scratch, &before);
	const struct hl_migration *steps = mod_migrations(m, &n);
	if (!rc && replay(scratch, mod_name(m), steps, n, 1))
		rc = HL_EINVAL;
	if (!rc)
		rc = read_schema(scratch, &after);
	for (int i = 0; !rc && i < before.n; i++) {
		const struct object *now = find(&after, before.o[i].name);
		if (!now || strcmp(now->sql, before.o[i].sql)) {
			log_error("cannot purge %s: its migrations change %s %s, which is not its own;"
				  " nothing was changed", mod_name(m), before.o[i].type, before.o[i].name);
			rc = HL_EINVAL;
		}
	}
	for (int i = 0; !rc && i < after.n; i++) {
		if (find(&before, after.o[i].name))
			continue;
		struct object *grown = realloc(mine->o, sizeof(*grown) * (size_t)(mine->n + 1));
		if (!grown) {
			rc = HL_ENOMEM;
			break;
		}
		mine->o = grown;
		mine->o[mine->n++] = after.o[i];
		after.o[i].name = after.o[i].sql = NULL; /* moved */
	}
	schema_free(&before);
	schema_free(&after);
	sqlite3_close(scratch);
	return rc;
}

/* Drop, in the real database, the purged module's objects of one type
 * (types in an order that leaves no dependent behind: views, triggers,
 * tables, then any index left; a virtual table before the tables it
 * made for itself). */
static int drop_type(struct hl_db *w, const struct schema *mine, const char *type, int virtual,
		     int *dropped)
{
	sqlite3_stmt *st = hl_stmt(w, "SELECT name FROM sqlite_schema WHERE name = :name"
				      " COLLATE NOCASE AND type = :type"
				      " AND (sql LIKE 'CREATE VIRTUAL%') = :virtual");
	if (!st)
		return HL_EDB;
	for (int i = 0; i < mine->n; i++) {
		hl_bind_text(st, ":name", mine->o[i].name);
		hl_bind_text(st, ":type", type);
		hl_bind_int(st, ":virtual", virtual);
		char *drop = NULL;
		if (sqlite3_step(st) == SQLITE_ROW)
			drop = sqlite3_mprintf("DROP %s IF EXISTS \"%w\"", type,
					       (const char *)sqlite3_column_text(st, 0));
		sqlite3_reset(st);
		if (!drop)
			continue;
		int rc = hl_exec(w, drop);
		sqlite3_free(drop);
		if (rc)
			return rc;
		printf("  dropped %s %s\n", type, mine->o[i].name);
		(*dropped)++;
	}
	return 0;
}

struct purged {
	int objects;
	int64_t migrations, jobs;
};

/* Drop the objects and forget the module's records, in one transaction. */
static int drop_all(struct hl_db *w, const char *name, const struct schema *mine,
		    struct purged *out)
{
	char prefix[256];
	snprintf(prefix, sizeof(prefix), "%s.", name);
	int rc = db_begin(w);
	if (!rc)
		rc = drop_type(w, mine, "view", 0, &out->objects);
	if (!rc)
		rc = drop_type(w, mine, "trigger", 0, &out->objects);
	if (!rc)
		rc = drop_type(w, mine, "table", 1, &out->objects);
	if (!rc)
		rc = drop_type(w, mine, "table", 0, &out->objects);
	if (!rc)
		rc = drop_type(w, mine, "index", 0, &out->objects);
	sqlite3_stmt *st = rc ? NULL : hl_stmt(w, "DELETE FROM schema_migrations WHERE owner = :name");
	hl_bind_text(st, ":name", name);
	out->migrations = rc ? HL_EDB : hl_step_changes(st);
	st = out->migrations < 0 ? NULL : hl_stmt(w, "DELETE FROM job_state"
						  " WHERE substr(name, 1, length(:prefix)) = :prefix");
	hl_bind_text(st, ":prefix", prefix);
	out->jobs = out->migrations < 0 ? HL_EDB : hl_step_changes(st);
	if (!rc && out->jobs < 0)
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
	/* Another module's migrations tell what is its own: unknown, it
	 * might share a table with this one. */
	for (int i = 0; i < modules_count(set); i++) {
		struct hl_mod *o = modules_at(set, i);
		if (mod_state(o) == MOD_REFUSED && mod_file(o)) {
			log_error("cannot purge %s while %s is refused (the line above says why):"
				  " its migrations are needed to tell the tables apart", name,
				  mod_name(o));
			return HL_EINVAL;
		}
	}
	return 0;
}

/* Purge on the open database: the recorded steps must be the shipped
 * ones (a newer version's would leave objects no replay knows). */
static int purge_open(struct db *db, const struct config *cfg, struct hl_mod *m,
		      const struct schema *mine, struct purged *out)
{
	int n;
	const struct hl_migration *steps = mod_migrations(m, &n);
	struct hl_db *w = db_write_lock(db);
	int rc = migrate_verify(w, mod_name(m), mod_file(m), steps, n);
	struct backup_info saved;
	if (!rc && !(rc = backup_make(cfg, &saved)))
		printf("backup: %s\n", saved.path);
	/* Another module's table may point at one of these with a foreign
	 * key; dropping would delete its rows first, or fail. */
	if (!rc)
		rc = hl_exec(w, "PRAGMA foreign_keys = OFF");
	if (!rc) {
		rc = drop_all(w, mod_name(m), mine, out);
		hl_exec(w, "PRAGMA foreign_keys = ON");
	}
	db_write_unlock(db, w);
	return rc;
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
	struct schema mine = { 0 };
	struct purged done = { 0 };
	struct db *db = NULL;
	/* The data folder's lock before the backup: none is made for a purge
	 * that a running server stops. */
	if (!(rc = learn_objects(set, m, &mine)) && !(rc = db_open(&db, cfg)))
		rc = purge_open(db, cfg, m, &mine, &done);
	db_close(db);
	schema_free(&mine);
	if (!rc)
		printf("%s purged: %d schema object%s dropped, %lld migration record%s and %lld job"
		       " state%s deleted; enabling it again starts it afresh\n", name, done.objects,
		       done.objects == 1 ? "" : "s", (long long)done.migrations,
		       done.migrations == 1 ? "" : "s", (long long)done.jobs,
		       done.jobs == 1 ? "" : "s");
	return rc;
}

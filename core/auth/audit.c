/* SPDX-License-Identifier: MIT */
/*
 * audit.c: writing the audit log (see audit.h), and the kinds of record it
 * names.
 *
 * An entry names its record as people know it at the moment it is made
 * (the label: an invoice's number, a person's name), so that the log
 * reads the same once the record is renamed or deleted. A module's write
 * is noted from the rows SQLite's pre-update hook reported (db_watch
 * records those of the declared tables only, and keeps a deleted row's
 * old values): a living row's name is read by its kind's name_sql, a
 * deleted one's by the same SQL with the table standing for a one-row
 * table of its old values (a CTE of the table's name hides the table).
 * The number of rows is bounded by DB_CHANGES_KEPT, so is the reading.
 */
#include "auth/audit.h"
#include "auth/auth.h"
#include "db/db.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "lib/log.h"
#include "server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kind {
	char *table, *noun;
	char *name_sql; /* NULL when it did not prepare */
	char *gone_sql; /* name_sql over a deleted row's old values, or NULL */
};

struct audit_kinds {
	struct kind *list;
	int n;
	char *names; /* JSON: entity -> the kind as people read it */
};

/* A name is cut at this many characters. */
#define LABEL_MAX 120

static int insert(struct hl_req *r, struct hl_db *w, int64_t user, const char *action,
		  const char *entity, int64_t id, const char *label)
{
	sqlite3_stmt *st = hl_stmt(w,
		"INSERT INTO audit_log (agency_id, user_id, location_id, action, entity, entity_id,"
		" label, client)"
		" VALUES (COALESCE(NULLIF(:agency, 0),"
		"  (SELECT agency_id FROM users WHERE id = :user)),"
		" NULLIF(:user, 0), NULLIF(:current_location, 0), :action, :entity,"
		" NULLIF(:entity_id, 0), substr(COALESCE(:label, CASE :entity"
		"  WHEN 'user' THEN (SELECT name FROM users WHERE id = :entity_id)"
		"  WHEN 'location' THEN (SELECT name FROM locations WHERE id = :entity_id)"
		"  WHEN 'api_token' THEN (SELECT name FROM api_tokens WHERE id = :entity_id)"
		"  WHEN 'agency' THEN (SELECT name FROM agencies WHERE id = :entity_id)"
		" END), 1, :label_max), :client)");
	hl_bind_int(st, ":agency", r->who.agency_id);
	hl_bind_int(st, ":user", r->who.user_id ? r->who.user_id : user);
	hl_bind_int(st, ":current_location", r->location_id);
	hl_bind_text(st, ":action", action);
	hl_bind_text(st, ":entity", entity);
	hl_bind_int(st, ":entity_id", id);
	hl_bind_text(st, ":label", label);
	hl_bind_int(st, ":label_max", LABEL_MAX);
	hl_bind_text(st, ":client", auth_client(r));
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

int audit_note(struct hl_req *r, int64_t user, const char *action, const char *entity,
	       int64_t id)
{
	if (r->writer)
		return insert(r, r->writer, user, action, entity, id, NULL);
	struct db *db = r->srv->db;
	struct hl_db *w = db_write_lock(db);
	int rc = db_begin(w) || insert(r, w, user, action, entity, id, NULL) || db_commit(w)
		? HL_EDB : 0;
	if (rc)
		db_rollback(w);
	db_write_unlock(db, w);
	return rc;
}

/* ---- a module's write -------------------------------------------------- */

static const struct kind *kind_of(const struct audit_kinds *k, const char *table)
{
	for (int i = 0; k && i < k->n; i++)
		if (!strcmp(k->list[i].table, table))
			return &k->list[i];
	return NULL;
}

static int same_row(const struct db_change *a, const struct db_change *b)
{
	return a->rowid == b->rowid && !strcmp(a->table, b->table);
}

/* What a row written first by `first` and last by `last` came to: NULL
 * for a row added and deleted in the same write (nothing to see). */
static const char *outcome(const char *first, const char *last)
{
	if (!strcmp(first, "insert"))
		return strcmp(last, "delete") ? "insert" : NULL;
	if (!strcmp(last, "delete"))
		return "delete";
	return "update"; /* a deletion then an insertion is a REPLACE */
}

/* The statement that reads the name of the row `c` leaves, stepped to
 * its row; NULL when there is none (or no name_sql). The caller resets
 * it once the name is used. */
static sqlite3_stmt *read_name(struct hl_db *w, const struct kind *k, const struct db_change *c)
{
	sqlite3_stmt *st = NULL;
	if (c->old && k->gone_sql) {
		st = hl_stmt(w, k->gone_sql);
		for (int i = 0; st && i < c->nold; i++) {
			char name[16];
			snprintf(name, sizeof(name), ":c%d", i);
			int at = sqlite3_bind_parameter_index(st, name);
			if (at && c->old[i])
				sqlite3_bind_value(st, at, c->old[i]);
		}
	} else if (!c->old && k->name_sql) {
		st = hl_stmt(w, k->name_sql);
	}
	hl_bind_int(st, ":id", c->rowid);
	if (st && sqlite3_step(st) == SQLITE_ROW)
		return st;
	if (st)
		sqlite3_reset(st);
	return NULL;
}

/* Note the record `list[i]` stands for, unless an earlier change noted it:
 * what its changes came to, named as its last one left it. */
static int note_record(struct hl_req *r, const struct db_changes *ch, size_t i)
{
	const struct db_change *c = &ch->list[i], *last = c;
	for (size_t j = 0; j < i; j++)
		if (same_row(&ch->list[j], c))
			return 0;
	for (size_t j = i + 1; j < ch->n; j++)
		if (same_row(&ch->list[j], c))
			last = &ch->list[j];
	const struct kind *k = kind_of(r->srv->audit_kinds, c->table);
	const char *op = outcome(c->op, last->op);
	if (!k || !op)
		return 0;
	sqlite3_stmt *name = read_name(r->writer, k, last);
	int rc = insert(r, r->writer, 0, op, k->noun, c->rowid,
			name ? (const char *)sqlite3_column_text(name, 0) : NULL);
	if (name)
		sqlite3_reset(name);
	return rc;
}

int audit_module_writes(struct hl_req *r)
{
	struct hl_db *w = r->writer;
	db_record_changes(w, 0); /* our own inserts are not to be noted */
	const struct db_changes *ch = db_recorded_changes(w);
	for (size_t i = 0; i < ch->n; i++)
		if (note_record(r, ch, i))
			return HL_EDB;
	if (ch->more && insert(r, w, 0, "more_changes", NULL, (int64_t)ch->more, NULL))
		return HL_EDB;
	return 0;
}

/* ---- the kinds ----------------------------------------------------------- */

static void quote_name(struct buf *b, const char *name)
{
	buf_putc(b, '"');
	for (const char *p = name; *p; p++) {
		if (*p == '"')
			buf_putc(b, '"');
		buf_putc(b, *p);
	}
	buf_putc(b, '"');
}

/* name_sql with `table` standing for one row of values :c0, :c1 ... in
 * its columns' order: WITH "t"("id", ...) AS (VALUES (:c0, ...)) name_sql.
 * NULL when the table has no columns (or memory ran out). */
static char *gone_sql(struct hl_db *w, const struct kind *k)
{
	struct buf b = BUF_INIT;
	sqlite3_stmt *st = hl_stmt(w, "SELECT name FROM pragma_table_info(:table) ORDER BY cid");
	hl_bind_text(st, ":table", k->table);
	int n = 0;
	buf_puts(&b, "WITH ");
	quote_name(&b, k->table);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		buf_puts(&b, n ? ", " : " (");
		quote_name(&b, (const char *)sqlite3_column_text(st, 0));
		n++;
	}
	if (st)
		sqlite3_reset(st);
	buf_puts(&b, ") AS (VALUES (");
	for (int i = 0; i < n; i++)
		buf_printf(&b, "%s:c%d", i ? ", " : "", i);
	buf_puts(&b, ")) ");
	buf_puts(&b, k->name_sql);
	if (!n || b.oom) {
		buf_release(&b);
		return NULL;
	}
	return b.data;
}

/* Check `k`'s SQL against the database; what does not prepare is logged
 * and dropped (its rows are noted without a name). */
static int check_kind(struct hl_db *w, struct kind *k)
{
	if (!hl_stmt(w, k->name_sql)) {
		log_error("the audit log cannot name a %s: its name_sql for table %s does not"
			  " prepare (the line above says why); its rows are noted by number",
			  k->noun, k->table);
		free(k->name_sql);
		k->name_sql = NULL;
		return 0;
	}
	if (!(k->gone_sql = gone_sql(w, k)))
		return HL_ENOMEM;
	if (!hl_stmt(w, k->gone_sql)) {
		log_error("the audit log cannot name a deleted %s: its name_sql must name table"
			  " %s unqualified and its key by column", k->noun, k->table);
		free(k->gone_sql);
		k->gone_sql = NULL;
	}
	return 0;
}

/* The core's entities, and how people call them. */
static const char *const core_kinds[][2] = {
	{ "user", "person" }, { "location", "sub-account" }, { "api_token", "API token" },
	{ "agency", "agency" },
};
#define CORE_KINDS "{\"user\":\"person\",\"location\":\"sub-account\",\"api_token\":\"API token\"," \
	"\"agency\":\"agency\""

static char *kind_names(const struct audit_kinds *k)
{
	struct buf b = BUF_INIT;
	buf_puts(&b, CORE_KINDS);
	for (int i = 0; i < k->n; i++) {
		buf_putc(&b, ',');
		json_quote(&b, k->list[i].table, strlen(k->list[i].table));
		buf_putc(&b, ':');
		json_quote(&b, k->list[i].noun, strlen(k->list[i].noun));
		buf_putc(&b, ',');
		json_quote(&b, k->list[i].noun, strlen(k->list[i].noun));
		buf_putc(&b, ':');
		json_quote(&b, k->list[i].noun, strlen(k->list[i].noun));
	}
	buf_putc(&b, '}');
	if (b.oom) {
		buf_release(&b);
		return NULL;
	}
	return b.data;
}

int audit_kinds_new(struct audit_kinds **out, struct db *db, const struct hl_record_kind *kinds,
		    int n)
{
	struct audit_kinds *k = calloc(1, sizeof(*k));
	const char **tables = calloc((size_t)n + 1, sizeof(*tables));
	struct hl_db *w = NULL;
	int rc = HL_ENOMEM;
	*out = NULL;
	if (!k || !tables || !(k->list = calloc((size_t)n + 1, sizeof(*k->list))))
		goto out;
	for (; k->n < n; k->n++) {
		struct kind *x = &k->list[k->n];
		if (!(x->table = strdup(kinds[k->n].table)) || !(x->noun = strdup(kinds[k->n].noun)) ||
		    !(x->name_sql = strdup(kinds[k->n].name_sql)))
			goto out;
		tables[k->n] = x->table;
	}
	if (!(k->names = kind_names(k)))
		goto out;
	w = db_write_lock(db);
	for (int i = 0; i < k->n; i++)
		if ((rc = check_kind(w, &k->list[i])))
			goto out;
	db_conn_reset(w);
	rc = db_watch(db, tables, n);
out:
	if (w)
		db_write_unlock(db, w);
	free(tables);
	if (rc)
		audit_kinds_free(k);
	else
		*out = k;
	return rc;
}

void audit_kinds_free(struct audit_kinds *k)
{
	if (!k)
		return;
	for (int i = 0; i < k->n + 1 && k->list; i++) {
		free(k->list[i].table);
		free(k->list[i].noun);
		free(k->list[i].name_sql);
		free(k->list[i].gone_sql);
	}
	free(k->list);
	free(k->names);
	free(k);
}

int audit_kind_entities(const struct audit_kinds *k, const char *kind, const char **out, int max)
{
	int n = 0, noun = 0;
	for (size_t i = 0; i < sizeof(core_kinds) / sizeof(core_kinds[0]) && n < max; i++)
		if (!strcmp(core_kinds[i][1], kind))
			out[n++] = core_kinds[i][0];
	for (int i = 0; k && i < k->n && n < max; i++) {
		if (strcmp(k->list[i].noun, kind))
			continue;
		if (!noun++)
			out[n++] = k->list[i].noun;
		if (n < max)
			out[n++] = k->list[i].table;
	}
	return n;
}

const char *audit_kind_names(const struct audit_kinds *k)
{
	return k && k->names ? k->names : CORE_KINDS "}";
}

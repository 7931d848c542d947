/* SPDX-License-Identifier: MIT */
/*
 * changes.c: the generation counters of changes.h.
 */
#include "db/changes.h"
#include "lib/log.h"

#include <hyperlevel/hyperlevel.h>

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define LOCATION_SLOTS 16384 /* power of two; 128 KB of counters */

/* Generation counters of the writes of one kind. */
struct counters {
	_Atomic uint64_t any[CHANGES_MAX_TABLES];   /* every write */
	_Atomic uint64_t every[CHANGES_MAX_TABLES]; /* writes without a location */
	_Atomic uint64_t in_location[LOCATION_SLOTS];
};

struct changes {
	int ntables;
	char *name[CHANGES_MAX_TABLES];
	int location_col[CHANGES_MAX_TABLES]; /* -1: no location_id column */
	int is_virtual[CHANGES_MAX_TABLES];   /* writes to it reach the hook only
					       * as writes to its shadow tables */
	/* Of every write, and of the writes that changed or deleted rows
	 * (what a CHANGES_EDITS_ONLY table is stamped from). */
	struct counters all, edits;
	/* Views, which a module publishes for others to read (a cached route
	 * may name one): the tables each reads. */
	int nviews;
	char *view_name[CHANGES_MAX_VIEWS];
	int view_ntables[CHANGES_MAX_VIEWS];
	int view_table[CHANGES_MAX_VIEWS][CHANGES_VIEW_TABLES];
};

struct changes *changes_new(void)
{
	return calloc(1, sizeof(struct changes));
}

void changes_free(struct changes *ch)
{
	if (!ch)
		return;
	for (int i = 0; i < ch->ntables; i++)
		free(ch->name[i]);
	for (int i = 0; i < ch->nviews; i++)
		free(ch->view_name[i]);
	free(ch);
}

static int location_column(sqlite3 *db, const char *table)
{
	sqlite3_stmt *st = NULL;
	int col = -1;
	if (sqlite3_prepare_v2(db, "SELECT cid FROM pragma_table_xinfo(:table) WHERE name = 'location_id'",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	/* By name, but not through hl_bind_text: db.c calls this file. */
	sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":table"), table, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		col = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return col;
}

struct view_reads {
	struct changes *ch;
	int view;
};

/* SQLite's authorizer, while a view is prepared: each table it reads. */
static int note_read(void *arg, int action, const char *table, const char *b, const char *c,
		     const char *d)
{
	struct view_reads *at = arg;
	(void)b, (void)c, (void)d;
	int t = action == SQLITE_READ && table ? changes_table_id(at->ch, table) : -1;
	int v = at->view, n = at->ch->view_ntables[v];
	for (int i = 0; i < n && t >= 0; i++)
		if (at->ch->view_table[v][i] == t)
			t = -1;
	if (t >= 0 && n < CHANGES_VIEW_TABLES)
		at->ch->view_table[v][at->ch->view_ntables[v]++] = t;
	return SQLITE_OK;
}

/* Learn each view and the tables it reads, by preparing a read of it with
 * the authorizer listening (views of views come down to their tables). */
static int learn_views(struct changes *ch, sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT name FROM sqlite_schema WHERE type = 'view' ORDER BY name",
			       -1, &st, NULL) != SQLITE_OK)
		return HL_EDB;
	int rc = 0;
	while (ch->nviews < CHANGES_MAX_VIEWS && sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		char *sql = sqlite3_mprintf("SELECT * FROM \"%w\"", name);
		if (!sql || !(ch->view_name[ch->nviews] = strdup(name))) {
			sqlite3_free(sql);
			rc = HL_ENOMEM;
			break;
		}
		struct view_reads at = { ch, ch->nviews };
		sqlite3_stmt *read = NULL;
		sqlite3_set_authorizer(db, note_read, &at);
		if (sqlite3_prepare_v2(db, sql, -1, &read, NULL) != SQLITE_OK)
			log_warn("view %s cannot be read (%s): a cached route may not name it", name,
				 sqlite3_errmsg(db));
		sqlite3_set_authorizer(db, NULL, NULL);
		sqlite3_finalize(read);
		sqlite3_free(sql);
		ch->nviews++;
	}
	sqlite3_finalize(st);
	return rc;
}

int changes_view_tables(const struct changes *ch, const char *name, const int **tables)
{
	for (int i = 0; i < ch->nviews; i++)
		if (!strcmp(ch->view_name[i], name)) {
			*tables = ch->view_table[i];
			return ch->view_ntables[i];
		}
	return -1;
}

int changes_learn(struct changes *ch, sqlite3 *db)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT name, sql LIKE 'CREATE VIRTUAL TABLE%' FROM sqlite_schema"
			       " WHERE type = 'table' ORDER BY name",
			       -1, &st, NULL) != SQLITE_OK)
		return HL_EDB;
	int rc = 0;
	while (ch->ntables < CHANGES_MAX_TABLES && sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		if (changes_table_id(ch, name) >= 0)
			continue;
		if (!(ch->name[ch->ntables] = strdup(name))) {
			rc = HL_ENOMEM;
			break;
		}
		ch->location_col[ch->ntables] = location_column(db, name);
		ch->is_virtual[ch->ntables] = sqlite3_column_int(st, 1);
		ch->ntables++;
	}
	sqlite3_finalize(st);
	if (ch->ntables == CHANGES_MAX_TABLES)
		log_warn("more than %d tables: writes to the rest do not refresh cached answers",
			 CHANGES_MAX_TABLES);
	return rc ? rc : learn_views(ch, db);
}

int changes_table_id(const struct changes *ch, const char *name)
{
	for (int i = 0; i < ch->ntables; i++)
		if (!strcmp(ch->name[i], name))
			return i;
	return -1;
}

int changes_is_virtual(const struct changes *ch, int table)
{
	return ch->is_virtual[table];
}

int changes_count(const struct changes *ch)
{
	return ch->ntables;
}

const char *changes_table_name(const struct changes *ch, int table)
{
	return ch->name[table];
}

int changes_has_location(const struct changes *ch, int table)
{
	return ch->location_col[table] >= 0;
}

static void add_pair(struct change_set *set, int table, int64_t location, int edited)
{
	for (int i = 0; i < set->n; i++)
		if (set->pair[i].table == table && set->pair[i].location == location) {
			set->pair[i].edited |= edited;
			return;
		}
	if (set->n == CHANGE_SET_MAX) {
		set->overflow = 1;
		return;
	}
	set->pair[set->n].table = table;
	set->pair[set->n].location = location;
	set->pair[set->n].edited = edited;
	set->n++;
}

static int64_t location_of(sqlite3_value *v)
{
	if (!v || sqlite3_value_type(v) != SQLITE_INTEGER)
		return 0;
	int64_t id = sqlite3_value_int64(v);
	return id > 0 ? id : 0;
}

void changes_note(struct changes *ch, struct change_set *set, sqlite3 *db, int op,
		  const char *table)
{
	/* SQLite passes the same name pointer for every row of a table; the
	 * name is compared too, as a schema reload may reuse the pointer. */
	int t = set->last_table;
	if (table != set->last_name || t < 0 || strcmp(table, ch->name[t])) {
		t = set->last_table = changes_table_id(ch, table);
		set->last_name = table;
	}
	if (t < 0)
		return; /* a table made after start; no cached answer reads it */
	/* A row replaced by INSERT OR REPLACE comes as a DELETE first. */
	int edited = op != SQLITE_INSERT;
	int col = ch->location_col[t];
	if (col < 0) {
		add_pair(set, t, 0, edited);
		return;
	}
	sqlite3_value *v = NULL;
	if (op != SQLITE_INSERT && sqlite3_preupdate_old(db, col, &v) == SQLITE_OK)
		add_pair(set, t, location_of(v), edited);
	if (op != SQLITE_DELETE && sqlite3_preupdate_new(db, col, &v) == SQLITE_OK)
		add_pair(set, t, location_of(v), edited);
}

static size_t slot(int table, int64_t location)
{
	uint64_t h = ((uint64_t)location * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)table * 0xC2B2AE3D27D4EB4Full);
	return (size_t)(h >> 40) & (LOCATION_SLOTS - 1);
}

static void bump(struct counters *k, int table, int64_t location)
{
	k->any[table]++;
	if (location)
		k->in_location[slot(table, location)]++;
	else
		k->every[table]++;
}

void changes_publish(struct changes *ch, struct change_set *set)
{
	for (int t = 0; set->overflow && t < ch->ntables; t++) {
		bump(&ch->all, t, 0);
		bump(&ch->edits, t, 0);
	}
	for (int i = 0; !set->overflow && i < set->n; i++) {
		bump(&ch->all, set->pair[i].table, set->pair[i].location);
		if (set->pair[i].edited)
			bump(&ch->edits, set->pair[i].table, set->pair[i].location);
	}
	changes_forget(set);
}

uint64_t changes_stamp(const struct changes *ch, const int *tables, int n, int64_t location)
{
	uint64_t sum = 0;
	for (int i = 0; i < n; i++) {
		int t = tables[i] & ~CHANGES_EDITS_ONLY;
		const struct counters *k = tables[i] & CHANGES_EDITS_ONLY ? &ch->edits : &ch->all;
		if (location > 0 && ch->location_col[t] >= 0)
			sum += k->every[t] + k->in_location[slot(t, location)];
		else
			sum += k->any[t];
	}
	return sum;
}

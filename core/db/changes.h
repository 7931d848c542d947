/* SPDX-License-Identifier: MIT */
/*
 * changes.h: which tables, and which locations of them, each commit
 * changed, kept as generation counters that the read cache compares.
 *
 * SQLite's pre-update hook on the write connection reports every row
 * written, with its old and new values, whoever wrote it: a module cannot
 * forget to say what it changed. For a table with a location_id column the
 * hook reads the row's location, so a write in one sub-account leaves the
 * others' cached answers alone; a row without a location (or a table
 * without the column) counts as a change to every location.
 *
 * The rows of a transaction are gathered in a change_set on the writer and
 * published (the counters bumped) only after COMMIT has returned, and a
 * reader takes its stamp before its read transaction starts: a stamp can
 * then be older than the data it covers, never newer, so a cached answer is
 * never kept past a write it did not see.
 *
 * Per-location counters live in a fixed array indexed by a hash of (table,
 * location). Two pairs sharing a slot only cost each other a spurious miss.
 *
 * Each counter has a twin that only changes and deletions of rows bump:
 * an answer that reads a table only to look up rows by keys it found
 * elsewhere (a task's contact) cannot be changed by a row added to it.
 */
#ifndef HL_CHANGES_H
#define HL_CHANGES_H

#include <sqlite3.h>
#include <stdint.h>

#define CHANGES_MAX_TABLES 512
#define CHANGES_MAX_VIEWS 256
#define CHANGES_VIEW_TABLES 16
#define CHANGE_SET_MAX 32

struct changes;

/* The (table, location) pairs one transaction touched; location 0 means
 * "every location". When more pairs come than fit, `overflow` is set and
 * the whole of every table is taken as changed. */
struct change_set {
	struct {
		int table;
		int64_t location;
		int edited; /* a row there was changed or deleted, not only added */
	} pair[CHANGE_SET_MAX];
	int n;
	int overflow;
	const char *last_name; /* the hook's last table name, and its id */
	int last_table;
};

struct changes *changes_new(void);
void changes_free(struct changes *ch);

/* Learn the tables of the database and where their location_id column is,
 * and the tables each view reads; called on the main thread once
 * migrations are done, before serving. */
int changes_learn(struct changes *ch, sqlite3 *db);
/* The tables view `name` reads (ids, in *tables), how many; -1 when the
 * database has no such view. */
int changes_view_tables(const struct changes *ch, const char *name, const int **tables);
/* A table's id, or -1 when the database has no such table. */
int changes_table_id(const struct changes *ch, const char *name);
int changes_has_location(const struct changes *ch, int table);
/* Whether a table is virtual (FTS5): the hook never names it. */
int changes_is_virtual(const struct changes *ch, int table);
/* The tables learnt, by id from 0 to changes_count() - 1. */
int changes_count(const struct changes *ch);
const char *changes_table_name(const struct changes *ch, int table);

/* The pre-update hook's work: note the row's table and location(s). */
void changes_note(struct changes *ch, struct change_set *set, sqlite3 *db, int op,
		  const char *table);
/* Bump the counters of what `set` holds (after COMMIT), and empty it. */
void changes_publish(struct changes *ch, struct change_set *set);
static inline void changes_forget(struct change_set *set)
{
	set->n = set->overflow = 0;
}

/* A table id with this bit set, in what changes_stamp is given: only
 * changes and deletions of its rows count, not rows added. */
#define CHANGES_EDITS_ONLY (1 << 30)

/* A number that changes whenever one of `tables` changes: in `location`
 * only (or in rows without a location) when location > 0, anywhere when
 * location is 0. */
uint64_t changes_stamp(const struct changes *ch, const int *tables, int n, int64_t location);

#endif

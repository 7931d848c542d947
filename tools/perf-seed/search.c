/* SPDX-License-Identifier: MIT */
/*
 * search.c: the contacts' trigram search index, built beside the rest.
 *
 * Filling FTS5 row by row, between the other tables' inserts, took two
 * thirds of the seeding time; in one go it is about a second. So while
 * fill.c writes the tables, a second thread builds the same FTS5 table in
 * a database of its own from each contact's search text (handed over
 * through `texts` and an atomic count), and the finished shadow tables are
 * copied into the real database: the index is exactly what the contacts
 * module writes (its store.c: each line folded, hl_fold), at a fraction
 * of the cost.
 */
#include "seed.h"

#include <hyperlevel/hyperlevel.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const shadows[] = { "data", "idx", "content", "docsize", "config" };

static int build(struct search *x)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (sqlite3_open(x->path, &db) != SQLITE_OK ||
	    run_sql(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN") ||
	    run_sql(db, x->ddl) ||
	    sqlite3_prepare_v2(db, "INSERT INTO contact_search (rowid, text) VALUES (?, ?)", -1, &st,
			       NULL) != SQLITE_OK) {
		fprintf(stderr, "perf-seed: search index: %s\n", sqlite3_errmsg(db));
		goto out;
	}
	for (int64_t i = 0; i < x->total; i++, sqlite3_reset(st)) {
		while (i >= x->ready) {
			struct timespec pause = { 0, 200000 };
			nanosleep(&pause, NULL);
		}
		const char *text = x->texts + i * SEARCH_SLOT;
		char folded[SEARCH_SLOT * 4];
		if (!*text)
			continue; /* a deleted contact: none */
		sqlite3_bind_int64(st, 1, x->first_id + i);
		sqlite3_bind_text(st, 2, hl_fold(text, folded, sizeof(folded)) >= 0 ? folded : text, -1,
				  SQLITE_STATIC); /* stepped before `folded` goes */
		if (sqlite3_step(st) != SQLITE_DONE) {
			fprintf(stderr, "perf-seed: search index: %s\n", sqlite3_errmsg(db));
			goto out;
		}
	}
	rc = run_sql(db, "COMMIT");
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

static void *thread_main(void *arg)
{
	struct search *x = arg;
	x->failed = build(x);
	return NULL;
}

int search_start(struct search *x, sqlite3 *main_db, const char *path, int64_t contacts)
{
	sqlite3_stmt *st = NULL;
	memset(x, 0, sizeof(*x));
	x->total = contacts;
	x->first_id = 1;
	snprintf(x->path, sizeof(x->path), "%s.search", path);
	unlink(x->path);
	if (sqlite3_prepare_v2(main_db, "SELECT sql FROM sqlite_schema WHERE name = 'contact_search'",
			       -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		x->ddl = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (!x->ddl || !(x->texts = malloc((size_t)(contacts ? contacts : 1) * SEARCH_SLOT))) {
		fprintf(stderr, "perf-seed: no contact_search table (is the contacts module there?),"
				" or out of memory\n");
		return -1;
	}
	return pthread_create(&x->thread, NULL, thread_main, x) ? -1 : 0;
}

void search_add(struct search *x, int64_t id, const char *text)
{
	int64_t i = id - x->first_id;
	snprintf(x->texts + i * SEARCH_SLOT, SEARCH_SLOT, "%s", text);
	x->ready = i + 1;
}

int search_finish(struct search *x, sqlite3 *db)
{
	char sql[4400];
	pthread_join(x->thread, NULL);
	int rc = x->failed;
	snprintf(sql, sizeof(sql), "ATTACH '%s' AS search", x->path);
	if (!rc)
		rc = run_sql(db, sql);
	for (size_t i = 0; !rc && i < sizeof(shadows) / sizeof(shadows[0]); i++) {
		snprintf(sql, sizeof(sql), "DELETE FROM main.contact_search_%s;"
			 " INSERT INTO main.contact_search_%s SELECT * FROM search.contact_search_%s",
			 shadows[i], shadows[i], shadows[i]);
		rc = run_sql(db, sql);
	}
	return rc;
}

void search_close(struct search *x, sqlite3 *db)
{
	sqlite3_exec(db, "DETACH search", NULL, NULL, NULL); /* after COMMIT */
	unlink(x->path);
	free(x->texts);
	free(x->ddl);
	x->texts = x->ddl = NULL;
}

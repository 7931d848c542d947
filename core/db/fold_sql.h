/* SPDX-License-Identifier: MIT */
/*
 * fold_sql.h: the SQL function that folds text as a search compares it
 * (hl_fold, lib/fold.c), on every connection the server opens, so that a
 * migration can fold a search index's text and a query the text it
 * walks:
 *
 *   fold(text)   `text` case folded, accents taken off ("José" is
 *                "jose"); NULL for NULL; what is not UTF-8 as it is
 *
 * Deterministic and harmless, so the schema may use it.
 */
#ifndef HL_FOLD_SQL_H
#define HL_FOLD_SQL_H

#include <sqlite3.h>

/* SQLITE_OK, or SQLite's error. */
int fold_sql_register(sqlite3 *db);

#endif

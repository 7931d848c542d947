/* SPDX-License-Identifier: MIT */
/*
 * fold_sql.c: fold() of fold_sql.h, over hl_fold.
 */
#include "db/fold_sql.h"

#include <hyperlevel/hyperlevel.h>

/* The most letters one sign folds to (U+FDFA, eighteen), in bytes. */
#define FOLD_GROWTH 36

static void fold(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
	(void)argc;
	const char *text = (const char *)sqlite3_value_text(argv[0]);
	if (!text)
		return;
	char small[1024];
	int n = hl_fold(text, small, sizeof(small));
	if (n >= 0) {
		sqlite3_result_text(cx, small, n, SQLITE_TRANSIENT);
		return;
	}
	size_t size = (size_t)sqlite3_value_bytes(argv[0]) * FOLD_GROWTH + 1;
	char *big = n == HL_ETOOBIG ? sqlite3_malloc64(size) : NULL;
	if (big && (n = hl_fold(text, big, size)) >= 0) {
		sqlite3_result_text(cx, big, n, sqlite3_free);
		return;
	}
	sqlite3_free(big);
	if (n == HL_ENOMEM || (n == HL_ETOOBIG && !big))
		sqlite3_result_error_nomem(cx);
	else /* not UTF-8: compared as it is, as the index keeps such a line */
		sqlite3_result_value(cx, argv[0]);
}

int fold_sql_register(sqlite3 *db)
{
	return sqlite3_create_function(db, "fold", 1,
				       SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
				       NULL, fold, NULL, NULL);
}

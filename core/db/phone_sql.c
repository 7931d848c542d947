/* SPDX-License-Identifier: MIT */
/*
 * phone_sql.c: e164() of phone_sql.h, over lib/phone.h.
 */
#include "db/phone_sql.h"

#include "lib/phone.h"

#include <stddef.h>

static void e164(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
	(void)argc;
	char out[PHONE_MAX];
	const char *typed = (const char *)sqlite3_value_text(argv[0]);
	const char *country = (const char *)sqlite3_value_text(argv[1]);
	if (typed && !phone_e164(typed, country, out))
		sqlite3_result_text(cx, out, -1, SQLITE_TRANSIENT);
}

int phone_sql_register(sqlite3 *db)
{
	return sqlite3_create_function(db, "e164", 2,
				       SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
				       NULL, e164, NULL, NULL);
}

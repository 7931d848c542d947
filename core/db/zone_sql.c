/* SPDX-License-Identifier: MIT */
/*
 * zone_sql.c: local_day() and day_start() of zone_sql.h, over lib/zone.h.
 */
#include "db/zone_sql.h"

#include "lib/zone.h"

#include <stddef.h>

static const char *zone_arg(sqlite3_value *v)
{
	return sqlite3_value_type(v) == SQLITE_TEXT ? (const char *)sqlite3_value_text(v) : NULL;
}

static void local_day(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return; /* NULL */
	sqlite3_result_int64(cx, zone_day(zone_arg(argv[1]), sqlite3_value_int64(argv[0])));
}

static void day_start(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	sqlite3_result_int64(cx, zone_midnight(zone_arg(argv[1]), sqlite3_value_int64(argv[0])));
}

int zone_sql_register(sqlite3 *db)
{
	const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
	int rc = sqlite3_create_function(db, "local_day", 2, flags, NULL, local_day, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function(db, "day_start", 2, flags, NULL, day_start, NULL, NULL);
	return rc;
}

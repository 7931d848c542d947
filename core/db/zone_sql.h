/* SPDX-License-Identifier: MIT */
/*
 * zone_sql.h: the SQL functions that put a time in a sub-account's day
 * (zone_sql.c), on every connection the server opens, so that triggers
 * and views can keep counts by the sub-account's own days:
 *
 *   local_day(t, zone)     the day (0 = 1970-01-01) that `t`, seconds
 *                          since 1970, falls on in `zone` ("Asia/Kolkata";
 *                          NULL or "UTC": UTC); NULL when `t` is NULL
 *   day_start(day, zone)   the first second of that day in `zone`
 *
 * Both are deterministic (a zone's rules are data of the system) and
 * harmless, so the schema may use them.
 */
#ifndef HL_ZONE_SQL_H
#define HL_ZONE_SQL_H

#include <sqlite3.h>

/* SQLITE_OK, or SQLite's error. */
int zone_sql_register(sqlite3 *db);

#endif

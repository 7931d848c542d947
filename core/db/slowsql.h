/* SPDX-License-Identifier: MIT */
/*
 * slowsql.h: timing every statement of a connection and logging the slow
 * ones (the slow_query_ms setting) as a fingerprint: the statement's text
 * with every literal and parameter replaced by '?', comments dropped and
 * spaces collapsed, so the log names the query without the data in it
 * ("[slow-sql] 120 ms SELECT * FROM contacts WHERE email = ?").
 */
#ifndef HL_SLOWSQL_H
#define HL_SLOWSQL_H

#include <sqlite3.h>
#include <stddef.h>

/* Log statements of `db` that take `ms` or more (0 leaves it alone). */
void slowsql_watch(sqlite3 *db, long long ms);

/* Write the fingerprint of `sql` into out[0..cap) (always terminated,
 * cut short when it does not fit); returns its length. */
size_t sql_fingerprint(const char *sql, char *out, size_t cap);

#endif

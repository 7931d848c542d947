/* SPDX-License-Identifier: MIT */
/*
 * phone_sql.h: the SQL function that reads a phone number as a
 * sub-account's people write it (phone_sql.c), on every connection the
 * server opens, so that migrations and queries can match numbers as
 * providers give them:
 *
 *   e164(phone, country)   `phone` in E.164 ("+15550102000"), read with
 *                          `country` ("US") when it has no country code;
 *                          NULL when it is not a phone number or NULL
 *
 * Deterministic and harmless, so the schema may use it.
 */
#ifndef HL_PHONE_SQL_H
#define HL_PHONE_SQL_H

#include <sqlite3.h>

/* SQLITE_OK, or SQLite's error. */
int phone_sql_register(sqlite3 *db);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * migrate.h: applying the core's and each module's migrations.
 *
 * The table schema_migrations records, per owner ("core" or a module name),
 * each applied step: its position, name and the SHA-256 of its SQL. At start
 * the shipped list is compared with the record: a recorded step whose name
 * or checksum differs, or a record longer than the shipped list, stops the
 * start with one line saying which; steps not yet recorded are applied in
 * order, each in its own transaction together with its record; a retired
 * step (HL_MIGRATION_RETIRED) is recorded without being run.
 */
#ifndef HL_MIGRATE_H
#define HL_MIGRATE_H

#include <hyperlevel/hyperlevel.h>

/* Apply `owner`'s pending steps on the write connection `w` (held by the
 * caller, no transaction open). *applied counts the steps applied now.
 * `where` names the file the steps come from, for messages. Returns 0,
 * HL_EINVAL (a shipped step changed, or the database is ahead) or HL_EDB;
 * one line is logged for each failure. */
int migrate_owner(struct hl_db *w, const char *owner, const char *where,
		  const struct hl_migration *steps, int nsteps, int *applied);

/* Whether the steps recorded for `owner` are the first of the shipped
 * ones, as the start checks: 0, or HL_EINVAL / HL_EDB after one line. */
int migrate_verify(struct hl_db *w, const char *owner, const char *where,
		   const struct hl_migration *steps, int nsteps);
/* How many of `owner`'s `nsteps` are not applied yet in a database that
 * has applied some step (0 for a new one, where nothing is at stake), so
 * that the server can back up before an upgrade changes it; HL_EDB. */
int migrate_pending(struct hl_db *w, const char *owner, int nsteps);

/* The core's own steps, built from migrations/ into the binary. */
extern const struct hl_migration *const core_migrations;
extern const int core_migrations_count;

#endif

/* SPDX-License-Identifier: MIT */
/*
 * schema.c: the core's own migrations (the files of migrations/), built
 * into the binary by embed-sql.
 */
#include "db/migrate.h"

#include "core_migrations.h"

const struct hl_migration *const core_migrations = migrations;
const int core_migrations_count = sizeof(migrations) / sizeof(migrations[0]);

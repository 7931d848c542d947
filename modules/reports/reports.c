/* SPDX-License-Identifier: MIT */
/*
 * reports.c: the reports module. Its tables: dashboards and their
 * widgets; the figures come from the other modules' tables, so it requires
 * them.
 */
#include <hyperlevel/hyperlevel.h>

#include "migrations.h"

static const char *const requires[] = { "contacts", "opportunities", "conversations", "tasks",
					"invoices", NULL };

static int init(struct hl_mod *mod)
{
	return hl_add_migrations(mod, migrations);
}

HL_MODULE(.name = "reports", .version = "0.1.0", .requires = requires, .init = init,
	  .summary = "dashboards and their widgets");

/* SPDX-License-Identifier: MIT */
/*
 * tasks.c: the tasks module. Its table: tasks with an
 * assignee, a due date and a completion time.
 */
#include <hyperlevel/hyperlevel.h>

#include "migrations.h"

static const char *const requires[] = { "contacts", NULL };

static int init(struct hl_mod *mod)
{
	return hl_add_migrations(mod, migrations);
}

HL_MODULE(.name = "tasks", .version = "0.1.0", .requires = requires, .init = init,
	  .summary = "tasks for a person, about a contact");

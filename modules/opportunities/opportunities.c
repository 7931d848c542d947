/* SPDX-License-Identifier: MIT */
/*
 * opportunities.c: the opportunities module. Its tables: pipelines, their
 * ordered stages, and opportunities (deals) with a value in cents. The board
 * and the deal routes come with the sub-account screens.
 */
#include <hyperlevel/hyperlevel.h>

#include "migrations.h"

static const char *const requires[] = { "contacts", NULL };

static int init(struct hl_mod *mod)
{
	return hl_add_migrations(mod, migrations);
}

HL_MODULE(.name = "opportunities", .version = "0.1.0", .requires = requires, .init = init,
	  .summary = "pipelines, their stages and deals");

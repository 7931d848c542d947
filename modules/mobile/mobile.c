/* SPDX-License-Identifier: MIT */
/*
 * mobile.c: the mobile module: the phone app's API. It has no tables of
 * its own: it reads the other modules' tables, so it requires them.
 */
#include <hyperlevel/hyperlevel.h>

static const char *const requires[] = { "contacts", "opportunities", "conversations", "tasks",
					"invoices", NULL };

/* Its routes come with the agency and mobile screens. */
static int init(struct hl_mod *mod)
{
	(void)mod;
	return 0;
}

HL_MODULE(.name = "mobile", .version = "0.1.0", .requires = requires, .init = init,
	  .summary = "the phone app's API");

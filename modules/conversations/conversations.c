/* SPDX-License-Identifier: MIT */
/*
 * conversations.c: the conversations module. Its tables: a conversation
 * per contact and channel, and the messages of each thread.
 */
#include <hyperlevel/hyperlevel.h>

#include "migrations.h"

static const char *const requires[] = { "contacts", NULL };

static int init(struct hl_mod *mod)
{
	return hl_add_migrations(mod, migrations);
}

HL_MODULE(.name = "conversations", .version = "0.1.0", .requires = requires, .init = init,
	  .summary = "conversations and their messages");

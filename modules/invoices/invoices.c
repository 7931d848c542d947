/* SPDX-License-Identifier: MIT */
/*
 * invoices.c: the invoices module. Its tables: invoices (totals in
 * cents, a status from draft to paid or void), their lines and payments.
 */
#include <hyperlevel/hyperlevel.h>

#include "migrations.h"

static const char *const requires[] = { "contacts", NULL };

static int init(struct hl_mod *mod)
{
	return hl_add_migrations(mod, migrations);
}

HL_MODULE(.name = "invoices", .version = "0.1.0", .requires = requires, .init = init,
	  .summary = "invoices, their lines and payments");

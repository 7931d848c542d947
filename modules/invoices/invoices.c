/* SPDX-License-Identifier: MIT */
/*
 * invoices.c: the invoices module: its routes, migrations and browser
 * pages (webui/). Invoices (totals in integer cents, computed by the
 * server from their lines), a status from draft to sent, partially paid,
 * paid or void, and payments.
 *
 * Every query is scoped to the current location (hl_scoped_read and
 * hl_scoped_write bind its :location), so an invoice of another
 * sub-account is never seen.
 */
#include "invoices.h"

#include "migrations.h"

static const char *const requires[] = { "contacts", NULL };

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/invoices", .handler = invoices_list,
	  .cache_ms = 60000, .reads = "invoices contacts:lookup" },
	{ .method = "GET", .pattern = "/api/invoices/:id", .handler = invoices_record,
	  .cache_ms = 60000, .reads = "invoices invoice_items payments contacts:lookup" },
	{ .method = "POST", .pattern = "/api/invoices", .handler = invoices_create },
	{ .method = "PATCH", .pattern = "/api/invoices/:id", .handler = invoices_change },
	{ .method = "DELETE", .pattern = "/api/invoices/:id", .handler = invoices_delete },
	{ .method = "POST", .pattern = "/api/invoices/:id/send", .handler = invoices_send },
	{ .method = "POST", .pattern = "/api/invoices/:id/void", .handler = invoices_void },
	{ .method = "POST", .pattern = "/api/invoices/:id/payments", .handler = invoices_pay },
};

/* The browser pages (webui/invoices.js): the list, in the menu, opening
 * with its first page; an invoice and a draft's form, reached from it. */
static const char *const invoices_uses[] = { "invoices.css", NULL };

static const struct hl_page pages[] = {
	{ .path = "/invoices", .script = "invoices.js", .label = "Invoices", .order = 50,
	  .data = "/api/invoices", .uses = invoices_uses, .search = "search.js" },
	{ .path = "/invoices/:id", .script = "invoices.js", .order = 50 },
};

/* What is kept by the sub-account's days, made again when its zone changes
 * (through the migration's moves view, which knows how a day is counted). */
static const struct hl_recount recounts[] = {
	{ "payment_days", "DELETE FROM payment_days WHERE location_id = :location" },
	{ "payment_days", "INSERT INTO payment_day_moves SELECT location_id, paid_at, 1, amount_cents"
	  " FROM payments WHERE location_id = :location AND paid_at IS NOT NULL" },
};

/* The records people know, as the audit log names them: an invoice by
 * its number, a payment by its invoice's (its lines change the invoice). */
static const struct hl_record_kind records[] = {
	{ .table = "invoices", .noun = "invoice",
	  .name_sql = "SELECT number FROM invoices WHERE id = :id" },
	{ .table = "payments", .noun = "payment",
	  .name_sql = "SELECT 'on ' || i.number FROM payments p JOIN invoices i ON i.id = p.invoice_id"
		      " WHERE p.id = :id" },
};

HL_MODULE(.name = "invoices", .version = "0.2.0", .requires = requires,
	  .summary = "invoices, their lines and payments", .migrations = HL_TABLE(migrations),
	  .routes = HL_TABLE(routes), .pages = HL_TABLE(pages),
	  .recounts = HL_TABLE(recounts), .records = HL_TABLE(records));

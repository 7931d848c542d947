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

/* What the business an invoice comes from is read from (INVOICE_BUSINESS). */
#define BUSINESS_READS "invoice_settings locations agencies agency_logos location_logos"

static const char *const requires[] = { "contacts", NULL };

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/invoices", .handler = invoices_list,
	  .cache_ms = 60000, .reads = "invoices contacts:lookup" },
	{ .method = "GET", .pattern = "/api/invoices/:id", .handler = invoices_record,
	  .cache_ms = 60000, .reads = "invoices invoice_items payments invoice_mails contacts:lookup "
	  BUSINESS_READS },
	{ .method = "POST", .pattern = "/api/invoices", .handler = invoices_create },
	{ .method = "PATCH", .pattern = "/api/invoices/:id", .handler = invoices_change },
	{ .method = "DELETE", .pattern = "/api/invoices/:id", .handler = invoices_delete },
	{ .method = "POST", .pattern = "/api/invoices/:id/send", .handler = invoices_send },
	{ .method = "POST", .pattern = "/api/invoices/:id/void", .handler = invoices_void },
	{ .method = "POST", .pattern = "/api/invoices/:id/payments", .handler = invoices_pay },
	{ .method = "POST", .pattern = "/api/invoices/:id/email", .handler = invoices_email },
	{ .method = "GET", .pattern = "/api/invoices/:id/pdf", .handler = invoices_pdf },
	{ .method = "GET", .pattern = "/i/:key", .handler = invoices_view, .access = HL_ACCESS_PUBLIC },
	{ .method = "GET", .pattern = "/i/:key/pdf", .handler = invoices_view_pdf,
	  .access = HL_ACCESS_PUBLIC },
	{ .method = "GET", .pattern = "/api/invoice-settings", .handler = invoices_settings_get,
	  .cache_ms = 60000, .reads = BUSINESS_READS },
	{ .method = "PUT", .pattern = "/api/invoice-settings", .handler = invoices_settings_put,
	  .access = HL_ACCESS_LOCATION_ADMIN },
};

/* Mails queued (mail.c): woken by each; the period finds retries come due. */
static const struct hl_job jobs[] = {
	{ .name = "mail", .period_ms = 5000, .slice = invoices_mail_slice,
	  .wake_on = "invoice.mail_queued" },
};

static int init(struct hl_mod *mod)
{
	(void)mod;
	return invoices_view_init();
}

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
 * its number, a payment by its invoice's (its lines change the invoice),
 * a sub-account's invoice settings by the sub-account (their row's id is
 * its location's). */
static const struct hl_record_kind records[] = {
	{ .table = "invoices", .noun = "invoice",
	  .name_sql = "SELECT number FROM invoices WHERE id = :id" },
	{ .table = "payments", .noun = "payment",
	  .name_sql = "SELECT 'on ' || i.number FROM payments p JOIN invoices i ON i.id = p.invoice_id"
		      " WHERE p.id = :id" },
	{ .table = "invoice_settings", .noun = "invoice settings",
	  .name_sql = "SELECT 'of ' || name FROM locations WHERE id = :id" },
};

/* How an invoice's events read on its contact's timeline. A line is read
 * when the event is handled, after its request: only a sent invoice's
 * total is sure not to have changed by then. */
#define INVOICE_LINE(what) "SELECT 'Invoice ' || number || " what ", '/invoices/' || id" \
	" FROM invoices WHERE id = :subject AND location_id = :location"
#define INVOICE_TOTAL "iif(length(currency) = 3 AND instr('" INVOICE_WHOLE_UNITS "', currency)," \
	" total_cents, printf('%d.%02d', total_cents / 100, total_cents % 100)) || ' ' || currency"

static const struct hl_event_line event_lines[] = {
	{ "invoice.created", INVOICE_LINE("' created'") },
	{ "invoice.sent", INVOICE_LINE("' sent, ' || " INVOICE_TOTAL) },
	{ "invoice.payment_recorded", INVOICE_LINE("': payment recorded'") },
	{ "invoice.paid", INVOICE_LINE("' paid in full'") },
	{ "invoice.voided", INVOICE_LINE("' voided'") },
};

HL_MODULE(.name = "invoices", .version = "0.3.0", .requires = requires, .init = init,
	  .summary = "invoices, their lines and payments", .migrations = HL_TABLE(migrations),
	  .routes = HL_TABLE(routes), .jobs = HL_TABLE(jobs), .pages = HL_TABLE(pages),
	  .recounts = HL_TABLE(recounts), .records = HL_TABLE(records),
	  .event_lines = HL_TABLE(event_lines));

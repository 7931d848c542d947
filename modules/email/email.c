/* SPDX-License-Identifier: MIT */
/*
 * email.c: the email module: mail through the server's relay (an SMTP
 * submission server: the agency's Postfix, or a provider's), with
 * libcurl. It delivers the "email" channel: the conversations module
 * keeps the messages and hands each to the core, which calls send.c's
 * prepare and conclude around the SMTP session. The relay is the
 * operator's (email.conf, or PGHL_SMTP_* in the environment); each
 * sub-account sets the name and address its mail is from (settings.c);
 * until both are set, its messages wait and say why.
 */
#include "email.h"
#include "parse.h"

#include <stdlib.h>
#include <string.h>

#include "migrations.h"

struct relay email_relay;
size_t email_attachment_max;

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/email/settings", .handler = email_settings_get,
	  .access = HL_ACCESS_LOCATION_ADMIN },
	{ .method = "PUT", .pattern = "/api/email/settings", .handler = email_settings_put,
	  .access = HL_ACCESS_LOCATION_ADMIN },
	{ .method = "POST", .pattern = "/api/email/tests", .handler = email_test_post,
	  .access = HL_ACCESS_LOCATION_ADMIN },
	{ .method = "GET", .pattern = "/api/email/tests/:id", .handler = email_test_get,
	  .access = HL_ACCESS_LOCATION_ADMIN },
	/* An MTA's pipe, proved by the inbound key (inbound.c); a message
	 * with a 10 MB attachment, base64, is about 14 MB. */
	{ .method = "POST", .pattern = "/api/email/inbound", .handler = email_inbound,
	  .access = HL_ACCESS_PUBLIC, .flags = HL_ROUTE_RAW_BODY, .max_body_kb = 40 * 1024 },
	{ .method = "POST", .pattern = "/api/email/inbound-key", .handler = email_inbound_key,
	  .access = HL_ACCESS_ADMIN, .flags = HL_ROUTE_NO_LOCATION },
	{ .method = "GET", .pattern = "/api/email/attachments", .handler = email_attachments_named },
	{ .method = "GET", .pattern = "/api/email/attachments/:id", .handler = email_attachment_get },
	/* A file for the composer to attach: the body is the file. */
	{ .method = "POST", .pattern = "/api/email/files", .handler = email_file_upload,
	  .flags = HL_ROUTE_RAW_BODY, .max_body_kb = 40 * 1024 },
	/* Signed links of marketing mail, for anyone who holds one. */
	{ .method = "GET", .pattern = "/api/email/unsubscribe/:location/:token",
	  .handler = email_unsubscribe_page, .access = HL_ACCESS_PUBLIC },
	{ .method = "POST", .pattern = "/api/email/unsubscribe/:location/:token",
	  .handler = email_unsubscribe, .access = HL_ACCESS_PUBLIC, .flags = HL_ROUTE_RAW_BODY,
	  .max_body_kb = 4 },
};

static const char *const email_uses[] = { "email.css", NULL };

static const struct hl_page pages[] = {
	{ .path = "/channels/email", .script = "email.js", .access = HL_ACCESS_LOCATION_ADMIN,
	  .order = 90, .data = "/api/email/settings", .uses = email_uses },
};

static const struct hl_channel channels[] = {
	{ .name = "email", .label = "e-mail", .prepare = email_prepare, .conclude = email_conclude },
};

/* Woken by each test queued; the period finds one left by a restart. */
static const struct hl_job jobs[] = {
	{ .name = "tests", .period_ms = 60 * 1000, .slice = email_tests_job, .wake_on = "email.test" },
};

/* A relay setting: PGHL_KEY in the environment, else the file's. */
static const char *relay_setting(struct hl_mod *mod, const char *key, const char *env)
{
	const char *v = hl_setting(mod, key, "");
	const char *e = getenv(env);
	return e && *e ? e : v;
}

static int init(struct hl_mod *mod)
{
	email_relay.url = relay_setting(mod, "smtp_url", "PGHL_SMTP_URL");
	email_relay.user = relay_setting(mod, "smtp_user", "PGHL_SMTP_USER");
	email_relay.password = relay_setting(mod, "smtp_password", "PGHL_SMTP_PASSWORD");
	email_relay.ca_file = relay_setting(mod, "smtp_ca_file", "PGHL_SMTP_CA_FILE");
	long long mb;
	int rc = hl_setting_int(mod, "attachment_max_mb", 25, 1, 40, &mb);
	if (rc)
		return rc;
	email_attachment_max = (size_t)mb * 1024 * 1024;
	received_init();
	const char *url = email_relay.url;
	if (*url && strncmp(url, "smtp://", 7) && strncmp(url, "smtps://", 8)) {
		hl_log("email", "smtp_url = %s: not smtp://host:587 (STARTTLS) or smtps://host:465", url);
		return HL_EINVAL;
	}
	if (!*url)
		hl_log("email", "no relay is set (smtp_url): e-mail waits until the operator sets one");
	return 0;
}

/* The records people know, as the audit log names them: a sub-account's
 * sender, by its address. */
static const struct hl_record_kind records[] = {
	{ .table = "email_senders", .noun = "e-mail sender",
	  .name_sql = "SELECT from_address FROM email_senders WHERE location_id = :id" },
};

HL_MODULE(.name = "email", .version = "0.1.0", .init = init,
	  .summary = "e-mail through the server's SMTP relay",
	  .migrations = HL_TABLE(migrations), .routes = HL_TABLE(routes),
	  .pages = HL_TABLE(pages), .channels = HL_TABLE(channels), .jobs = HL_TABLE(jobs), .records = HL_TABLE(records));

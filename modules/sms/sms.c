/* SPDX-License-Identifier: MIT */
/*
 * sms.c: the sms module: text messages through Twilio's Programmable
 * Messaging API, or any provider that speaks it (twilio_base_url). It
 * delivers the "sms" channel: the conversations module keeps the
 * messages and hands each to the core, which calls send.c's prepare and
 * conclude around the HTTP request. Each sub-account brings its own
 * Twilio account (settings.c), set by its admins; until it has one, its
 * texts wait and say why.
 */
#include "sms.h"

#include <string.h>

#include "migrations.h"

const char *sms_base_url;

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/sms/settings", .handler = sms_settings_get,
	  .access = HL_ACCESS_LOCATION_ADMIN },
	{ .method = "PUT", .pattern = "/api/sms/settings", .handler = sms_settings_put,
	  .access = HL_ACCESS_LOCATION_ADMIN },
	{ .method = "DELETE", .pattern = "/api/sms/settings", .handler = sms_settings_delete,
	  .access = HL_ACCESS_LOCATION_ADMIN },
	{ .method = "POST", .pattern = "/api/sms/tests", .handler = sms_test_post,
	  .access = HL_ACCESS_LOCATION_ADMIN },
	{ .method = "GET", .pattern = "/api/sms/tests/:id", .handler = sms_test_get,
	  .access = HL_ACCESS_LOCATION_ADMIN },
	/* Twilio's calls, each proved by its signature (hooks.c). */
	{ .method = "POST", .pattern = "/api/sms/twilio/:location/status", .handler = sms_status_hook,
	  .access = HL_ACCESS_PUBLIC, .flags = HL_ROUTE_RAW_BODY, .max_body_kb = 64 },
	{ .method = "POST", .pattern = "/api/sms/twilio/:location/inbound", .handler = sms_inbound_hook,
	  .access = HL_ACCESS_PUBLIC, .flags = HL_ROUTE_RAW_BODY, .max_body_kb = 64 },
};

/* Its page, reached from the Channels page: the sub-account's account. */
static const char *const sms_uses[] = { "sms.css", NULL };

static const struct hl_page pages[] = {
	{ .path = "/channels/sms", .script = "sms.js", .access = HL_ACCESS_LOCATION_ADMIN, .order = 90,
	  .data = "/api/sms/settings", .uses = sms_uses },
};

static const struct hl_job jobs[] = {
	{ .name = "tests", .period_ms = 60 * 1000, .slice = sms_tests_job, .wake_on = "sms.test" },
};

static const struct hl_channel channels[] = {
	{ .name = "sms", .label = "SMS", .prepare = sms_prepare, .conclude = sms_conclude },
};

static int init(struct hl_mod *mod)
{
	const char *url = hl_setting(mod, "twilio_base_url", "https://api.twilio.com");
	size_t n = strlen(url);
	if ((strncmp(url, "https://", 8) && strncmp(url, "http://", 7)) || n > 200) {
		hl_log("sms", "twilio_base_url = %s: not an http:// or https:// address", url);
		return HL_EINVAL;
	}
	static char base[201];
	memcpy(base, url, n + 1);
	while (n && base[n - 1] == '/')
		base[--n] = '\0';
	sms_base_url = base;
	return 0;
}

/* The records people know, as the audit log names them: a sub-account's
 * SMS account, by the number it sends from (never its token). */
static const struct hl_record_kind records[] = {
	{ .table = "sms_accounts", .noun = "SMS account",
	  .name_sql = "SELECT COALESCE(from_number, messaging_service_sid) FROM sms_accounts"
		      " WHERE location_id = :id" },
};

HL_MODULE(.name = "sms", .version = "0.1.0", .init = init,
	  .summary = "text messages through Twilio or a provider that speaks its API",
	  .migrations = HL_TABLE(migrations), .routes = HL_TABLE(routes),
	  .pages = HL_TABLE(pages), .channels = HL_TABLE(channels), .jobs = HL_TABLE(jobs), .records = HL_TABLE(records));

/* SPDX-License-Identifier: MIT */
/*
 * settings.c: GET, PUT and DELETE /api/sms/settings, a sub-account's
 * Twilio account, for its admins. The auth token is written, never read
 * back: the answer says only whether one is set, and a PUT without one
 * keeps the one set. Texts send from a number (E.164) or a messaging
 * service, one of the two. A PUT publishes channel.ready, so that texts
 * that waited for the account go at once.
 */
#include "sms.h"

#include <string.h>

/* With the address of the hook Twilio calls with texts to the
 * sub-account's number, to paste into the number's settings (null
 * without public_url). */
#define SETTINGS_SQL \
	"SELECT a.account_sid, a.from_number, a.messaging_service_sid," \
	" iif(a.auth_token IS NULL, 'false', 'true') AS json_auth_token_set, a.updated_at," \
	" nullif(:url, '/api/sms/twilio/' || x.location_id || '/inbound') AS inbound_url" \
	" FROM (SELECT :location AS location_id) x" \
	" LEFT JOIN sms_accounts a ON a.location_id = x.location_id"

static int reply_settings(struct hl_req *req)
{
	sqlite3_stmt *st = hl_scoped_read(req, SETTINGS_SQL);
	hl_bind_text(st, ":url", hl_sprintf(req, "%s/api/sms/twilio/%lld/inbound", hl_public_url(),
					    (long long)hl_location_id(req)));
	return hl_reply_row(req, 200, st, "settings");
}

int sms_settings_get(struct hl_req *req)
{
	return reply_settings(req);
}

/* Letters, digits and "-": an account SID or a messaging service's, of
 * Twilio (AC..., MG...) or of a provider that speaks its API. */
static int is_sid(const char *s)
{
	size_t n = strlen(s);
	return n >= 2 && n <= 64 &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-") == n;
}

struct account {
	const char *sid, *token, *from, *service;
};

/* The body's members, checked: 0, or HL_EINVAL after a 422. */
static int read_account(struct hl_req *req, struct account *a)
{
	static const char *const keys[] = { "account_sid", "auth_token", "from_number",
					    "messaging_service_sid", NULL };
	char number[HL_PHONE_MAX];
	memset(a, 0, sizeof(*a));
	if (hl_fields_only(req, 0, keys) ||
	    hl_field_text(req, 0, "account_sid", 64, &a->sid) < 0 ||
	    hl_field_text(req, 0, "auth_token", 128, &a->token) < 0 ||
	    hl_field_text(req, 0, "from_number", 40, &a->from) < 0 ||
	    hl_field_text(req, 0, "messaging_service_sid", 64, &a->service) < 0)
		return HL_EINVAL;
	if (!a->sid || !is_sid(a->sid))
		return hl_reply_invalid(req, "account_sid", "required: the account SID, AC and"
					" 32 letters and digits for Twilio");
	if (a->token && (!*a->token || strpbrk(a->token, " \t\r\n")))
		return hl_reply_invalid(req, "auth_token", "the auth token, without spaces");
	if (!a->from == !a->service)
		return hl_reply_invalid(req, "from_number", "give either the number texts are sent"
					" from or a messaging service SID, one of the two");
	if (a->service && !is_sid(a->service))
		return hl_reply_invalid(req, "messaging_service_sid", "MG and 32 letters and digits");
	if (a->from && hl_phone_e164(a->from, hl_location_country(req), number))
		return hl_reply_invalid(req, "from_number", "not a phone number, such as +15550102000");
	if (a->from)
		a->from = hl_strndup(req, number, strlen(number));
	return 0;
}

/* PUT /api/sms/settings: 200 with the settings. */
int sms_settings_put(struct hl_req *req)
{
	struct account a;
	if (read_account(req, &a))
		return 0;
	if (!hl_write_begin(req))
		return HL_EDB;
	sqlite3_stmt *st = hl_scoped_write(req, "INSERT INTO sms_accounts (location_id,"
		" account_sid, auth_token, from_number, messaging_service_sid)"
		" SELECT :location, :sid, token, :from, :service FROM (SELECT coalesce(:token,"
		" (SELECT auth_token FROM sms_accounts WHERE location_id = :location)) AS token)"
		" WHERE token IS NOT NULL"
		" ON CONFLICT (location_id) DO UPDATE SET account_sid = excluded.account_sid,"
		" auth_token = excluded.auth_token, from_number = excluded.from_number,"
		" messaging_service_sid = excluded.messaging_service_sid,"
		" updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')");
	hl_bind_text(st, ":sid", a.sid);
	hl_bind_text(st, ":token", a.token);
	hl_bind_text(st, ":from", a.from);
	hl_bind_text(st, ":service", a.service);
	int64_t changed = hl_step_changes(st);
	if (changed < 0)
		return (int)changed;
	if (!changed)
		return hl_reply_invalid(req, "auth_token", "required the first time");
	int rc = hl_publish_assigned(req, "channel.ready", 0, HL_EVERYONE, "{\"channel\":\"sms\"}");
	return rc ? rc : reply_settings(req);
}

/* DELETE /api/sms/settings: 204; texts wait again until an account is set. */
int sms_settings_delete(struct hl_req *req)
{
	if (!hl_write_begin(req))
		return HL_EDB;
	sqlite3_stmt *st = hl_scoped_write(req, "DELETE FROM sms_accounts"
					   " WHERE location_id = :location");
	return hl_step_changes(st) < 0 ? HL_EDB : hl_reply_empty(req);
}

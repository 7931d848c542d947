/* SPDX-License-Identifier: MIT */
/*
 * settings.c: a sub-account's sender, for its admins: GET and PUT
 * /api/email/settings (the name and address its mail is from, and the
 * address replies go to), with the relay the server sends through (its
 * address only: the operator's credentials are never answered) and where
 * an MTA hands it mail (inbound.c), with whether its key is made; and
 * POST /api/email/tests, a test message to an address, sent by the tests
 * job (tests.c), whose outcome GET /api/email/tests/:id answers. A PUT
 * publishes channel.ready, so that mail that waited for a sender goes.
 */
#include "email.h"

#include <string.h>

#define SETTINGS_SQL \
	"SELECT s.from_name, s.from_address, s.reply_to, s.updated_at," \
	" nullif(:relay, '') AS relay, :inbound AS inbound_url," \
	" iif(EXISTS (SELECT 1 FROM email_inbound_keys), 'true', 'false') AS json_inbound_key_set" \
	" FROM (SELECT :location AS location_id) x" \
	" LEFT JOIN email_senders s ON s.location_id = x.location_id"

/* The relay's address without what may follow a host: the scheme, host
 * and port ("smtp://mail.example.com:587"). */
static const char *relay_address(struct hl_req *req)
{
	const char *url = email_relay.url;
	const char *host = strstr(url, "://");
	if (!host)
		return "";
	host += 3;
	const char *at = strchr(host, '@'), *end = host + strcspn(host, "/?#");
	if (at && at < end)
		host = at + 1;
	return hl_sprintf(req, "%.*s%.*s", (int)(strstr(url, "://") + 3 - url), url,
			  (int)(end - host), host);
}

static int reply_settings(struct hl_req *req)
{
	sqlite3_stmt *st = hl_scoped_read(req, SETTINGS_SQL);
	hl_bind_text(st, ":relay", relay_address(req));
	hl_bind_text(st, ":inbound", hl_sprintf(req, "%s/api/email/inbound", hl_public_url()));
	return hl_reply_row(req, 200, st, "settings");
}

int email_settings_get(struct hl_req *req)
{
	return reply_settings(req);
}

/* An address member: absent, null or an e-mail address. 0, or HL_EINVAL
 * after a 422. */
static int address_field(struct hl_req *req, const char *key, const char **out)
{
	int rc = hl_field_text(req, 0, key, 254, out);
	if (rc < 0)
		return HL_EINVAL;
	if (rc == HL_FIELD_SET && !hl_is_email(*out))
		return hl_reply_invalid(req, key, "not an e-mail address");
	return 0;
}

/* PUT /api/email/settings {"from_name"?, "from_address", "reply_to"?}:
 * 200 with the settings. */
int email_settings_put(struct hl_req *req)
{
	static const char *const keys[] = { "from_name", "from_address", "reply_to", NULL };
	const char *name = NULL, *from = NULL, *reply_to = NULL;
	if (hl_fields_only(req, 0, keys) || hl_field_text(req, 0, "from_name", 200, &name) < 0 ||
	    address_field(req, "from_address", &from) || address_field(req, "reply_to", &reply_to))
		return 0;
	if (!from)
		return hl_reply_invalid(req, "from_address", "required: the address mail is from");
	if (name && !mail_name_ok(name))
		return hl_reply_invalid(req, "from_name", "one line of text, at most 200 bytes");
	struct hl_db *w = hl_write_begin(req);
	if (!w)
		return HL_EDB;
	/* Mail that arrives goes to the sub-account of the address it came
	 * to: an address is one sub-account's. */
	sqlite3_stmt *st = hl_stmt(w, "SELECT count(*) FROM email_senders"
		" WHERE location_id <> :this_one AND (from_address COLLATE NOCASE IN (:from, :reply_to)"
		" OR reply_to COLLATE NOCASE IN (:from, :reply_to))");
	hl_bind_int(st, ":this_one", hl_location_id(req));
	hl_bind_text(st, ":from", from);
	hl_bind_text(st, ":reply_to", reply_to);
	int64_t taken;
	if (hl_step_int(st, &taken) < 0)
		return HL_EDB;
	if (taken)
		return hl_reply_error(req, 409, "conflict", "another sub-account sends or takes"
				      " replies at %s%s%s: an address is one sub-account's", from,
				      reply_to ? " or " : "", reply_to ? reply_to : "");
	st = hl_scoped_write(req, "INSERT INTO email_senders (location_id, from_name,"
		" from_address, reply_to) VALUES (:location, nullif(:name, ''), :from, :reply_to)"
		" ON CONFLICT (location_id) DO UPDATE SET from_name = excluded.from_name,"
		" from_address = excluded.from_address, reply_to = excluded.reply_to,"
		" updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')");
	hl_bind_text(st, ":name", name);
	hl_bind_text(st, ":from", from);
	hl_bind_text(st, ":reply_to", reply_to);
	if (hl_step_changes(st) < 0)
		return HL_EDB;
	int rc = hl_publish_assigned(req, "channel.ready", 0, HL_EVERYONE, "{\"channel\":\"email\"}");
	return rc ? rc : reply_settings(req);
}

#define TEST_SQL \
	"SELECT id, to_address AS \"to\", status, reason, created_at FROM email_tests" \
	" WHERE id = :id AND location_id = :location"

/* POST /api/email/tests {"to"}: 202 with the test, queued. */
int email_test_post(struct hl_req *req)
{
	static const char *const keys[] = { "to", NULL };
	const char *to = NULL;
	if (hl_fields_only(req, 0, keys) || address_field(req, "to", &to))
		return 0;
	if (!to)
		return hl_reply_invalid(req, "to", "required: the address to send the test to");
	if (!hl_write_begin(req))
		return HL_EDB;
	sqlite3_stmt *st = hl_scoped_write(req, "INSERT INTO email_tests (location_id, to_address)"
					   " VALUES (:location, :to)");
	hl_bind_text(st, ":to", to);
	int64_t id = hl_step_last_id(st);
	if (id <= 0)
		return HL_EDB;
	int rc = hl_publish_assigned(req, "email.test", id, HL_EVERYONE, NULL);
	return rc ? rc : hl_reply_record(req, 202, id, "test", TEST_SQL);
}

/* GET /api/email/tests/:id */
int email_test_get(struct hl_req *req)
{
	return hl_reply_path_record(req, "test", TEST_SQL);
}

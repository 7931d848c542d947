/* SPDX-License-Identifier: MIT */
/*
 * unsubscribe.c: a marketing message's way out. Its List-Unsubscribe
 * header and link name one address of one sub-account, signed by the
 * server (HMAC-SHA-256 under a key of its own), so that nobody can
 * unsubscribe another address:
 *     {public_url}/api/email/unsubscribe/{location}/{address}.{signature}
 * (both base64url). A mail program's one-click POST (RFC 8058) or the
 * page's button opts every contact of the sub-account with the address
 * out of e-mail, through the conversations module's service; a GET shows
 * the page with that button, as a plain form, and nothing changes until
 * it is pressed (a link scanner follows links). The answer is the same
 * whether any contact has the address.
 *
 * The same key signs each message's Message-ID ("<hex.mac@domain>"), so
 * that a bounce (inbound.c) is believed only when it names a message this
 * server sent for that sub-account: a forged one cannot block an address.
 */
#include "email.h"

#include <sodium.h>
#include <string.h>

#define MAC_BYTES 16   /* of HMAC-SHA-256's 32: plenty against guessing */

/* The signing key into `key`, made when there is none (in a job's
 * transaction, or read in a request's): 0, HL_ENOENT (none yet), HL_EDB. */
static int link_key(struct hl_db *db, int make, unsigned char key[crypto_auth_hmacsha256_KEYBYTES])
{
	sqlite3_stmt *st = hl_stmt(db, "SELECT key FROM email_link_key WHERE id = 1");
	if (!st)
		return HL_EDB;
	int rc = sqlite3_step(st);
	int found = rc == SQLITE_ROW && sqlite3_column_bytes(st, 0) == crypto_auth_hmacsha256_KEYBYTES;
	if (found)
		memcpy(key, sqlite3_column_blob(st, 0), crypto_auth_hmacsha256_KEYBYTES);
	sqlite3_reset(st);
	if (found)
		return 0;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return HL_EDB;
	if (!make)
		return HL_ENOENT;
	crypto_auth_hmacsha256_keygen(key);
	st = hl_stmt(db, "INSERT INTO email_link_key (id, key) VALUES (1, :key)");
	hl_bind_blob(st, ":key", key, crypto_auth_hmacsha256_KEYBYTES);
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

static void sign(const unsigned char *key, int64_t location, const char *address,
		 unsigned char mac[MAC_BYTES])
{
	char text[400];
	unsigned char full[crypto_auth_hmacsha256_BYTES];
	int n = snprintf(text, sizeof(text), "%lld:%s", (long long)location, address);
	for (char *p = text; *p; p++)
		*p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
	crypto_auth_hmacsha256(full, (const unsigned char *)text, (size_t)n, key);
	memcpy(mac, full, MAC_BYTES);
}

/* The MAC of a Message-ID's random part, for `location`, as hex. */
static void id_mac(const unsigned char *key, int64_t location, const char *random,
		   char hex[2 * 8 + 1])
{
	char text[96];
	unsigned char full[crypto_auth_hmacsha256_BYTES];
	int n = snprintf(text, sizeof(text), "message-id:%lld:%s", (long long)location, random);
	crypto_auth_hmacsha256(full, (const unsigned char *)text, (size_t)n, key);
	sodium_bin2hex(hex, 2 * 8 + 1, full, 8);
}

int email_message_id(struct hl_job_run *run, int64_t location, const char *address,
		     char out[MESSAGE_ID_MAX])
{
	unsigned char key[crypto_auth_hmacsha256_KEYBYTES], r[12];
	char random[2 * sizeof(r) + 1], mac[2 * 8 + 1];
	int rc = link_key(hl_job_db(run), 1, key);
	if (rc)
		return rc;
	randombytes_buf(r, sizeof(r));
	sodium_bin2hex(random, sizeof(random), r, sizeof(r));
	id_mac(key, location, random, mac);
	const char *at = strrchr(address, '@');
	snprintf(out, MESSAGE_ID_MAX, "<%s.%s@%s>", random, mac, at ? at + 1 : "localhost");
	return 0;
}

int email_message_id_ours(struct hl_req *req, int64_t location, const char *id)
{
	unsigned char key[crypto_auth_hmacsha256_KEYBYTES];
	char random[25], mac[17];
	if (!id || strlen(id) < 44 || id[0] != '<' || id[25] != '.' || id[42] != '@')
		return 0;
	int rc = link_key(hl_read(req), 0, key);
	if (rc)
		return rc == HL_ENOENT ? 0 : rc;
	memcpy(random, id + 1, 24);
	random[24] = '\0';
	id_mac(key, location, random, mac);
	return !sodium_memcmp(mac, id + 26, 16);
}

#define B64 sodium_base64_VARIANT_URLSAFE_NO_PADDING

const char *email_unsubscribe_link(struct hl_job_run *run, struct hl_send *s, int64_t location,
				   const char *address)
{
	unsigned char key[crypto_auth_hmacsha256_KEYBYTES], mac[MAC_BYTES];
	if (!*hl_public_url() || strlen(address) > 254 || link_key(hl_job_db(run), 1, key))
		return NULL;
	sign(key, location, address, mac);
	char a[sodium_base64_ENCODED_LEN(254, B64)], m[sodium_base64_ENCODED_LEN(MAC_BYTES, B64)];
	sodium_bin2base64(a, sizeof(a), (const unsigned char *)address, strlen(address), B64);
	sodium_bin2base64(m, sizeof(m), mac, MAC_BYTES, B64);
	return hl_send_sprintf(s, "%s/api/email/unsubscribe/%lld/%s.%s", hl_public_url(),
			       (long long)location, a, m);
}

/* The address the path's token names, when its signature is the
 * server's: in the request's arena, or NULL. */
static const char *proved_address(struct hl_req *req, int64_t location)
{
	const char *token = hl_param(req, "token"), *dot = token ? strchr(token, '.') : NULL;
	unsigned char key[crypto_auth_hmacsha256_KEYBYTES], mac[MAC_BYTES], given[MAC_BYTES];
	unsigned char address[255];
	size_t alen, mlen;
	if (!dot || link_key(hl_read(req), 0, key) ||
	    sodium_base642bin(address, sizeof(address) - 1, token, (size_t)(dot - token), NULL, &alen,
			      NULL, B64) ||
	    sodium_base642bin(given, sizeof(given), dot + 1, strlen(dot + 1), NULL, &mlen, NULL, B64) ||
	    mlen != MAC_BYTES)
		return NULL;
	address[alen] = '\0';
	/* what was signed passed hl_is_email; a quote or backslash would not
	 * be read back as the same JSON text */
	if (strlen((const char *)address) != alen || strpbrk((const char *)address, "\\\""))
		return NULL;
	sign(key, location, (const char *)address, mac);
	return sodium_memcmp(mac, given, MAC_BYTES) ? NULL
		: hl_sprintf(req, "%s", (const char *)address);
}

/* The page: a heading and a sentence, with the button when `ask`. */
static int page(struct hl_req *req, int status, const char *title, const char *text, int ask)
{
	const char *html = hl_sprintf(req, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset="
		"\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
		"<title>%s</title></head><body><main><h1>%s</h1><p>%s</p>%s</main></body></html>\n",
		title, title, text, ask ? "<form method=\"post\"><button type=\"submit\">Unsubscribe"
		"</button></form>" : "");
	return hl_reply_raw(req, status, "text/html; charset=utf-8", html, strlen(html));
}

static int answer(struct hl_req *req, int act)
{
	int64_t location;
	if (hl_param_id(req, "location", &location))
		return 0;
	const char *address = proved_address(req, location);
	if (!address)
		return page(req, 404, "Link not valid", "This unsubscribe link is not one this server"
			    " made. The link in the e-mail itself works.", 0);
	const char *shown = hl_html_text(req, address);
	if (!act)
		return page(req, 200, "Unsubscribe", hl_sprintf(req, "Stop marketing e-mail to %s?",
								 shown), 1);
	const char *out, *in = hl_sprintf(req, "{\"email\":\"%s\",\"channel\":\"email\"}", address);
	int rc = hl_write_begin(req) ? hl_hook_location(req, location) : HL_EDB;
	if (!rc)
		rc = hl_call(req, "conversations.opt_out", in, &out);
	if (rc && rc != HL_ENOENT)
		return rc;
	return page(req, 200, "Unsubscribed", hl_sprintf(req, "No more marketing e-mail will be"
							  " sent to %s.", shown), 0);
}

/* GET /api/email/unsubscribe/:location/:token: the page with the button. */
int email_unsubscribe_page(struct hl_req *req)
{
	return answer(req, 0);
}

/* POST /api/email/unsubscribe/:location/:token: one click, or the button. */
int email_unsubscribe(struct hl_req *req)
{
	return answer(req, 1);
}

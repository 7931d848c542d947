/* SPDX-License-Identifier: MIT */
/*
 * hooks.c: what Twilio calls back, each for one sub-account (its id in
 * the path, so that its auth token checks the call):
 *
 *   POST /api/sms/twilio/:location/status    a text's status callback
 *   POST /api/sms/twilio/:location/inbound   a text to the sub-account's
 *                                            number (its webhook URL)
 *
 * Nothing is read into the database before the request is proved to be
 * Twilio's: X-Twilio-Signature is the Base64 of HMAC-SHA1, keyed by the
 * auth token, over the URL Twilio called (public_url and the path) and
 * the form's parameters sorted by name, each name then value. A missing
 * or wrong one is 403 and changes nothing. Then a status goes to the
 * inbox as a report (delivered, undelivered) and a text as a message,
 * its consent keywords read: STOP, STOPALL, UNSUBSCRIBE, CANCEL, END and
 * QUIT opt the contact out of texts, START, YES and UNSTOP back in.
 */
#include "sms.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PARAMS_MAX 64

struct param {
	char *name, *value;
};

static int hex(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
		: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* `n` bytes of a form's name or value, decoded (+ a space, %XX a byte)
 * into the arena; NULL for a bad escape or a NUL. */
static char *decoded(struct hl_req *req, const char *s, size_t n)
{
	char *out = hl_alloc(req, n + 1), *o = out;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '+') {
			*o++ = ' ';
		} else if (s[i] == '%') {
			int a = i + 2 < n ? hex(s[i + 1]) : -1, b = a >= 0 ? hex(s[i + 2]) : -1;
			if (a < 0 || b < 0 || (a == 0 && b == 0))
				return NULL;
			*o++ = (char)(a * 16 + b);
			i += 2;
		} else {
			*o++ = s[i];
		}
	}
	*o = '\0';
	return out;
}

/* The form of the body into `p`: how many, or -1 for one that is not. */
static int read_form(struct hl_req *req, struct param *p)
{
	size_t len;
	const char *body = hl_body(req, &len), *end = body + len;
	int n = 0;
	for (const char *s = body; s < end && len;) {
		const char *amp = memchr(s, '&', (size_t)(end - s)), *stop = amp ? amp : end;
		const char *eq = memchr(s, '=', (size_t)(stop - s));
		if (n == PARAMS_MAX || !eq)
			return -1;
		p[n].name = decoded(req, s, (size_t)(eq - s));
		p[n].value = decoded(req, eq + 1, (size_t)(stop - eq - 1));
		if (!p[n].name || !p[n].value)
			return -1;
		n++;
		s = stop + 1;
	}
	return n;
}

static int by_name(const void *a, const void *b)
{
	const struct param *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->value, y->value);
}

/* Whether the request carries Twilio's signature of it under `token`. */
static int signed_by(struct hl_req *req, const char *token, struct param *p, int n)
{
	const char *given = hl_header(req, "X-Twilio-Signature");
	if (!given || !*hl_public_url())
		return 0;
	qsort(p, (size_t)n, sizeof(*p), by_name);
	const char *text = hl_sprintf(req, "%s%s", hl_public_url(), hl_path(req));
	for (int i = 0; i < n; i++)
		text = hl_sprintf(req, "%s%s%s", text, p[i].name, p[i].value);
	unsigned char mac[EVP_MAX_MD_SIZE];
	unsigned int mac_len = 0;
	if (!HMAC(EVP_sha1(), token, (int)strlen(token), (const unsigned char *)text, strlen(text),
		  mac, &mac_len))
		return 0;
	unsigned char want[4 * ((EVP_MAX_MD_SIZE + 2) / 3) + 1];
	int want_len = EVP_EncodeBlock(want, mac, (int)mac_len);
	return (size_t)want_len == strlen(given) && !CRYPTO_memcmp(want, given, (size_t)want_len);
}

static const char *param(const struct param *p, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(p[i].name, name))
			return p[i].value;
	return NULL;
}

/* The hook's sub-account, proved: 0 with the form in `p` (*n of them),
 * or HL_EINVAL after a 403 (or 404 for a path naming none). */
static int proved(struct hl_req *req, int64_t *location, struct param *p, int *n)
{
	if (hl_param_id(req, "location", location))
		return HL_EINVAL;
	sqlite3_stmt *st = hl_stmt_scoped(hl_read(req), *location, "SELECT auth_token"
					  " FROM sms_accounts WHERE location_id = :location");
	if (!st)
		return HL_EDB;
	int rc = sqlite3_step(st);
	const char *token = rc == SQLITE_ROW ? hl_sprintf(req, "%s", sqlite3_column_text(st, 0))
					     : NULL;
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return HL_EDB;
	*n = read_form(req, p);
	if (!token || *n < 0 || !signed_by(req, token, p, *n))
		return hl_reply_error(req, 403, "forbidden", "not signed by this sub-account's Twilio"
				      " account"), HL_EINVAL;
	return 0;
}

int sms_status_hook(struct hl_req *req)
{
	struct param p[PARAMS_MAX];
	int64_t location;
	int n, rc = proved(req, &location, p, &n);
	if (rc)
		return rc;
	const char *status = param(p, n, "MessageStatus"), *sid = param(p, n, "MessageSid");
	const char *code = param(p, n, "ErrorCode");
	struct hl_report r = { .channel = "sms", .location_id = location, .reference = sid };
	if (status && !strcmp(status, "delivered"))
		r.kind = HL_DELIVERED;
	else if (status && (!strcmp(status, "undelivered") || !strcmp(status, "failed")))
		r.kind = HL_UNDELIVERED;
	if (r.kind && sid) {
		r.reason = hl_sprintf(req, "Twilio: %s%s%s", status, code ? ", error " : "", code ? code : "");
		if (!hl_write_begin(req))
			return HL_EDB;
		if ((rc = hl_report(req, &r)) && rc != HL_ENOENT)
			return rc;
	}
	return hl_reply_empty(req);
}

/* The consent a text's words change. */
static enum hl_consent_change consent_of(const char *body)
{
	static const char *const out[] = { "STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT" };
	static const char *const in[] = { "START", "YES", "UNSTOP" };
	char word[16];
	size_t n = 0;
	while (*body == ' ' || *body == '\n' || *body == '\r' || *body == '\t')
		body++;
	while (body[n] && !strchr(" \t\r\n.!", body[n]) && n < sizeof(word) - 1) {
		word[n] = body[n];
		n++;
	}
	word[n] = '\0';
	for (const char *r = body + n; *r; r++)
		if (!strchr(" \t\r\n.!", *r))
			return HL_CONSENT_SAME; /* a sentence, not a keyword */
	for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++)
		if (!strcasecmp(word, out[i]))
			return HL_CONSENT_OPT_OUT;
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		if (!strcasecmp(word, in[i]))
			return HL_CONSENT_OPT_IN;
	return HL_CONSENT_SAME;
}

int sms_inbound_hook(struct hl_req *req)
{
	static const char twiml[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response></Response>";
	struct param p[PARAMS_MAX];
	int64_t location;
	int n, rc = proved(req, &location, p, &n);
	if (rc)
		return rc;
	char from[HL_PHONE_MAX];
	const char *body = param(p, n, "Body");
	if (!param(p, n, "From") || hl_phone_e164(param(p, n, "From"), NULL, from))
		return hl_reply_error(req, 400, "bad_request", "From: not a phone number");
	struct hl_incoming m = { .channel = "sms", .location_id = location, .from = from,
				 .to = param(p, n, "To"), .body = body ? body : "",
				 .reference = param(p, n, "MessageSid"),
				 .consent = consent_of(body ? body : "") };
	if (!hl_write_begin(req))
		return HL_EDB;
	if ((rc = hl_receive(req, &m)))
		return rc == HL_ENOENT ? hl_reply_error(req, 503, "unavailable", "no module keeps"
							 " messages on this server") : rc;
	return hl_reply_raw(req, 200, "text/xml; charset=utf-8", twiml, sizeof(twiml) - 1);
}

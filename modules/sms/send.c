/* SPDX-License-Identifier: MIT */
/*
 * send.c: a text sent through Twilio's Programmable Messaging API:
 *     POST {twilio_base_url}/2010-04-01/Accounts/{AccountSid}/Messages.json
 * with HTTP basic authentication (the account SID and its auth token) and
 * a form of To, From (or MessagingServiceSid) and Body. Twilio answers 201
 * with the message's SID (SM...), by which its status callbacks name it;
 * or an error, {"code": 21211, "message": "...", "status": 400}, whose
 * message is what the person who sent the text reads. Both run as the
 * core's sender calls them: prepare on the scheduler thread (it reads the
 * sub-account's account), conclude on the sending thread.
 */
#include "sms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSMN_STATIC
#define JSMN_PARENT_LINKS
#include <jsmn.h>

/* `value` percent-encoded as a form's value (RFC 3986's unreserved
 * characters kept, a space as %20), after `form` and "&key=". */
static char *form_add(struct hl_send *s, const char *form, const char *key, const char *value)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(value);
	char *out = hl_send_alloc(s, strlen(form) + strlen(key) + 3 * n + 3), *p = out;
	p += sprintf(p, "%s%s%s=", form, *form ? "&" : "", key);
	for (const unsigned char *v = (const unsigned char *)value; *v; v++) {
		if ((*v >= 'A' && *v <= 'Z') || (*v >= 'a' && *v <= 'z') || (*v >= '0' && *v <= '9') ||
		    strchr("-._~", *v)) {
			*p++ = (char)*v;
		} else {
			*p++ = '%';
			*p++ = hex[*v >> 4];
			*p++ = hex[*v & 15];
		}
	}
	*p = '\0';
	return out;
}

int sms_prepare(struct hl_job_run *run, struct hl_send *s, const struct hl_outgoing *m)
{
	char to[HL_PHONE_MAX];
	if (hl_phone_e164(m->to, NULL, to)) {
		hl_send_refuse(s, "%s is not a phone number in international form (+15550102000)",
			       m->to);
		return HL_EINVAL;
	}
	sqlite3_stmt *st = hl_stmt_scoped(hl_job_db(run), m->location_id, "SELECT account_sid,"
		" auth_token, from_number, messaging_service_sid FROM sms_accounts"
		" WHERE location_id = :location");
	if (!st)
		return HL_EDB;
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(st);
		if (rc != SQLITE_DONE)
			return HL_EDB;
		hl_send_refuse(s, "SMS is not set up for this sub-account: its admin adds a Twilio"
			       " account in Settings, Channels");
		return HL_ENOENT;
	}
	const char *sid = hl_send_sprintf(s, "%s", (const char *)sqlite3_column_text(st, 0));
	const char *token = hl_send_sprintf(s, "%s", (const char *)sqlite3_column_text(st, 1));
	const char *from = (const char *)sqlite3_column_text(st, 2);
	const char *service = (const char *)sqlite3_column_text(st, 3);
	char *form = form_add(s, "", "To", to);
	form = from ? form_add(s, form, "From", from) : form_add(s, form, "MessagingServiceSid", service);
	form = form_add(s, form, "Body", m->body ? m->body : "");
	/* Its delivery is reported back when Twilio can reach the server. */
	if (*hl_public_url())
		form = form_add(s, form, "StatusCallback", hl_send_sprintf(s, "%s/api/sms/twilio/%lld/status",
			hl_public_url(), (long long)m->location_id));
	sqlite3_reset(st);
	/* The SID is letters, digits and "-" (settings.c): safe in a path. */
	const char *url = hl_send_sprintf(s, "%s/2010-04-01/Accounts/%s/Messages.json",
					  sms_base_url, sid);
	if ((rc = hl_send_http(s, "POST", url, "application/x-www-form-urlencoded", form,
			       strlen(form))) ||
	    (rc = hl_send_header(s, "Accept: application/json")))
		return rc;
	hl_send_auth(s, sid, token);
	return 0;
}

/* The top-level member `key` of the JSON object `json` (`len` bytes) as
 * text into `out`: 1 when found, else 0 (`out` empty). Escapes other than
 * \" \\ and \/ are left as written: this is for a person to read. */
static int member(const char *json, size_t len, const char *key, char *out, size_t size)
{
	jsmn_parser p;
	jsmntok_t t[128];
	out[0] = '\0';
	jsmn_init(&p);
	int n = jsmn_parse(&p, json, len, t, 128);
	if (n < 1 || t[0].type != JSMN_OBJECT)
		return 0;
	for (int i = 1; i + 1 < n; i++) {
		if (t[i].parent != 0 || t[i].type != JSMN_STRING ||
		    (size_t)(t[i].end - t[i].start) != strlen(key) ||
		    strncmp(json + t[i].start, key, strlen(key)))
			continue;
		const jsmntok_t *v = &t[i + 1];
		size_t k = 0;
		for (int c = v->start; c < v->end && k + 1 < size; c++) {
			if (json[c] == '\\' && c + 1 < v->end && strchr("\"\\/", json[c + 1]))
				c++;
			out[k++] = json[c];
		}
		out[k] = '\0';
		return v->type == JSMN_STRING || v->type == JSMN_PRIMITIVE;
	}
	return 0;
}

void sms_conclude(struct hl_send *s)
{
	long status = hl_send_status(s);
	if (hl_send_error(s) || !status)
		return; /* no answer: the core's defaults (a time-out is tried again) */
	size_t len;
	const char *answer = hl_send_answer(s, &len);
	char sid[64], code[16], message[256];
	if (status == 200 || status == 201) {
		member(answer, len, "sid", sid, sizeof(sid));
		hl_send_sent(s, sid[0] ? sid : NULL);
		return;
	}
	if (!member(answer, len, "message", message, sizeof(message)))
		snprintf(message, sizeof(message), "HTTP %ld", status);
	member(answer, len, "code", code, sizeof(code));
	const char *after = hl_send_answer_header(s, "Retry-After");
	if (status == 429 || status >= 500)
		hl_send_later(s, after ? (unsigned)strtoul(after, NULL, 10) : 0, "Twilio%s%s: %s",
			      code[0] ? " error " : "", code, message);
	else
		hl_send_failed(s, "Twilio%s%s: %s", code[0] ? " error " : "", code, message);
}

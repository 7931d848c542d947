/* SPDX-License-Identifier: MIT */
/*
 * submit.c: what a visitor's POST /f/:slug does. The body is a plain
 * form (application/x-www-form-urlencoded). Spam is turned away before
 * anything is written: a filled honeypot, and the same answers again
 * within a minute, are answered as a success and stored nowhere; a
 * token the page did not sign, or one sent sooner than min_fill_seconds
 * after the page was made, gets the page again with a word of why. Then
 * each field is checked (the page again, 422, the errors beside their
 * fields); then the contact is upserted through contacts.find_or_add (the
 * same e-mail, else the same phone, in the form's sub-account) with the
 * form's tags, the submission stored and form.submitted published with
 * the contact. The answer is the same whether the contact was known.
 */
#include "forms.h"

#include <ctype.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PAIRS_MAX 200
#define ORIGIN_MAX 500  /* characters of a referrer or utm value kept */
#define TOKEN_DAY_S 86400

/* ---- the time token -------------------------------------------------------- */

static unsigned char setting_key[crypto_auth_KEYBYTES];
static int has_setting_key;

int forms_token_init(struct hl_mod *mod)
{
	const char *hex = hl_setting(mod, "token_key", "");
	if (!*hex)
		return 0;
	size_t n = 0;
	if (sodium_hex2bin(setting_key, sizeof(setting_key), hex, strlen(hex), NULL, &n, NULL) ||
	    n != sizeof(setting_key)) {
		hl_log("forms", "token_key: 64 hexadecimal digits");
		return HL_EINVAL;
	}
	has_setting_key = 1;
	return 0;
}

/* The key: the setting token_key, else form_secret's (made with the
 * first form). */
static int secret(struct hl_db *db, unsigned char key[crypto_auth_KEYBYTES])
{
	if (has_setting_key) {
		memcpy(key, setting_key, sizeof(setting_key));
		return 0;
	}
	sqlite3_stmt *st = db ? hl_stmt(db, "SELECT secret FROM form_secret WHERE id = 1") : NULL;
	if (!st)
		return HL_EDB;
	int ok = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_bytes(st, 0) == crypto_auth_KEYBYTES;
	if (ok)
		memcpy(key, sqlite3_column_blob(st, 0), crypto_auth_KEYBYTES);
	sqlite3_reset(st);
	return ok ? 0 : HL_EDB;
}

/* "TIME.MAC": the page's making time in seconds and crypto_auth of
 * "slug.TIME", in hex. */
static const char *sign(struct hl_req *req, struct hl_db *db, const char *slug, long long t)
{
	unsigned char key[crypto_auth_KEYBYTES], mac[crypto_auth_BYTES];
	char hex[crypto_auth_BYTES * 2 + 1];
	if (secret(db, key))
		return "";
	const char *msg = hl_sprintf(req, "%s.%lld", slug, t);
	crypto_auth(mac, (const unsigned char *)msg, strlen(msg), key);
	sodium_memzero(key, sizeof(key));
	sodium_bin2hex(hex, sizeof(hex), mac, sizeof(mac));
	return hl_sprintf(req, "%lld.%s", t, hex);
}

const char *form_token(struct hl_req *req, struct hl_db *db, const char *slug)
{
	return sign(req, db, slug, (long long)time(NULL));
}

/* 0 when `token` was signed for `slug` between min_fill_seconds and a day ago. */
static int token_bad(struct hl_req *req, struct hl_db *db, const char *slug, const char *token)
{
	char *end;
	long long t = token ? strtoll(token, &end, 10) : 0;
	if (!token || *end != '.' || t <= 0)
		return 1;
	const char *good = sign(req, db, slug, t);
	long long age = (long long)time(NULL) - t;
	return strlen(good) != strlen(token) || sodium_memcmp(good, token, strlen(good)) ||
	       age < forms_min_fill_s() || age > TOKEN_DAY_S;
}

/* ---- the body ------------------------------------------------------------- */

struct pair {
	const char *name, *value;
};

/* `s`, n bytes, URL-decoded ("+" a space) into the arena. */
static char *decode(struct hl_req *req, const char *s, size_t n)
{
	char *out = hl_alloc(req, n + 1), *o = out;
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '+') {
			*o++ = ' ';
		} else if (s[i] == '%' && i + 2 < n &&
			   isxdigit((unsigned char)s[i + 1]) && isxdigit((unsigned char)s[i + 2])) {
			char h[3] = { s[i + 1], s[i + 2], 0 };
			*o++ = (char)strtol(h, NULL, 16);
			i += 2;
		} else {
			*o++ = s[i];
		}
	}
	*o = 0;
	return out;
}

/* The body's name=value pairs, at most PAIRS_MAX: their number. */
static int read_pairs(struct hl_req *req, struct pair *pairs)
{
	size_t len;
	const char *body = hl_body(req, &len);
	int n = 0;
	for (size_t i = 0; body && i < len && n < PAIRS_MAX;) {
		const char *amp = memchr(body + i, '&', len - i);
		size_t end = amp ? (size_t)(amp - body) : len;
		const char *eq = memchr(body + i, '=', end - i);
		if (eq) {
			pairs[n].name = decode(req, body + i, (size_t)(eq - body) - i);
			pairs[n].value = decode(req, eq + 1, end - (size_t)(eq + 1 - body));
			if (pairs[n].name && pairs[n].value)
				n++;
		}
		i = end + 1;
	}
	return n;
}

/* The value of `name` (several joined by "\n"), or NULL. */
static const char *value_of(struct hl_req *req, const struct pair *pairs, int n, const char *name)
{
	const char *v = NULL;
	for (int i = 0; i < n; i++)
		if (!strcmp(pairs[i].name, name))
			v = v ? hl_sprintf(req, "%s\n%s", v, pairs[i].value) : pairs[i].value;
	return v;
}

/* ---- checking the answers ----------------------------------------------- */

/* At most `max` characters (code points). */
static int valid_utf8_text(const char *s, size_t max)
{
	return hl_text_length(s) <= max;
}

/* What is wrong with field `f`'s value, or NULL. */
static const char *problem(struct hl_req *req, struct form_field *f)
{
	const char *v = f->value;
	if (!v || !*v) {
		f->value = NULL;
		return f->required ? (!strcmp(f->type, "consent") ? "Tick this box to go on."
								     : "Please fill in this field.") : NULL;
	}
	int long_text = !strcmp(f->type, "long_text");
	if (strchr(v, '\n') && strcmp(f->type, "checkboxes") && !long_text)
		return "Please give one answer.";
	if (!valid_utf8_text(v, long_text ? FORM_TEXT_MAX : 200))
		return long_text ? "Please keep this under 2,000 characters." : "Please keep this under 200 characters.";
	if (!strcmp(f->type, "email") && !hl_is_email(v))
		return "Please give an e-mail address, such as name@example.com.";
	if (!strcmp(f->type, "phone")) {
		char e164[HL_PHONE_MAX];
		if (hl_phone_e164(v, hl_location_country(req), e164))
			return "Please give a phone number, such as +1 555 010 2000.";
	}
	if (!strcmp(f->type, "date")) {
		int y, m, d;
		if (strlen(v) != 10 || sscanf(v, "%4d-%2d-%2d", &y, &m, &d) != 3 || m < 1 || m > 12 ||
		    d < 1 || d > 31)
			return "Please give a date as YYYY-MM-DD.";
	}
	if (f->options) {
		sqlite3_stmt *st = hl_stmt(hl_read(req), "SELECT count(*) FROM json_each(:options)"
					   " WHERE value = :v");
		for (const char *s = v; st && *s;) {
			const char *e = strchr(s, '\n');
			size_t len = e ? (size_t)(e - s) : strlen(s);
			int64_t found = 0;
			hl_bind_text(st, ":options", f->options);
			hl_bind_text(st, ":v", hl_strndup(req, s, len));
			if (hl_step_int(st, &found) < 0 || !found)
				return "Please choose among the answers shown.";
			s = e ? e + 1 : s + len;
		}
	}
	return NULL;
}

/* Every field's value read and checked: the number wrong. Then at least
 * an e-mail or a phone for the contact. */
static int check(struct hl_req *req, struct form_view *v, const struct pair *pairs, int n)
{
	int wrong = 0;
	struct form_field *reach = NULL;
	int reached = 0;
	for (int i = 0; i < v->n; i++) {
		struct form_field *f = &v->field[i];
		f->value = value_of(req, pairs, n, f->key);
		if ((f->error = problem(req, f)))
			wrong++;
		if (f->maps_to && (!strcmp(f->maps_to, "email") || !strcmp(f->maps_to, "phone"))) {
			reach = reach ? reach : f;
			reached |= f->value && !f->error;
		}
	}
	if (!wrong && reach && !reached) {
		reach->error = "Please give an e-mail address or a phone number.";
		wrong++;
	}
	return wrong;
}

/* ---- storing ------------------------------------------------------------ */

/* `s` as a JSON string. */
static void json_text(struct hl_req *req, const char **out, const char *s)
{
	size_t n = 0;
	for (const char *c = s; *c; c++)
		n += (unsigned char)*c < 0x20 || *c == '"' || *c == '\\' ? 6 : 1;
	char *o = hl_alloc(req, n + 3), *w = o;
	if (!o) {
		*out = "null";
		return;
	}
	*w++ = '"';
	for (const char *c = s; *c; c++) {
		if ((unsigned char)*c < 0x20 || *c == '"' || *c == '\\')
			w += sprintf(w, "\\u%04x", (unsigned char)*c);
		else
			*w++ = *c;
	}
	*w++ = '"';
	*w = 0;
	*out = o;
}

static const char *js(struct hl_req *req, const char *s)
{
	const char *out = "null";
	if (s)
		json_text(req, &out, s);
	return out;
}

/* The answers as a JSON object by key (checkboxes: an array); the
 * contact's members for contacts.find_or_add; the consent wording shown. */
static void gather(struct hl_req *req, const struct form_view *v, const char **answers,
		   const char **contact, const char **consent)
{
	const char *a = "", *c = "";
	*consent = NULL;
	for (int i = 0; i < v->n; i++) {
		const struct form_field *f = &v->field[i];
		const char *val = js(req, f->value);
		if (!strcmp(f->type, "checkboxes") && f->value) {
			val = "[";
			for (const char *s = f->value; *s;) {
				const char *e = strchr(s, '\n');
				size_t len = e ? (size_t)(e - s) : strlen(s);
				val = hl_sprintf(req, "%s%s%s", val, val[1] ? "," : "", js(req, hl_strndup(req, s, len)));
				s = e ? e + 1 : s + len;
			}
			val = hl_sprintf(req, "%s]", val);
		}
		a = hl_sprintf(req, "%s%s%s:%s", a, *a ? "," : "", js(req, f->key), val);
		if (!strcmp(f->type, "consent") && f->value)
			*consent = *consent ? hl_sprintf(req, "%s\n%s", *consent, f->consent) : f->consent;
		static const char *const own[] = { "first_name", "last_name", "email", "phone",
						   "company_name", NULL };
		for (int k = 0; f->maps_to && f->value && own[k]; k++)
			if (!strcmp(f->maps_to, own[k]))
				c = hl_sprintf(req, "%s,%s:%s", c, js(req, own[k]), js(req, f->value));
	}
	*answers = hl_sprintf(req, "{%s}", a);
	*contact = hl_sprintf(req, "{\"source\":%s,\"tags\":%s%s}",
			      js(req, hl_sprintf(req, "Form: %s", v->name)), v->tags, c);
}

static const char *origin_json(struct hl_req *req, const struct form_view *v)
{
	const char *o = "";
	for (int i = 0; i < 6; i++)
		if (v->origin[i] && *v->origin[i] && valid_utf8_text(v->origin[i], ORIGIN_MAX))
			o = hl_sprintf(req, "%s%s%s:%s", o, *o ? "," : "", js(req, form_origin_keys[i]),
				       js(req, v->origin[i]));
	return hl_sprintf(req, "{%s}", o);
}

/* 1 when the same answers came to the form within the last minute. */
static int repeated(struct hl_req *req, const struct form_view *v, const char *answers)
{
	sqlite3_stmt *st = hl_scoped_write(req, "SELECT count(*) FROM form_submissions"
		" WHERE form_id = :form AND location_id = :location AND answers = :answers"
		" AND created_at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-60 seconds')");
	hl_bind_int(st, ":form", v->id);
	hl_bind_text(st, ":answers", answers);
	int64_t n = 0;
	return hl_step_int(st, &n) < 0 ? HL_EDB : n > 0;
}

static int store(struct hl_req *req, const struct form_view *v)
{
	const char *answers, *contact, *consent, *out;
	gather(req, v, &answers, &contact, &consent);
	int rc = hl_hook_location(req, v->location);
	if (rc || (rc = repeated(req, v, answers)))
		return rc < 0 ? rc : 0;
	if ((rc = hl_call(req, "contacts.find_or_add", contact, &out)))
		return rc;
	sqlite3_stmt *st = hl_scoped_write(req, "INSERT INTO form_submissions (location_id, form_id,"
		" contact_id, answers, origin, consent) VALUES (:location, :form,"
		" json_extract(:out, '$.id'), json(:answers), json(:origin), :consent)"
		" RETURNING id, json_object('contact_id', contact_id, 'form_id', form_id)");
	hl_bind_int(st, ":form", v->id);
	hl_bind_text(st, ":out", out);
	hl_bind_text(st, ":answers", answers);
	hl_bind_text(st, ":origin", origin_json(req, v));
	hl_bind_text(st, ":consent", consent);
	if (!st || sqlite3_step(st) != SQLITE_ROW)
		return st ? (sqlite3_reset(st), HL_EDB) : HL_EDB;
	int64_t id = sqlite3_column_int64(st, 0);
	const char *data = hl_sprintf(req, "%s", (const char *)sqlite3_column_text(st, 1));
	sqlite3_reset(st);
	return hl_publish(req, "form.submitted", id, data);
}

int forms_post(struct hl_req *req)
{
	struct form_view *v = hl_alloc(req, sizeof(*v));
	struct pair *pairs = hl_alloc(req, PAIRS_MAX * sizeof(*pairs));
	if (!v || !pairs)
		return HL_ENOMEM;
	/* Read and check on a reader: the writer is taken for what passes. */
	struct hl_db *db = hl_read(req);
	int rc = form_load(req, db, hl_param(req, "slug"), v);
	if (rc <= 0)
		return rc ? rc : forms_reply_missing(req);
	int n = read_pairs(req, pairs);
	for (int i = 0; i < 6; i++)
		v->origin[i] = value_of(req, pairs, n, hl_sprintf(req, "_%s", form_origin_keys[i]));
	const char *honey = value_of(req, pairs, n, "_website");
	if (honey && *honey)
		return form_reply(req, 200, v, 1);
	int wrong = check(req, v, pairs, n);
	if (token_bad(req, db, v->slug, value_of(req, pairs, n, "_t"))) {
		v->notice = "That was sent quicker than a person fills in a form, or from a page"
			    " too old. Please check your answers and send them again.";
		return form_reply(req, 422, v, 0);
	}
	if (wrong) {
		v->notice = wrong == 1 ? "Please correct the field marked below."
				       : "Please correct the fields marked below.";
		return form_reply(req, 422, v, 0);
	}
	hl_read_end(req);
	if ((rc = store(req, v)))
		return rc;
	return form_reply(req, 200, v, 1);
}

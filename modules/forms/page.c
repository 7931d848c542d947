/* SPDX-License-Identifier: MIT */
/*
 * page.c: a form's public page, GET /f/:slug, which strangers open without
 * signing in: plain HTML that works without JavaScript (labels, required
 * marks, the inputs' types, the consent checkbox with its wording, hidden
 * fields filled from the address's query such as utm_source), its style
 * inline and allowed by its hash alone (hl_reply_csp), no session read and
 * no cookie. The same page answers a POST with its errors beside their
 * fields (submit.c), or the thank-you words. An unknown slug is the same
 * 404 whatever is asked. Text is escaped as it is written (struct page).
 */
#include "forms.h"

#include <sodium.h>
#include <stdio.h>
#include <string.h>

const char *const form_origin_keys[6] = {
	"referrer", "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"
};

static const char style[] =
	":root{color-scheme:light dark;font:16px/1.5 system-ui,sans-serif}"
	"body{margin:0;padding:32px 16px;background:#f4f5f7;color:#1d2330}"
	"main{max-width:36rem;margin:0 auto;padding:24px;background:#fff;border:1px solid #d9dde3;"
	"border-radius:8px}h1{font-size:1.5rem;margin:0 0 16px}.f{margin:0 0 16px}"
	"label,legend{display:block;font-weight:600;margin:0 0 4px}fieldset{border:0;padding:0;margin:0 0 16px}"
	"fieldset label,.c label{font-weight:400}"
	"input,textarea{box-sizing:border-box;width:100%;min-height:40px;padding:8px 12px;font:inherit;"
	"color:inherit;background:transparent;border:1px solid #8a93a3;border-radius:6px}"
	"input[type=radio],input[type=checkbox]{width:auto;min-height:0;margin-right:8px}"
	"textarea{min-height:6rem}[aria-invalid=true]{border-color:#b3261e}"
	".e,[role=alert]{color:#b3261e;font-weight:600;margin:4px 0 0}"
	".hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}"
	"button{min-height:44px;padding:8px 24px;font:inherit;font-weight:600;color:#fff;"
	"background:#2f5bd3;border:0;border-radius:6px;cursor:pointer}"
	"@media (prefers-color-scheme:dark){body{background:#121418;color:#e5e7eb}"
	"main{background:#1b1e23;border-color:#363b44}button{background:#7ea3ff;color:#0d1424}"
	".e,[role=alert]{color:#ff8f87}}";

static char policy[256];
static int min_fill_s;

int forms_min_fill_s(void)
{
	return min_fill_s;
}

int forms_page_init(struct hl_mod *mod)
{
	long long s;
	int rc = hl_setting_int(mod, "min_fill_seconds", 3, 0, 3600, &s);
	if (rc)
		return rc;
	min_fill_s = (int)s;
	unsigned char hash[crypto_hash_sha256_BYTES];
	char b64[sodium_base64_ENCODED_LEN(crypto_hash_sha256_BYTES, sodium_base64_VARIANT_ORIGINAL)];
	crypto_hash_sha256(hash, (const unsigned char *)style, sizeof(style) - 1);
	sodium_bin2base64(b64, sizeof(b64), hash, sizeof(hash), sodium_base64_VARIANT_ORIGINAL);
	int n = snprintf(policy, sizeof(policy), "default-src 'none'; style-src 'sha256-%s';"
			 " base-uri 'none'; form-action 'self'; frame-ancestors 'none'", b64);
	return n > 0 && (size_t)n < sizeof(policy) ? 0 : HL_ETOOBIG;
}

/* ---- reading the form ------------------------------------------------------- */

static const char *col(struct hl_req *req, sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);
	return s ? hl_strndup(req, s, strlen(s)) : NULL;
}

static int load_fields(struct hl_req *req, struct hl_db *db, const char *fields, struct form_view *v)
{
	sqlite3_stmt *st = hl_stmt(db, "SELECT json_extract(value, '$.key'), json_extract(value, '$.label'),"
		" json_extract(value, '$.type'), json_extract(value, '$.consent'),"
		" json_extract(value, '$.maps_to'), json_extract(value, '$.options'),"
		" ifnull(json_extract(value, '$.required'), 0) FROM json_each(:fields) ORDER BY key");
	if (!st)
		return HL_EDB;
	hl_bind_text(st, ":fields", fields);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && v->n < FORM_FIELDS_MAX) {
		struct form_field *f = &v->field[v->n++];
		memset(f, 0, sizeof(*f));
		f->key = col(req, st, 0);
		f->label = col(req, st, 1);
		f->type = col(req, st, 2);
		f->consent = col(req, st, 3);
		f->maps_to = col(req, st, 4);
		f->options = col(req, st, 5);
		f->required = sqlite3_column_int(st, 6);
		if (!f->key || !f->type)
			v->n--;
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : HL_EDB;
}

int form_load(struct hl_req *req, struct hl_db *db, const char *slug, struct form_view *v)
{
	memset(v, 0, sizeof(*v));
	sqlite3_stmt *st = db ? hl_stmt(db, "SELECT id, location_id, slug, name, fields, tags, thank_you,"
					" redirect_url FROM forms WHERE slug = :slug") : NULL;
	if (!st)
		return HL_EDB;
	hl_bind_text(st, ":slug", slug);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_reset(st);
		return 0;
	}
	v->id = sqlite3_column_int64(st, 0);
	v->location = sqlite3_column_int64(st, 1);
	v->slug = col(req, st, 2);
	v->name = col(req, st, 3);
	const char *fields = col(req, st, 4);
	v->tags = col(req, st, 5);
	v->thank_you = col(req, st, 6);
	v->redirect_url = col(req, st, 7);
	sqlite3_reset(st);
	int rc = load_fields(req, db, fields, v);
	return rc ? rc : 1;
}

/* ---- writing the page ------------------------------------------------------- */

struct page {
	struct hl_req *req;
	char *data;
	size_t len, cap;
};

static void put(struct page *p, const char *s, size_t n)
{
	if (p->len + n + 1 > p->cap) {
		size_t cap = p->cap ? p->cap : 8192;
		while (cap < p->len + n + 1)
			cap *= 2;
		char *d = hl_alloc(p->req, cap);
		if (!d)
			return;
		if (p->len)
			memcpy(d, p->data, p->len);
		p->data = d;
		p->cap = cap;
	}
	memcpy(p->data + p->len, s, n);
	p->len += n;
}

static void raw(struct page *p, const char *s)
{
	put(p, s, strlen(s));
}

/* `s` as HTML text or an attribute's value. */
static void text(struct page *p, const char *s)
{
	raw(p, hl_html_text(p->req, s));
}

/* Whether line `o` is one of the "\n"-separated `values`. */
static int chosen(const char *values, const char *o)
{
	size_t n = strlen(o);
	for (const char *s = values; s && *s;) {
		const char *e = strchr(s, '\n');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		if (len == n && !memcmp(s, o, n))
			return 1;
		s = e ? e + 1 : s + len;
	}
	return 0;
}

/* The label's words, a mark when required. */
static void label(struct page *p, const struct form_field *f, int for_input)
{
	raw(p, for_input ? "<label for=\"f-" : "<legend>");
	if (for_input) {
		text(p, f->key);
		raw(p, "\">");
	}
	text(p, f->label);
	if (f->required)
		raw(p, " <span aria-hidden=\"true\">*</span>");
	raw(p, for_input ? "</label>" : "</legend>");
}

static void invalid(struct page *p, const struct form_field *f)
{
	if (!f->error)
		return;
	raw(p, " aria-invalid=\"true\" aria-describedby=\"e-");
	text(p, f->key);
	raw(p, "\"");
}

static void error(struct page *p, const struct form_field *f)
{
	if (!f->error)
		return;
	raw(p, "<p class=\"e\" id=\"e-");
	text(p, f->key);
	raw(p, "\">");
	text(p, f->error);
	raw(p, "</p>");
}

static void options(struct page *p, const struct form_field *f, const char *type)
{
	sqlite3_stmt *st = hl_stmt(hl_read(p->req), "SELECT value FROM json_each(:options) ORDER BY key");
	if (!st)
		return;
	hl_bind_text(st, ":options", f->options);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *o = (const char *)sqlite3_column_text(st, 0);
		raw(p, "<label><input type=\"");
		raw(p, type);
		raw(p, "\" name=\"");
		text(p, f->key);
		raw(p, "\" value=\"");
		text(p, o);
		raw(p, chosen(f->value, o ? o : "") ? "\" checked>" : "\">");
		text(p, o);
		raw(p, "</label>");
	}
	sqlite3_reset(st);
}

static void input(struct page *p, const struct form_field *f)
{
	static const char *const kinds[][2] = {
		{ "text", "text" }, { "email", "email" }, { "phone", "tel" }, { "date", "date" },
	};
	const char *type = "text";
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(f->type, kinds[i][0]))
			type = kinds[i][1];
	if (!strcmp(f->type, "hidden")) {
		raw(p, "<input type=\"hidden\" name=\"");
		text(p, f->key);
		raw(p, "\" value=\"");
		text(p, f->value);
		raw(p, "\">");
		return;
	}
	int group = !strcmp(f->type, "choice") || !strcmp(f->type, "checkboxes");
	raw(p, group ? "<fieldset class=\"f\"" : "<div class=\"f\">");
	if (group) {
		invalid(p, f);
		raw(p, ">");
		label(p, f, 0);
		options(p, f, !strcmp(f->type, "choice") ? "radio" : "checkbox");
	} else if (!strcmp(f->type, "consent")) {
		raw(p, "<div class=\"c\"><label><input type=\"checkbox\" value=\"yes\" name=\"");
		text(p, f->key);
		raw(p, "\"");
		raw(p, f->required ? " required" : "");
		invalid(p, f);
		raw(p, f->value && *f->value ? " checked> " : "> ");
		text(p, f->consent);
		raw(p, "</label></div>");
	} else {
		label(p, f, 1);
		raw(p, strcmp(f->type, "long_text") ? "<input type=\"" : "<textarea");
		if (strcmp(f->type, "long_text")) {
			raw(p, type);
			raw(p, "\"");
		}
		raw(p, " id=\"f-");
		text(p, f->key);
		raw(p, "\" name=\"");
		text(p, f->key);
		raw(p, "\"");
		raw(p, f->required ? " required" : "");
		if (!strcmp(f->type, "email"))
			raw(p, " autocomplete=\"email\"");
		else if (!strcmp(f->type, "phone"))
			raw(p, " autocomplete=\"tel\"");
		invalid(p, f);
		if (!strcmp(f->type, "long_text")) {
			raw(p, ">");
			text(p, f->value);
			raw(p, "</textarea>");
		} else {
			raw(p, " value=\"");
			text(p, f->value);
			raw(p, "\">");
		}
	}
	error(p, f);
	raw(p, group ? "</fieldset>" : "</div>");
}

/* The hidden members every page carries: the time token, where the
 * visitor came from, and the honeypot a person leaves empty. */
static void hidden(struct page *p, const struct form_view *v)
{
	raw(p, "<input type=\"hidden\" name=\"_t\" value=\"");
	text(p, form_token(p->req, hl_read(p->req), v->slug));
	raw(p, "\">");
	for (int i = 0; i < 6; i++) {
		if (!v->origin[i])
			continue;
		raw(p, "<input type=\"hidden\" name=\"_");
		raw(p, form_origin_keys[i]);
		raw(p, "\" value=\"");
		text(p, v->origin[i]);
		raw(p, "\">");
	}
	raw(p, "<div class=\"hp\" aria-hidden=\"true\"><label for=\"f-_website\">Leave this empty</label>"
	    "<input id=\"f-_website\" name=\"_website\" tabindex=\"-1\" autocomplete=\"off\"></div>");
}

int form_reply(struct hl_req *req, int status, const struct form_view *v, int done)
{
	struct page p = { .req = req };
	raw(&p, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
	    "<meta name=\"robots\" content=\"noindex\"><link rel=\"icon\" href=\"data:,\">");
	if (done && v->redirect_url) {
		raw(&p, "<meta http-equiv=\"refresh\" content=\"0;url=");
		text(&p, v->redirect_url);
		raw(&p, "\">");
	}
	raw(&p, "<title>");
	text(&p, v->name);
	raw(&p, "</title><style>");
	raw(&p, style);
	raw(&p, "</style></head><body><main><h1>");
	text(&p, v->name);
	raw(&p, "</h1>");
	if (done) {
		raw(&p, "<p role=\"status\">");
		text(&p, v->thank_you ? v->thank_you : "Thank you. We have your answers.");
		raw(&p, "</p>");
		if (v->redirect_url) {
			raw(&p, "<p><a href=\"");
			text(&p, v->redirect_url);
			raw(&p, "\">Continue</a></p>");
		}
	} else {
		if (v->notice) {
			raw(&p, "<p role=\"alert\">");
			text(&p, v->notice);
			raw(&p, "</p>");
		}
		raw(&p, "<form method=\"post\" action=\"/f/");
		text(&p, v->slug);
		raw(&p, "\">");
		for (int i = 0; i < v->n; i++)
			input(&p, &v->field[i]);
		hidden(&p, v);
		raw(&p, "<button type=\"submit\">Send</button></form>");
	}
	raw(&p, "</main></body></html>\n");
	if (!p.data)
		return HL_ENOMEM;
	int rc = hl_reply_raw(req, status, "text/html; charset=utf-8", p.data, p.len);
	return rc ? rc : hl_reply_csp(req, policy);
}

int forms_reply_missing(struct hl_req *req)
{
	static const char gone[] = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<title>Form not found</title></head><body><main><h1>Form not found</h1>"
		"<p>This address is not one of a form. Ask whoever sent it for the right one.</p>"
		"</main></body></html>\n";
	int rc = hl_reply_raw(req, 404, "text/html; charset=utf-8", gone, sizeof(gone) - 1);
	return rc ? rc : hl_reply_csp(req, policy);
}

int forms_page(struct hl_req *req)
{
	struct form_view *v = hl_alloc(req, sizeof(*v));
	if (!v)
		return HL_ENOMEM;
	int rc = form_load(req, hl_read(req), hl_param(req, "slug"), v);
	if (rc <= 0)
		return rc ? rc : forms_reply_missing(req);
	for (int i = 0; i < v->n; i++)
		if (!strcmp(v->field[i].type, "hidden"))
			v->field[i].value = hl_query(req, v->field[i].key);
	v->origin[0] = hl_header(req, "Referer");
	for (int i = 1; i < 6; i++)
		v->origin[i] = hl_query(req, form_origin_keys[i]);
	return form_reply(req, 200, v, 0);
}

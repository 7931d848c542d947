/* SPDX-License-Identifier: MIT */
/*
 * fields.c: a form's body, checked member by member (422 naming it, as
 * "fields[2].type"; unknown members refused): name; fields, each {key,
 * label, type, required, options, maps_to, consent}; tags; thank_you;
 * redirect_url. What passes is kept as SQLite writes the body's JSON.
 */
#include "forms.h"

#include <stdio.h>
#include <string.h>

static const char *const form_keys[] = {
	"name", "fields", "tags", "thank_you", "redirect_url", NULL
};
static const char *const field_keys[] = {
	"key", "label", "type", "required", "options", "maps_to", "consent", NULL
};
static const char *const types[] = {
	"text", "email", "phone", "long_text", "choice", "checkboxes", "date", "consent", "hidden", NULL
};

static int one_of(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return 1;
	return 0;
}

/* A key: 1 to 40 of a-z, 0-9 and "_", a letter first (a custom field's
 * key, a form input's name). */
static int key_ok(const char *s)
{
	size_t n = strlen(s);
	if (n < 1 || n > 40 || s[0] < 'a' || s[0] > 'z')
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == n;
}

/* A string member, required or not: what hl_field_text answers, with 422
 * for an empty required one. */
static int text_member(struct hl_req *req, int obj, const char *key, const char *member,
		       size_t max, int required, const char **out)
{
	*out = NULL;
	int tok = hl_body_find(req, obj, key);
	if (tok < 0 || hl_body_type(req, tok) == HL_JSON_NULL) {
		if (required)
			return hl_reply_invalid(req, member, "required");
		return 0;
	}
	const char *v = hl_body_string(req, tok);
	if (!v || hl_text_length(v) > max || (required && !*v))
		return hl_reply_invalid(req, member, "text of 1 to %zu characters", max);
	*out = v;
	return 0;
}

/* The options of a choice or checkboxes field: 1 to 50 distinct texts. */
static int options_ok(struct hl_req *req, int tok, const char *member)
{
	int n = tok < 0 ? 0 : hl_body_count(req, tok);
	if (tok < 0 || hl_body_type(req, tok) != HL_JSON_ARRAY || n < 1 || n > 50)
		return hl_reply_invalid(req, member, "an array of 1 to 50 texts");
	for (int i = 0; i < n; i++) {
		const char *o = hl_body_string(req, hl_body_index(req, tok, i));
		if (!o || !*o || hl_text_length(o) > 200)
			return hl_reply_invalid(req, member, "an array of 1 to 50 texts");
	}
	return 0;
}

static int field_ok(struct hl_req *req, int tok, int i, const char **keys)
{
	char m[64];
	const char *key, *label, *type, *maps, *consent;
#define MEMBER(name) (snprintf(m, sizeof(m), "fields[%d]" name, i), m)
	if (hl_body_type(req, tok) != HL_JSON_OBJECT)
		return hl_reply_invalid(req, MEMBER(""), "an object");
	if (hl_fields_only(req, tok, field_keys) < 0)
		return HL_EINVAL;
	int rc = text_member(req, tok, "key", MEMBER(".key"), 40, 1, &key);
	if (rc)
		return rc;
	if (!key_ok(key))
		return hl_reply_invalid(req, m, "1 to 40 of a-z, 0-9 and _, a letter first");
	for (int j = 0; j < i; j++)
		if (!strcmp(keys[j], key))
			return hl_reply_invalid(req, m, "the same as another field's");
	keys[i] = key;
	if ((rc = text_member(req, tok, "type", MEMBER(".type"), 20, 1, &type)))
		return rc;
	if (!one_of(type, types))
		return hl_reply_invalid(req, m, "one of text, email, phone, long_text, choice,"
					" checkboxes, date, consent, hidden");
	int hidden = !strcmp(type, "hidden");
	if ((rc = text_member(req, tok, "label", MEMBER(".label"), 200, !hidden, &label)))
		return rc;
	int required = 0;
	if (hl_field_bool(req, tok, "required", &required) < 0)
		return HL_EINVAL;
	int options = hl_body_find(req, tok, "options");
	if (!strcmp(type, "choice") || !strcmp(type, "checkboxes")) {
		if (options_ok(req, options, MEMBER(".options")))
			return HL_EINVAL;
	} else if (options >= 0 && hl_body_type(req, options) != HL_JSON_NULL) {
		return hl_reply_invalid(req, MEMBER(".options"), "only for choice and checkboxes");
	}
	int consent_type = !strcmp(type, "consent");
	if ((rc = text_member(req, tok, "consent", MEMBER(".consent"), 2000, consent_type, &consent)))
		return rc;
	if (consent && !consent_type)
		return hl_reply_invalid(req, m, "only for a consent field");
	if ((rc = text_member(req, tok, "maps_to", MEMBER(".maps_to"), 40, 0, &maps)))
		return rc;
	if (maps && (consent_type || !strcmp(type, "checkboxes") || !key_ok(maps)))
		return hl_reply_invalid(req, m, "a contact field (%s) or a custom field's key, for a"
					" field that holds one value", "first_name, last_name, email,"
					" phone, company_name");
	if (maps && !strcmp(maps, "email") && strcmp(type, "email"))
		return hl_reply_invalid(req, m, "email for an email field only");
	return 0;
#undef MEMBER
}

static int fields_ok(struct hl_req *req, int tok)
{
	int n = hl_body_count(req, tok);
	if (hl_body_type(req, tok) != HL_JSON_ARRAY || n < 1 || n > FORM_FIELDS_MAX)
		return hl_reply_invalid(req, "fields", "an array of 1 to %d fields", FORM_FIELDS_MAX);
	const char *keys[FORM_FIELDS_MAX];
	int has_contact = 0;
	for (int i = 0; i < n; i++) {
		int f = hl_body_index(req, tok, i);
		if (field_ok(req, f, i, keys))
			return HL_EINVAL;
		const char *maps = hl_body_string(req, hl_body_find(req, f, "maps_to"));
		has_contact |= maps && (!strcmp(maps, "email") || !strcmp(maps, "phone"));
	}
	if (!has_contact)
		return hl_reply_invalid(req, "fields", "a field mapped to email or phone, to know"
					" the contact by");
	return 0;
}

static int tags_ok(struct hl_req *req, int tok)
{
	int n = hl_body_count(req, tok);
	if (hl_body_type(req, tok) != HL_JSON_ARRAY || n > 20)
		return hl_reply_invalid(req, "tags", "an array of at most 20 tag names");
	for (int i = 0; i < n; i++) {
		const char *t = hl_body_string(req, hl_body_index(req, tok, i));
		if (!t || !*t || hl_text_length(t) > 100 || strchr(t, ','))
			return hl_reply_invalid(req, "tags", "names of 1 to 100 characters, no comma");
	}
	return 0;
}

/* The JSON text of body member `key`, as SQLite writes it. */
static const char *member_json(struct hl_req *req, const char *key)
{
	size_t len;
	const char *body = hl_body(req, &len);
	sqlite3_stmt *st = hl_stmt(hl_write_begin(req), "SELECT json_extract(:body, :path)");
	if (!st)
		return NULL;
	hl_bind_text(st, ":body", hl_strndup(req, body, len));
	hl_bind_text(st, ":path", hl_sprintf(req, "$.%s", key));
	const char *v = NULL;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		v = hl_sprintf(req, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_reset(st);
	return v;
}

/* An address to send the visitor to: http(s), no spaces, 1 to 2000. */
static int url_ok(const char *s)
{
	return (!strncmp(s, "https://", 8) || !strncmp(s, "http://", 7)) && strlen(s) <= 2000 &&
	       !strpbrk(s, " \t\r\n\"<>");
}

int form_body_read(struct hl_req *req, struct form_body *b, int whole)
{
	memset(b, 0, sizeof(*b));
	if (hl_body_type(req, 0) != HL_JSON_OBJECT)
		return hl_reply_invalid(req, "body", "an object");
	if (hl_fields_only(req, 0, form_keys) < 0)
		return HL_EINVAL;
	int rc = text_member(req, 0, "name", "name", 200, whole, &b->name);
	if (rc)
		return rc;
	if (!whole && hl_body_find(req, 0, "name") >= 0 && !b->name)
		return hl_reply_invalid(req, "name", "required");
	int tok = hl_body_find(req, 0, "fields");
	if ((tok >= 0 || whole) && (tok < 0 ? hl_reply_invalid(req, "fields", "required") : fields_ok(req, tok)))
		return HL_EINVAL;
	if (tok >= 0 && !(b->fields = member_json(req, "fields")))
		return HL_EDB;
	tok = hl_body_find(req, 0, "tags");
	if (tok >= 0 && (tags_ok(req, tok) || !(b->tags = member_json(req, "tags"))))
		return HL_EINVAL;
	b->has_thank_you = hl_body_find(req, 0, "thank_you") >= 0;
	if ((rc = text_member(req, 0, "thank_you", "thank_you", 2000, 0, &b->thank_you)))
		return rc;
	b->has_redirect = hl_body_find(req, 0, "redirect_url") >= 0;
	if ((rc = text_member(req, 0, "redirect_url", "redirect_url", 2000, 0, &b->redirect_url)))
		return rc;
	if (b->redirect_url && !url_ok(b->redirect_url))
		return hl_reply_invalid(req, "redirect_url", "an http or https address");
	return 0;
}

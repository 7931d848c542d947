/* SPDX-License-Identifier: MIT */
/*
 * fields.c: checking the members of a JSON body (hl_field_*), the one way
 * every handler validates what it was sent. A bad member is answered 422
 * with its name and what it must be, so each module's errors read alike,
 * and a member nobody asked for is refused rather than silently dropped.
 */
#include "lib/json.h"
#include "request/request.h"

#include <stdio.h>
#include <string.h>

static int refuse(struct hl_req *r, const char *key, const char *what)
{
	return hl_reply_invalid(r, key, "%s", what);
}

/* The value token of `key` in `obj`; sets *rc to ABSENT or NULL when there
 * is nothing to read, else leaves it at SET. */
static int member(struct hl_req *r, int obj, const char *key, int *rc)
{
	int tok = r->has_json ? json_find(&r->json, obj, key) : -1;
	*rc = HL_FIELD_SET;
	if (tok < 0)
		*rc = HL_FIELD_ABSENT;
	else if (json_type(&r->json, tok) == HL_JSON_NULL)
		*rc = HL_FIELD_NULL;
	return tok;
}

HL_API int hl_fields_only(struct hl_req *r, int obj, const char *const *keys)
{
	if (!r->has_json || json_type(&r->json, obj) != HL_JSON_OBJECT) {
		hl_reply_error(r, 422, "validation", "send a JSON object");
		return HL_EINVAL;
	}
	for (int k = json_next_key(&r->json, obj, -1); k >= 0; k = json_next_key(&r->json, obj, k)) {
		const char *name = json_string(&r->json, k, &r->arena);
		int known = 0;
		for (const char *const *p = keys; *p && !known; p++)
			known = !strcmp(name, *p);
		if (!known)
			return refuse(r, name, "no such field");
	}
	return 0;
}

HL_API size_t hl_text_length(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80; /* not a continuation byte */
	return n;
}

HL_API int hl_field_text(struct hl_req *r, int obj, const char *key, size_t max, const char **out)
{
	int rc, tok = member(r, obj, key, &rc);
	*out = NULL;
	if (rc != HL_FIELD_SET)
		return rc;
	const char *s = json_string(&r->json, tok, &r->arena);
	if (!s || hl_text_length(s) > max) {
		char what[64];
		snprintf(what, sizeof(what), "text of at most %zu characters", max);
		return refuse(r, key, what);
	}
	*out = s;
	return rc;
}

HL_API int hl_field_int(struct hl_req *r, int obj, const char *key, int64_t min, int64_t max,
			int64_t *out)
{
	int rc, tok = member(r, obj, key, &rc);
	*out = 0;
	if (rc != HL_FIELD_SET)
		return rc;
	if (json_int(&r->json, tok, out) || *out < min || *out > max) {
		char what[96];
		snprintf(what, sizeof(what), "an integer from %lld to %lld", (long long)min,
			 (long long)max);
		*out = 0;
		return refuse(r, key, what);
	}
	return rc;
}

HL_API int hl_field_bool(struct hl_req *r, int obj, const char *key, int *out)
{
	int rc, tok = member(r, obj, key, &rc);
	*out = 0;
	if (rc == HL_FIELD_SET && json_bool(&r->json, tok, out))
		return refuse(r, key, "true or false");
	return rc;
}

HL_API int hl_is_email(const char *s)
{
	const char *at = strchr(s, '@');
	size_t n = strlen(s);
	return at && at > s && n <= 254 && !strchr(at + 1, '@') && strchr(at + 1, '.') &&
	       s[n - 1] != '.' && at[1] != '.' && !strpbrk(s, " \t\r\n,;<>\"");
}

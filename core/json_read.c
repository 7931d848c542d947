/* SPDX-License-Identifier: MIT */
/*
 * json_read.c: the JSON reader of json.h. jsmn (Debian's libjsmn-dev, a
 * header-only tokenizer) finds the structure; this file adds what jsmn does
 * not check, so that a document it accepts is valid JSON (RFC 8259).
 *
 * jsmn is compiled here only, with static linkage, so no other file
 * depends on its token layout.
 */
#define JSMN_STATIC
#define JSMN_STRICT
#define JSMN_PARENT_LINKS
#include <jsmn.h>

#include "json.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct json_tok {
	jsmntok_t t;
};

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int valid_number(const char *s, size_t n)
{
	size_t i = 0;
	if (i < n && s[i] == '-')
		i++;
	if (i < n && s[i] == '0')
		i++;
	else if (i < n && s[i] >= '1' && s[i] <= '9')
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	else
		return 0;
	if (i < n && s[i] == '.') {
		size_t start = ++i;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == start)
			return 0;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		size_t start = i;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == start)
			return 0;
	}
	return i == n;
}

static int valid_primitive(const char *s, size_t n)
{
	if ((n == 4 && !memcmp(s, "true", 4)) || (n == 5 && !memcmp(s, "false", 5)) ||
	    (n == 4 && !memcmp(s, "null", 4)))
		return 1;
	return valid_number(s, n);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static long hex4(const char *s)
{
	long v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexval(s[i]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

static void put_utf8(char **out, unsigned long c)
{
	unsigned char *o = (unsigned char *)*out;
	if (c < 0x80) {
		*o++ = (unsigned char)c;
	} else if (c < 0x800) {
		*o++ = (unsigned char)(0xC0 | (c >> 6));
		*o++ = (unsigned char)(0x80 | (c & 0x3F));
	} else if (c < 0x10000) {
		*o++ = (unsigned char)(0xE0 | (c >> 12));
		*o++ = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
		*o++ = (unsigned char)(0x80 | (c & 0x3F));
	} else {
		*o++ = (unsigned char)(0xF0 | (c >> 18));
		*o++ = (unsigned char)(0x80 | ((c >> 12) & 0x3F));
		*o++ = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
		*o++ = (unsigned char)(0x80 | (c & 0x3F));
	}
	*out = (char *)o;
}

/* Unescape s[0..n) into out (which has room for n bytes: escapes never
 * grow). With out == NULL it only checks. Returns the length written, or
 * -1 - (offset of the bad byte). */
static long unescape(const char *s, size_t n, char *out)
{
	char *o = out;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20)
			return -1 - (long)i;
		if (c != '\\') {
			if (o)
				*o++ = (char)c;
			continue;
		}
		if (++i >= n)
			return -1 - (long)i;
		char e = s[i], plain = 0;
		switch (e) {
		case '"': plain = '"'; break;
		case '\\': plain = '\\'; break;
		case '/': plain = '/'; break;
		case 'b': plain = '\b'; break;
		case 'f': plain = '\f'; break;
		case 'n': plain = '\n'; break;
		case 'r': plain = '\r'; break;
		case 't': plain = '\t'; break;
		case 'u': {
			long cp = i + 4 < n ? hex4(s + i + 1) : -1;
			if (cp < 0)
				return -1 - (long)i;
			i += 4;
			if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 < n && s[i + 1] == '\\' &&
			    s[i + 2] == 'u') {
				long lo = hex4(s + i + 3);
				if (lo >= 0xDC00 && lo <= 0xDFFF) {
					cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
					i += 6;
				}
			}
			if (cp >= 0xD800 && cp <= 0xDFFF)
				cp = 0xFFFD; /* a lone surrogate */
			if (o)
				put_utf8(&o, (unsigned long)cp);
			continue;
		}
		default:
			return -1 - (long)i;
		}
		if (o)
			*o++ = plain;
	}
	return o ? o - out : 0;
}

static int skip(const struct json_doc *d, int tok);

/* Whether src[from..to) is whitespace around exactly one `sep` (or only
 * whitespace when sep is 0). */
static int gap_ok(const char *src, int from, int to, char sep)
{
	while (from < to && is_ws(src[from]))
		from++;
	if (sep) {
		if (from >= to || src[from] != sep)
			return 0;
		from++;
		while (from < to && is_ws(src[from]))
			from++;
	}
	return from == to;
}

/* The separators of a container: jsmn lets "[1 2]", "[1,]" and {"a":1,}
 * through, so every gap between its items is checked here. Returns 0 or
 * the offset of the bad gap plus one. */
static int container_gaps(const struct json_doc *d, int i)
{
	const jsmntok_t *t = &d->tok[i].t;
	int is_object = t->type == JSMN_OBJECT, pos = t->start + 1, k = 0;
	for (int j = i + 1; j < d->ntok && d->tok[j].t.start < t->end; k++) {
		const jsmntok_t *c = &d->tok[j].t;
		int begin = c->start - (c->type == JSMN_STRING);
		char sep = !k ? 0 : is_object && k % 2 ? ':' : ',';
		if (!gap_ok(d->src, pos, begin, sep))
			return pos + 1;
		int next = skip(d, j);
		pos = begin;
		for (int m = j; m < next; m++) {
			int end = d->tok[m].t.end + (d->tok[m].t.type == JSMN_STRING);
			if (end > pos)
				pos = end;
		}
		j = next;
	}
	return gap_ok(d->src, pos, t->end - 1, 0) ? 0 : pos + 1;
}

static int check_tokens(const struct json_doc *d, size_t len, size_t *err_at)
{
	const jsmntok_t *t = &d->tok[0].t;
	/* The root's bytes, quotes included: jsmn's string tokens leave them
	 * out, and it skips a ',' or ':' before the root without a word. */
	int quoted = t->type == JSMN_STRING;
	size_t begin = (size_t)t->start - (size_t)quoted;
	size_t root_end = (size_t)t->end + (size_t)quoted;
	for (size_t k = 0; k < begin; k++)
		if (!is_ws(d->src[k])) {
			*err_at = k;
			return HL_EINVAL;
		}
	size_t end = len;
	while (end > 0 && is_ws(d->src[end - 1]))
		end--;
	if (root_end != end) { /* a second root value, or trailing bytes */
		*err_at = root_end;
		return HL_EINVAL;
	}
	for (int i = 0; i < d->ntok; i++) {
		t = &d->tok[i].t;
		const char *s = d->src + t->start;
		size_t n = (size_t)(t->end - t->start);
		if (t->type == JSMN_PRIMITIVE && !valid_primitive(s, n)) {
			*err_at = (size_t)t->start;
			return HL_EINVAL;
		}
		if (t->type == JSMN_STRING) {
			long r = unescape(s, n, NULL);
			if (r < 0) {
				*err_at = (size_t)t->start + (size_t)(-1 - r);
				return HL_EINVAL;
			}
		}
		/* jsmn accepts {"a"} and {"a":1,} in some versions: an object
		 * must hold key/value pairs. */
		int bad_gap = t->type == JSMN_OBJECT || t->type == JSMN_ARRAY ? container_gaps(d, i) : 0;
		if (bad_gap) {
			*err_at = (size_t)bad_gap - 1;
			return HL_EINVAL;
		}
		if (t->type == JSMN_OBJECT) {
			int j = i + 1, members = 0;
			while (j < d->ntok && d->tok[j].t.start < t->end) {
				if (d->tok[j].t.parent == i) {
					if (d->tok[j].t.type != JSMN_STRING || d->tok[j].t.size != 1) {
						*err_at = (size_t)d->tok[j].t.start;
						return HL_EINVAL;
					}
					members++;
				}
				j++;
			}
			if (members != t->size) {
				*err_at = (size_t)t->start;
				return HL_EINVAL;
			}
		}
	}
	return 0;
}

int json_parse(struct json_doc *d, struct arena *a, const char *src, size_t len,
	       int max_tokens, size_t *err_at)
{
	jsmn_parser p;
	*err_at = 0;
	memset(d, 0, sizeof(*d));
	d->src = src;
	if (len >= INT_MAX)
		return HL_ETOOBIG;
	/* In strict mode jsmn wants a delimiter after a primitive, which a root
	 * number or literal ending the input lacks ("1", "true"): parse a copy
	 * with a space appended. Offsets do not change. */
	size_t lead = 0;
	while (lead < len && is_ws(src[lead]))
		lead++;
	if (lead < len && src[lead] != '{' && src[lead] != '[' && src[lead] != '"') {
		char *copy = arena_alloc(a, len + 1);
		memcpy(copy, src, len);
		copy[len++] = ' ';
		d->src = src = copy;
	}
	jsmn_init(&p);
	int n = jsmn_parse(&p, src, len, NULL, 0);
	if (n == JSMN_ERROR_INVAL || n == JSMN_ERROR_PART || n <= 0) {
		/* Find where it went wrong: the parser's position. */
		*err_at = p.pos;
		return HL_EINVAL;
	}
	if (n > max_tokens)
		return HL_ETOOBIG;
	d->tok = arena_alloc(a, sizeof(struct json_tok) * (size_t)n);
	jsmn_init(&p);
	d->ntok = jsmn_parse(&p, src, len, &d->tok[0].t, (unsigned)n);
	if (d->ntok != n) {
		*err_at = p.pos;
		return HL_EINVAL;
	}
	return check_tokens(d, len, err_at);
}

enum hl_json_type json_type(const struct json_doc *d, int tok)
{
	if (tok < 0 || tok >= d->ntok)
		return HL_JSON_NONE;
	const jsmntok_t *t = &d->tok[tok].t;
	switch (t->type) {
	case JSMN_OBJECT: return HL_JSON_OBJECT;
	case JSMN_ARRAY: return HL_JSON_ARRAY;
	case JSMN_STRING: return HL_JSON_STRING;
	case JSMN_PRIMITIVE: break;
	default: return HL_JSON_NONE;
	}
	char c = d->src[t->start];
	if (c == 't' || c == 'f')
		return HL_JSON_BOOL;
	if (c == 'n')
		return HL_JSON_NULL;
	return HL_JSON_NUMBER;
}

/* The token after the whole subtree at `tok`. */
static int skip(const struct json_doc *d, int tok)
{
	int end = d->tok[tok].t.end, i = tok + 1;
	while (i < d->ntok && d->tok[i].t.start < end)
		i++;
	return i;
}

int json_find(const struct json_doc *d, int obj, const char *key)
{
	if (json_type(d, obj) != HL_JSON_OBJECT)
		return -1;
	size_t klen = strlen(key);
	int i = obj + 1;
	for (int m = 0; m < d->tok[obj].t.size; m++) {
		const jsmntok_t *k = &d->tok[i].t;
		size_t n = (size_t)(k->end - k->start);
		const char *s = d->src + k->start;
		int escaped = memchr(s, '\\', n) != NULL;
		int match = !escaped && n == klen && !memcmp(s, key, n);
		if (escaped && n >= klen) { /* compare the unescaped key */
			char *tmp = malloc(n + 1);
			if (tmp) {
				long u = unescape(s, n, tmp);
				match = u == (long)klen && !memcmp(tmp, key, klen);
				free(tmp);
			}
		}
		if (match)
			return i + 1;
		i = skip(d, i + 1);
	}
	return -1;
}

int json_count(const struct json_doc *d, int tok)
{
	enum hl_json_type t = json_type(d, tok);
	return t == HL_JSON_OBJECT || t == HL_JSON_ARRAY ? d->tok[tok].t.size : 0;
}

int json_index(const struct json_doc *d, int arr, int idx)
{
	if (json_type(d, arr) != HL_JSON_ARRAY || idx < 0 || idx >= d->tok[arr].t.size)
		return -1;
	int i = arr + 1;
	while (idx-- > 0)
		i = skip(d, i);
	return i;
}

char *json_string(const struct json_doc *d, int tok, struct arena *a)
{
	if (json_type(d, tok) != HL_JSON_STRING)
		return NULL;
	const jsmntok_t *t = &d->tok[tok].t;
	size_t n = (size_t)(t->end - t->start);
	char *out = arena_alloc(a, n + 1);
	long len = unescape(d->src + t->start, n, out);
	out[len < 0 ? 0 : len] = '\0';
	return out;
}

int json_int(const struct json_doc *d, int tok, int64_t *out)
{
	if (json_type(d, tok) != HL_JSON_NUMBER)
		return HL_EINVAL;
	const jsmntok_t *t = &d->tok[tok].t;
	char tmp[32];
	size_t n = (size_t)(t->end - t->start);
	if (n >= sizeof(tmp))
		return HL_EINVAL;
	memcpy(tmp, d->src + t->start, n);
	tmp[n] = '\0';
	char *end;
	errno = 0;
	long long v = strtoll(tmp, &end, 10);
	if (*end || errno)
		return HL_EINVAL;
	*out = v;
	return 0;
}

int json_bool(const struct json_doc *d, int tok, int *out)
{
	if (json_type(d, tok) != HL_JSON_BOOL)
		return HL_EINVAL;
	*out = d->src[d->tok[tok].t.start] == 't';
	return 0;
}

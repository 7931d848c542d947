/* SPDX-License-Identifier: MIT */
/*
 * json_read.c: the JSON reader of json.h. jsmn (Debian's libjsmn-dev, a
 * header-only tokenizer) finds the structure; this file adds what jsmn does
 * not check, so that a document it accepts is valid JSON (RFC 8259).
 *
 * Strings and keys must be UTF-8 and their escapes must decode to it (no
 * lone surrogate, no NUL): every module stores what it reads as text. An
 * object may not name a key twice: RFC 8259 leaves the meaning open, and
 * two readers that take different ones (the first, the last) would let
 * one pass what the other refuses.
 *
 * jsmn is compiled here only, with static linkage, so no other file
 * depends on its token layout.
 */
#define JSMN_STATIC
#define JSMN_STRICT
#define JSMN_PARENT_LINKS
#include <jsmn.h>

#include "lib/json.h"
#include "lib/utf8.h"

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

/* The code point of the \u escape(s) at s[i..n), s[i] being the 'u':
 * a pair of surrogates makes one. Sets *last to the escape's last byte.
 * -1 for bad hex, NUL (C strings end there) or a lone surrogate, which
 * has no UTF-8 form. */
static long unicode_escape(const char *s, size_t n, size_t i, size_t *last)
{
	long cp = i + 4 < n ? hex4(s + i + 1) : -1;
	*last = i + 4;
	if (cp >= 0xD800 && cp <= 0xDBFF && i + 10 < n && s[i + 5] == '\\' && s[i + 6] == 'u') {
		long lo = hex4(s + i + 7);
		if (lo >= 0xDC00 && lo <= 0xDFFF) {
			*last = i + 10;
			return 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
		}
	}
	return cp <= 0 || (cp >= 0xD800 && cp <= 0xDFFF) ? -1 : cp;
}

/* Unescape s[0..n) into out (which has room for n bytes: escapes never
 * grow). With out == NULL it only checks. Returns the length written, or
 * -1 - (offset of the bad byte): a control character, a bad escape, or
 * bytes that are not UTF-8, so that what is stored is always text. */
static long unescape(const char *s, size_t n, char *out)
{
	char *o = out;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20)
			return -1 - (long)i;
		if (c >= 0x80) {
			size_t len = utf8_seq((const unsigned char *)s + i, n - i);
			if (!len)
				return -1 - (long)i;
			if (o)
				memcpy(o, s + i, len), o += len;
			i += len - 1;
			continue;
		}
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
			size_t last;
			long cp = unicode_escape(s, n, i, &last);
			if (cp < 0)
				return -1 - (long)(i - 1);
			if (o)
				put_utf8(&o, (unsigned long)cp);
			i = last;
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

/* A token's bytes, quotes included (jsmn's string tokens leave them out). */
static int tok_begin(const jsmntok_t *t)
{
	return t->start - (t->type == JSMN_STRING);
}

static int tok_end(const jsmntok_t *t)
{
	return t->end + (t->type == JSMN_STRING);
}

/* The root fills the input: nothing but whitespace before it (jsmn skips a
 * ',' or ':' there without a word) or after it (a second root value). */
static int check_root(const struct json_doc *d, size_t len, size_t *err_at)
{
	const jsmntok_t *t = &d->tok[0].t;
	size_t begin = (size_t)tok_begin(t), end = len;
	for (size_t k = 0; k < begin; k++)
		if (!is_ws(d->src[k])) {
			*err_at = k;
			return HL_EINVAL;
		}
	while (end > 0 && is_ws(d->src[end - 1]))
		end--;
	if ((size_t)tok_end(t) != end) {
		*err_at = (size_t)tok_end(t);
		return HL_EINVAL;
	}
	return 0;
}

static int check_value(const struct json_doc *d, const jsmntok_t *t, size_t *err_at)
{
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
	return 0;
}

/* One pass over the tokens, in document order, checks every separator:
 * jsmn lets "[1 2]", "[1,]", {"a":1,} and {"a"} through. pos[i] is where
 * the last item inside container i ended; a value's parent is its key. */
static int check_tokens(const struct json_doc *d, size_t len, struct arena *a, size_t *err_at)
{
	int rc = check_root(d, len, err_at);
	if (rc)
		return rc;
	int *pos = arena_alloc(a, sizeof(int) * (size_t)d->ntok);
	int *items = arena_alloc(a, sizeof(int) * (size_t)d->ntok);
	for (int i = 0; i < d->ntok; i++) {
		const jsmntok_t *t = &d->tok[i].t;
		if ((rc = check_value(d, t, err_at)))
			return rc;
		pos[i] = t->start + 1;
		items[i] = 0;
		if (i == 0)
			continue;
		int p = t->parent, from, owner;
		char sep;
		const jsmntok_t *pt = &d->tok[p].t;
		if (pt->type == JSMN_STRING) { /* the value of key p */
			owner = pt->parent;
			from = owner >= 0 && d->tok[owner].t.type == JSMN_OBJECT ? tok_end(pt) : -1;
			sep = ':';
		} else {
			owner = p;
			from = pos[p];
			sep = items[p] ? ',' : 0;
			if (pt->type == JSMN_OBJECT && (t->type != JSMN_STRING || t->size != 1))
				from = -1; /* an object holds key/value pairs */
		}
		if (from < 0 || !gap_ok(d->src, from, tok_begin(t), sep)) {
			*err_at = (size_t)(from < 0 ? t->start : from);
			return HL_EINVAL;
		}
		pos[owner] = tok_end(t);
		items[owner]++;
	}
	for (int i = 0; i < d->ntok; i++) {
		const jsmntok_t *t = &d->tok[i].t;
		if ((t->type == JSMN_OBJECT || t->type == JSMN_ARRAY) &&
		    !gap_ok(d->src, pos[i], t->end - 1, 0)) {
			*err_at = (size_t)pos[i];
			return HL_EINVAL;
		}
	}
	return 0;
}

/* The token after the whole subtree at `tok`. */
static int skip(const struct json_doc *d, int tok)
{
	int end = d->tok[tok].t.end, i = tok + 1;
	while (i < d->ntok && d->tok[i].t.start < end)
		i++;
	return i;
}

struct key {
	const char *text; /* unescaped */
	size_t len;
	int at;           /* where it begins in the document */
};

static int key_order(const void *pa, const void *pb)
{
	const struct key *a = pa, *b = pb;
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->text, b->text, n);
	return c ? c : (a->len > b->len) - (a->len < b->len);
}

/* The keys of object `obj` into keys[], unescaped, sorted. */
static void sorted_keys(const struct json_doc *d, int obj, struct arena *a, struct key *keys)
{
	int k = obj + 1, n = d->tok[obj].t.size;
	for (int m = 0; m < n; m++) {
		const jsmntok_t *t = &d->tok[k].t;
		const char *s = d->src + t->start;
		size_t len = (size_t)(t->end - t->start);
		keys[m] = (struct key){ s, len, t->start };
		if (memchr(s, '\\', len)) { /* valid: check_value passed it */
			char *plain = arena_alloc(a, len + 1);
			keys[m].text = plain;
			keys[m].len = (size_t)unescape(s, len, plain);
		}
		k = skip(d, k + 1);
	}
	qsort(keys, (size_t)n, sizeof(*keys), key_order);
}

/* Refuse an object that names a key twice: its keys are sorted and each
 * compared with the next, so a wide object costs n log n, not n^2. */
static int check_duplicates(const struct json_doc *d, struct arena *a, size_t *err_at)
{
	int widest = 0;
	for (int i = 0; i < d->ntok; i++)
		if (d->tok[i].t.type == JSMN_OBJECT && d->tok[i].t.size > widest)
			widest = d->tok[i].t.size;
	if (widest < 2)
		return 0;
	struct key *keys = arena_alloc(a, sizeof(*keys) * (size_t)widest);
	for (int i = 0; i < d->ntok; i++) {
		if (d->tok[i].t.type != JSMN_OBJECT || d->tok[i].t.size < 2)
			continue;
		sorted_keys(d, i, a, keys);
		for (int m = 1; m < d->tok[i].t.size; m++)
			if (!key_order(&keys[m - 1], &keys[m])) {
				*err_at = (size_t)(keys[m].at > keys[m - 1].at ? keys[m].at : keys[m - 1].at);
				return HL_EINVAL;
			}
	}
	return 0;
}

/* Deeper nesting is refused before jsmn runs: its work per closing bracket
 * grows with the depth, so a body of a million '[' would hold a thread for
 * minutes. No document of ours nests nearly this deep. */
#define JSON_MAX_DEPTH 64

static int too_deep(const char *src, size_t len, size_t *err_at)
{
	int depth = 0, in_string = 0;
	for (size_t i = 0; i < len; i++) {
		char c = src[i];
		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = 0;
		} else if (c == '"') {
			in_string = 1;
		} else if (c == '[' || c == '{') {
			if (++depth > JSON_MAX_DEPTH) {
				*err_at = i;
				return 1;
			}
		} else if (c == ']' || c == '}') {
			depth--;
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
	if (too_deep(src, len, err_at))
		return HL_EINVAL;
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
	if (n <= 0) { /* the parser's position is where it went wrong */
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
	int rc = check_tokens(d, len, a, err_at);
	return rc ? rc : check_duplicates(d, a, err_at);
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

int json_next_key(const struct json_doc *d, int obj, int key)
{
	if (json_type(d, obj) != HL_JSON_OBJECT || !d->tok[obj].t.size)
		return -1;
	int next = key < 0 ? obj + 1 : skip(d, key + 1);
	return next < d->ntok && d->tok[next].t.start < d->tok[obj].t.end ? next : -1;
}

int json_count(const struct json_doc *d, int tok)
{
	enum hl_json_type t = json_type(d, tok);
	return t == HL_JSON_OBJECT || t == HL_JSON_ARRAY ? d->tok[tok].t.size : 0;
}

int json_index(struct json_doc *d, int arr, int idx)
{
	if (json_type(d, arr) != HL_JSON_ARRAY || idx < 0 || idx >= d->tok[arr].t.size)
		return -1;
	int i = arr + 1, at = 0;
	if (d->last_tok > 0 && d->last_arr == arr && d->last_idx <= idx) {
		i = d->last_tok;
		at = d->last_idx;
	}
	for (; at < idx; at++)
		i = skip(d, i);
	d->last_arr = arr;
	d->last_idx = idx;
	d->last_tok = i;
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

int json_decimal(const struct json_doc *d, int tok, int places, int64_t *out)
{
	if (json_type(d, tok) != HL_JSON_NUMBER || places < 0 || places > 18)
		return HL_EINVAL;
	const char *p = d->src + d->tok[tok].t.start, *end = d->src + d->tok[tok].t.end;
	int negative = p < end && *p == '-', after = -1; /* digits after the point */
	int64_t v = 0;
	for (p += negative; p < end; p++) {
		if (*p == '.' && after < 0) {
			after = 0;
			continue;
		}
		if (*p < '0' || *p > '9' || (after >= 0 && ++after > places) ||
		    v > (INT64_MAX - (*p - '0')) / 10)
			return HL_EINVAL; /* an exponent, too many places, too big */
		v = v * 10 + (*p - '0');
	}
	if (p == d->src + d->tok[tok].t.start + negative || after == 0)
		return HL_EINVAL; /* no digit, or none after the point */
	for (int i = after < 0 ? 0 : after; i < places; i++) {
		if (v > INT64_MAX / 10)
			return HL_EINVAL;
		v *= 10;
	}
	*out = negative ? -v : v;
	return 0;
}

int json_bool(const struct json_doc *d, int tok, int *out)
{
	if (json_type(d, tok) != HL_JSON_BOOL)
		return HL_EINVAL;
	*out = d->src[d->tok[tok].t.start] == 't';
	return 0;
}

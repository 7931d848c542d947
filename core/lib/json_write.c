/* SPDX-License-Identifier: MIT */
/*
 * json_write.c: the JSON writer (see json.h), exported as the public
 * hl_json_* functions.
 */
#include "lib/json.h"
#include "lib/utf8.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void json_writer_init(struct hl_json *j, struct buf *out)
{
	j->out = out;
	j->need_comma = 0;
	j->depth = j->after_key = j->row_keys = 0; /* the keys' text is left as it was */
}

/* The separator before a value or key at the current depth. */
static void before_value(struct hl_json *j)
{
	if (j->after_key) {
		j->after_key = 0;
		return;
	}
	uint64_t bit = 1ull << (j->depth & 63);
	if (j->need_comma & bit)
		buf_putc(j->out, ',');
	j->need_comma |= bit;
}

/* The bytes a string cannot hold as they are: controls, the quote, the
 * backslash, and the start of anything not ASCII (checked as UTF-8). */
static const unsigned char not_plain[256] = {
	[0 ... 0x1f] = 1, ['"'] = 1, ['\\'] = 1, [0x80 ... 0xff] = 1,
};

void json_quote(struct buf *out, const char *str, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	buf_reserve(out, n + 2);
	buf_putc(out, '"');
	size_t run = 0; /* start of the bytes that need no escaping */
	for (size_t i = 0; i < n;) {
		while (i < n && !not_plain[s[i]])
			i++;
		if (i == n)
			break;
		unsigned c = s[i];
		size_t len = c >= 0x80 ? utf8_seq(s + i, n - i) : 1;
		if (c >= 0x80 && len) {
			i += len;
			continue;
		}
		buf_append(out, s + run, i - run);
		if (c >= 0x80) {
			buf_append(out, "\xEF\xBF\xBD", 3); /* U+FFFD */
		} else if (c == '"' || c == '\\') {
			char esc[2] = { '\\', (char)c };
			buf_append(out, esc, 2);
		} else if (c == '\n') {
			buf_append(out, "\\n", 2);
		} else if (c == '\r') {
			buf_append(out, "\\r", 2);
		} else if (c == '\t') {
			buf_append(out, "\\t", 2);
		} else {
			char esc[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
			buf_append(out, esc, 6);
		}
		run = ++i;
	}
	buf_append(out, s + run, n - run);
	buf_putc(out, '"');
}

HL_API void hl_json_object(struct hl_json *j)
{
	before_value(j);
	buf_putc(j->out, '{');
	j->depth++;
	j->need_comma &= ~(1ull << (j->depth & 63));
}

HL_API void hl_json_object_end(struct hl_json *j)
{
	j->depth--;
	buf_putc(j->out, '}');
}

HL_API void hl_json_array(struct hl_json *j)
{
	before_value(j);
	buf_putc(j->out, '[');
	j->depth++;
	j->need_comma &= ~(1ull << (j->depth & 63));
}

HL_API void hl_json_array_end(struct hl_json *j)
{
	j->depth--;
	buf_putc(j->out, ']');
}

HL_API void hl_json_key(struct hl_json *j, const char *key)
{
	before_value(j);
	json_quote(j->out, key, strlen(key));
	buf_putc(j->out, ':');
	j->after_key = 1;
}

HL_API void hl_json_stringn(struct hl_json *j, const char *s, size_t n)
{
	before_value(j);
	json_quote(j->out, s, n);
}

HL_API void hl_json_string(struct hl_json *j, const char *s)
{
	if (!s)
		hl_json_null(j);
	else
		hl_json_stringn(j, s, strlen(s));
}

/* Digits by hand: snprintf took a third of the time of writing a row. */
HL_API void hl_json_int(struct hl_json *j, int64_t v)
{
	char tmp[20], *p = tmp + sizeof(tmp); /* INT64_MIN: a sign and 19 digits */
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	before_value(j);
	buf_append(j->out, p, (size_t)(tmp + sizeof(tmp) - p));
}

HL_API void hl_json_double(struct hl_json *j, double v)
{
	if (!isfinite(v)) {
		hl_json_null(j);
		return;
	}
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%.17g", v);
	/* Prefer the shortest form that reads back the same. */
	char shortest[32];
	int m = snprintf(shortest, sizeof(shortest), "%.15g", v);
	if (strtod(shortest, NULL) == v) {
		memcpy(tmp, shortest, (size_t)m + 1);
		n = m;
	}
	before_value(j);
	buf_append(j->out, tmp, (size_t)n);
}

HL_API void hl_json_bool(struct hl_json *j, int v)
{
	before_value(j);
	buf_puts(j->out, v ? "true" : "false");
}

HL_API void hl_json_null(struct hl_json *j)
{
	before_value(j);
	buf_append(j->out, "null", 4);
}

HL_API void hl_json_column(struct hl_json *j, sqlite3_stmt *st, int col)
{
	switch (sqlite3_column_type(st, col)) {
	case SQLITE_INTEGER:
		hl_json_int(j, sqlite3_column_int64(st, col));
		break;
	case SQLITE_FLOAT:
		hl_json_double(j, sqlite3_column_double(st, col));
		break;
	case SQLITE_TEXT:
		hl_json_stringn(j, (const char *)sqlite3_column_text(st, col),
				(size_t)sqlite3_column_bytes(st, col));
		break;
	default: /* NULL, and BLOBs, which have no JSON form */
		hl_json_null(j);
		break;
	}
}

HL_API void hl_json_members(struct hl_json *j, sqlite3_stmt *st, const struct hl_member *m)
{
	for (; m->key; m++) {
		hl_json_key(j, m->key);
		hl_json_column(j, st, m->col);
	}
}

static enum row_key_kind key_kind(const char *name)
{
	if (name[0] == '_')
		return ROW_KEY_HIDDEN; /* for the core's use (a page's cursor), not the client's */
	return strncmp(name, "json_", 5) ? ROW_KEY_PLAIN : ROW_KEY_JSON;
}

/* Quote the key of column `i`, named `name`, into the answer, and
 * remember it in slot i when it fits and slots 0 to i-1 are filled. */
static enum row_key_kind quote_key(struct hl_json *j, int i, const char *name)
{
	enum row_key_kind kind = key_kind(name);
	size_t at = j->out->len;
	if (kind != ROW_KEY_HIDDEN) {
		const char *key = kind == ROW_KEY_JSON ? name + 5 : name;
		before_value(j);
		at = j->out->len;
		json_quote(j->out, key, strlen(key));
		buf_putc(j->out, ':');
		j->after_key = 1;
	}
	struct row_key *k = &j->row_key[i < ROW_KEYS ? i : 0];
	size_t len = j->out->len - at, n = strlen(name);
	if (i > j->row_keys || i >= ROW_KEYS)
		return kind;
	if (n >= sizeof(k->name) || len > sizeof(k->quoted) || j->out->oom) {
		j->row_keys = i; /* this slot and the ones after it are stale */
		return kind;
	}
	memcpy(k->name, name, n + 1);
	memcpy(k->quoted, j->out->data + at, len);
	k->len = (unsigned char)len;
	k->kind = (unsigned char)kind;
	if (i == j->row_keys)
		j->row_keys++;
	return kind;
}

/* The key of column `i`: the one remembered for its name, or quoted now.
 * Checking the name (not the statement) keeps it right whatever rows of
 * whatever statements come in turn. */
static enum row_key_kind write_key(struct hl_json *j, int i, const char *name)
{
	const struct row_key *k = &j->row_key[i < ROW_KEYS ? i : 0];
	if (i >= j->row_keys || strcmp(k->name, name))
		return quote_key(j, i, name);
	if (k->kind != ROW_KEY_HIDDEN) {
		before_value(j);
		buf_append(j->out, k->quoted, k->len);
		j->after_key = 1;
	}
	return (enum row_key_kind)k->kind;
}

HL_API void hl_json_columns(struct hl_json *j, sqlite3_stmt *st)
{
	int n = sqlite3_column_count(st);
	for (int i = 0; i < n; i++) {
		enum row_key_kind kind = write_key(j, i, sqlite3_column_name(st, i));
		if (kind == ROW_KEY_PLAIN) {
			hl_json_column(j, st, i);
		} else if (kind == ROW_KEY_JSON) {
			const char *raw = (const char *)sqlite3_column_text(st, i);
			before_value(j);
			if (raw)
				buf_append(j->out, raw, (size_t)sqlite3_column_bytes(st, i));
			else
				buf_append(j->out, "null", 4);
		}
	}
}

HL_API void hl_json_row(struct hl_json *j, sqlite3_stmt *st)
{
	hl_json_object(j);
	hl_json_columns(j, st);
	hl_json_object_end(j);
}

HL_API int hl_json_rows(struct hl_json *j, sqlite3_stmt *st)
{
	int rc = st ? SQLITE_ROW : SQLITE_ERROR;
	hl_json_array(j);
	while (rc == SQLITE_ROW && (rc = sqlite3_step(st)) == SQLITE_ROW)
		hl_json_row(j, st);
	hl_json_array_end(j);
	if (st)
		sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : HL_EDB;
}

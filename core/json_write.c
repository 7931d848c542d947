/* SPDX-License-Identifier: MIT */
/*
 * json_write.c: the JSON writer (see json.h), exported as the public
 * hl_json_* functions.
 */
#include "json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void json_writer_init(struct hl_json *j, struct buf *out)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
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

/* Length of the valid UTF-8 sequence at s (1-4), or 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned min;
	if (c < 0x80)
		return 1;
	else if ((c & 0xE0) == 0xC0)
		len = 2, min = 0x80, c &= 0x1F;
	else if ((c & 0xF0) == 0xE0)
		len = 3, min = 0x800, c &= 0x0F;
	else if ((c & 0xF8) == 0xF0)
		len = 4, min = 0x10000, c &= 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3F);
	}
	if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	return len;
}

void json_quote(struct buf *out, const char *str, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	buf_reserve(out, n + 2);
	buf_putc(out, '"');
	size_t run = 0; /* start of the bytes that need no escaping */
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
			i++;
			continue;
		}
		size_t len = c >= 0x80 ? utf8_len(s + i, n - i) : 1;
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

HL_API void hl_json_int(struct hl_json *j, int64_t v)
{
	char tmp[24];
	int n = snprintf(tmp, sizeof(tmp), "%lld", (long long)v);
	before_value(j);
	buf_append(j->out, tmp, (size_t)n);
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

HL_API void hl_json_row(struct hl_json *j, sqlite3_stmt *st)
{
	int n = sqlite3_column_count(st);
	hl_json_object(j);
	for (int i = 0; i < n; i++) {
		const char *name = sqlite3_column_name(st, i);
		if (name[0] == '_')
			continue; /* for the core's use (a page's cursor), not the client's */
		if (!strncmp(name, "json_", 5)) {
			hl_json_key(j, name + 5);
			const char *raw = (const char *)sqlite3_column_text(st, i);
			before_value(j);
			if (raw)
				buf_append(j->out, raw, (size_t)sqlite3_column_bytes(st, i));
			else
				buf_append(j->out, "null", 4);
			continue;
		}
		hl_json_key(j, name);
		hl_json_column(j, st, i);
	}
	hl_json_object_end(j);
}

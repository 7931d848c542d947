/* SPDX-License-Identifier: MIT */
/*
 * csv_write.c: the CSV writer (see csv_write.h) and the public
 * hl_stream_csv_header/row/fields, which write a line straight into a
 * streamed answer's buffer, nothing allocated per row.
 *
 * Formulas (OWASP's CSV injection): text a spreadsheet would evaluate,
 * starting with =, +, -, @, TAB or CR, perhaps after quotes, is written
 * with one more quote in front ('=1+2, ''=x) and in double quotes, so it
 * shows as text. The reader (csv.c) takes one quote off text of that
 * form, so an export reads back exactly as stored, a value that truly
 * began with '= included. Numbers are not guarded: SQLite's text of a
 * negative number is a number to a spreadsheet too, and so is text that
 * is a sign and digits alone (a phone as stored, "+15125550199"), which
 * no spreadsheet runs. Text that begins with a quote is always guarded
 * when a trigger follows, so that the reader, which takes one quote off
 * all of it (files of older builds and other tools too), gets it back.
 *
 * Otherwise text is written as it is (the reader refuses a NUL byte or
 * invalid UTF-8, which our tables do not hold); numbers as SQLite's text
 * of them; NULL and BLOBs as empty fields.
 */
#include "request/csv_write.h"
#include "request/request.h"

#include <string.h>

/* What makes a field need quotes (RFC 4180, 2.6). */
static const unsigned char special[256] = { [','] = 1, ['"'] = 1, ['\r'] = 1, ['\n'] = 1 };

/* A + or - and digits, perhaps with a decimal part: a number to a
 * spreadsheet, not a formula. */
static int signed_number(const char *s, size_t n)
{
	size_t i = 1, digits = 0;
	if (n < 2 || (s[0] != '+' && s[0] != '-'))
		return 0;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		digits++;
	if (digits && i + 1 < n && s[i] == '.')
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			;
	return digits && i == n;
}

/* Append s[0..n), quoted when it must be, and with a formula's guard
 * when `guard` is set. */
static void field(struct buf *out, const char *str, size_t n, int guard)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	guard = guard && csv_formula(str, n) && !signed_number(str, n);
	while (i < n && !special[s[i]])
		i++;
	if (i == n && !guard && !(n >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3))) {
		buf_append(out, s, n);
		return;
	}
	buf_putc(out, '"');
	if (guard)
		buf_putc(out, '\'');
	size_t run = 0;
	for (; i < n; i++) {
		if (s[i] != '"')
			continue;
		/* Through the quote; the next run starts on it, writing it twice. */
		buf_append(out, s + run, i + 1 - run);
		run = i;
	}
	buf_append(out, s + run, n - run);
	buf_putc(out, '"');
}

void csv_quote(struct buf *out, const char *s, size_t n)
{
	field(out, s, n, 1);
}

static void value(struct buf *out, sqlite3_stmt *st, int col)
{
	int type = sqlite3_column_type(st, col); /* before sqlite3_column_text converts it */
	switch (type) {
	case SQLITE_INTEGER:
	case SQLITE_FLOAT:
	case SQLITE_TEXT: {
		const char *text = (const char *)sqlite3_column_text(st, col);
		if (text) /* NULL only when SQLite ran out of memory */
			field(out, text, (size_t)sqlite3_column_bytes(st, col), type == SQLITE_TEXT);
		break;
	}
	default: /* NULL, and BLOBs, which have no text form */
		break;
	}
}

static void line(struct buf *out, sqlite3_stmt *st, int names)
{
	size_t begin = out->len;
	int written = 0;
	for (int i = 0, n = sqlite3_column_count(st); i < n; i++) {
		const char *name = sqlite3_column_name(st, i);
		if (name && name[0] == '_')
			continue; /* for the core's use (a page's cursor), as in hl_json_row */
		if (written++)
			buf_putc(out, ',');
		if (!names)
			value(out, st, i);
		else if (name)
			csv_quote(out, name, strlen(name));
	}
	/* A lone empty field would make a blank line, which readers skip. */
	if (written == 1 && out->len == begin)
		buf_append(out, "\"\"", 2);
	buf_append(out, "\r\n", 2);
}

void csv_header(struct buf *out, sqlite3_stmt *st)
{
	line(out, st, 1);
}

void csv_row(struct buf *out, sqlite3_stmt *st)
{
	line(out, st, 0);
}

/* Write a line into the stream's buffer, which sends it on when full. */
static int stream_line(struct hl_req *req, sqlite3_stmt *st, int names)
{
	int rc = stream_body_open(req);
	if (rc <= 0)
		return rc;
	size_t before = req->out.len;
	line(&req->out, st, names);
	return stream_body_added(req, req->out.len - before);
}

HL_API int hl_stream_csv_header(struct hl_req *req, sqlite3_stmt *st)
{
	return stream_line(req, st, 1);
}

HL_API int hl_stream_csv_row(struct hl_req *req, sqlite3_stmt *st)
{
	return stream_line(req, st, 0);
}

HL_API int hl_stream_csv_fields(struct hl_req *req, const char *const *fields,
				const size_t *lens, int n)
{
	int rc = stream_body_open(req);
	if (rc <= 0)
		return rc;
	size_t before = req->out.len;
	for (int i = 0; i < n; i++) {
		if (i)
			buf_putc(&req->out, ',');
		if (fields[i])
			csv_quote(&req->out, fields[i], lens ? lens[i] : strlen(fields[i]));
	}
	if (n == 1 && req->out.len == before) /* not a blank line: see line() */
		buf_append(&req->out, "\"\"", 2);
	buf_append(&req->out, "\r\n", 2);
	return stream_body_added(req, req->out.len - before);
}

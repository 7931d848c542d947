/* SPDX-License-Identifier: MIT */
/*
 * Tests core/lib/csv.c (the reader: quoting, line breaks and line numbers,
 * byte order marks, blank lines, every malformed record and the line the
 * reader goes on at, resuming from an offset, the limits) and
 * core/request/csv_write.c (when fields are quoted, the guard against formulas,
 * rows from SQLite, and a round trip of awkward strings through the writer
 * and back through the reader).
 */
#include "request/csv_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"

/* ---- the reader ------------------------------------------------------------ */

static struct buf seen = BUF_INIT;

/* What a reader makes of the rest of its input, one record at a time:
 * "LINE:field|field;" for a record, "LINE:!;" for a malformed one. */
static const char *render(struct hl_csv *csv)
{
	int rc;
	buf_reset(&seen);
	while ((rc = hl_csv_next(csv)) != 0) {
		buf_printf(&seen, "%ld:", hl_csv_record_line(csv));
		if (rc < 0)
			buf_puts(&seen, "!");
		for (int i = 0; i < rc; i++) {
			size_t len;
			const char *f = hl_csv_field(csv, i, &len);
			CHECK(f && strlen(f) == len);
			buf_printf(&seen, "%s%s", i ? "|" : "", f);
		}
		buf_putc(&seen, ';');
	}
	return seen.data ? seen.data : "";
}

/* The records of n bytes at s, read from the start. */
static const char *readn(const char *s, size_t n)
{
	struct hl_csv *csv = hl_csv_open(s, n, 0, 1);
	const char *got = render(csv);
	hl_csv_close(csv);
	return got;
}

static const char *read_csv(const char *s)
{
	return readn(s, strlen(s));
}

static void fields_and_quotes(void)
{
	CHECK_STR(read_csv("a,b,c\n1,2,3\n"), "1:a|b|c;2:1|2|3;");
	CHECK_STR(read_csv("\"a,b\",\"say \"\"hi\"\"\",\"\"\n"), "1:a,b|say \"hi\"|;");
	CHECK_STR(read_csv(",,\n"), "1:||;");
	CHECK_STR(read_csv("a,\n"), "1:a|;");
	CHECK_STR(read_csv("\"\"\n"), "1:;"); /* one empty field, not a blank line */
	CHECK_STR(read_csv(" a , b \n"), "1: a | b ;");
	CHECK_STR(read_csv("ab\"c,\"\"\"\"\n"), "1:ab\"c|\";"); /* a bare quote is text */
	CHECK_STR(read_csv(" \"x\",y\n"), "1: \"x\"|y;");
	CHECK_STR(read_csv("Zoë,東京,😀\n"), "1:Zoë|東京|😀;");
	CHECK_STR(read_csv("\"x\""), "1:x;");
}

static void line_breaks_and_line_numbers(void)
{
	CHECK_STR(read_csv("a\r\nb\r\n"), "1:a;2:b;");
	CHECK_STR(read_csv("a\rb\rc"), "1:a;2:b;3:c;"); /* old Mac files */
	CHECK_STR(read_csv("\"1\n2\",x\nnext\n"), "1:1\n2|x;3:next;");
	CHECK_STR(read_csv("\"1\r\n2\r\n3\"\r\nnext\r\n"), "1:1\r\n2\r\n3;4:next;");
	CHECK_STR(read_csv("\"lone\rcr\",x\nnext"), "1:lone\rcr|x;3:next;");
	CHECK_STR(read_csv("last,line"), "1:last|line;");
	CHECK_STR(read_csv("a\n\n\r\n\rb\n\n"), "1:a;5:b;");
	CHECK_STR(read_csv(""), "");
	CHECK_STR(read_csv("\n\r\n\n"), "");
}

static void byte_order_mark_only_at_the_start(void)
{
	CHECK_STR(read_csv("\xEF\xBB\xBFname,email\nx,y\n"), "1:name|email;2:x|y;");
	CHECK_STR(read_csv("\xEF\xBB\xBF"), "");
	CHECK_STR(read_csv("a\n\xEF\xBB\xBF" "b\n"), "1:a;2:\xEF\xBB\xBF" "b;");
	/* Resuming at offset 0 of a later slice is not the start of a file. */
	const char *s = "a\n\xEF\xBB\xBF" "b\n";
	struct hl_csv *csv = hl_csv_open(s + 2, strlen(s + 2), 3, 2);
	CHECK_STR(render(csv), "2:b;");
	hl_csv_close(csv);
}

/* The error of the first record of s, which must be malformed. */
static const char *first_error(const char *s, size_t n)
{
	static char why[200];
	struct hl_csv *csv = hl_csv_open(s, n, 0, 1);
	CHECK_INT(hl_csv_next(csv), HL_EINVAL);
	CHECK(hl_csv_field(csv, 0, NULL) == NULL);
	snprintf(why, sizeof(why), "%s", hl_csv_error(csv) ? hl_csv_error(csv) : "");
	hl_csv_close(csv);
	return why;
}

static void malformed_records_are_refused_and_skipped(void)
{
	CHECK_STR(read_csv("ok\n\"ab\"c,d\nnext\n"), "1:ok;2:!;3:next;");
	CHECK(strstr(first_error("\"ab\"c,d\n", 8), "after a closing quote"));
	CHECK_STR(read_csv("ok\n\"ab\" ,d\r\nnext\n"), "1:ok;2:!;3:next;");

	static const char nul[] = "ok\na\0b,c\n\"x\0\",y\nnext\n";
	CHECK_STR(readn(nul, sizeof(nul) - 1), "1:ok;2:!;3:!;4:next;");
	CHECK(strstr(first_error("a\0b", 3), "NUL byte"));

	CHECK_STR(read_csv("ok\n\"open,x\nmore\nlines\n"), "1:ok;2:!;");
	CHECK(strstr(first_error("\"open", 5), "never closed"));
	CHECK(strstr(first_error("\"open", 5), "rest of the input"));
	struct hl_csv *csv = hl_csv_open("a\n\"b\nc", 6, 0, 1);
	CHECK_INT(hl_csv_next(csv), 1);
	CHECK_INT(hl_csv_next(csv), HL_EINVAL);
	CHECK_INT(hl_csv_offset(csv), 6);
	CHECK_INT(hl_csv_line(csv), 3);
	CHECK_INT(hl_csv_next(csv), 0);
	CHECK(hl_csv_error(csv) == NULL);
	hl_csv_close(csv);
}

static void invalid_utf8_is_refused(void)
{
	static const char *const bad[] = {
		"\x80",             /* a continuation byte alone */
		"\xC3",             /* cut short at the end */
		"\xC3(",            /* cut short before text */
		"\xC0\xAF",         /* overlong '/' */
		"\xE0\x80\xAF",     /* overlong, three bytes */
		"\xF0\x80\x80\xAF", /* overlong, four bytes */
		"\xED\xA0\x80",     /* a UTF-16 surrogate */
		"\xF4\x90\x80\x80", /* past U+10FFFF */
		"\xF5\x80\x80\x80", /* no such lead byte */
		"\xFF",
		"\xE2\x82",         /* cut short */
		"abcdefgh\xE9t\xE9",   /* Latin-1, after a run of ASCII */
	};
	char in[64], want[64];
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(in, sizeof(in), "ok\nx,%s,y\n\"%s\"\nnext", bad[i], bad[i]);
		CHECK_STR(read_csv(in), "1:ok;2:!;3:!;4:next;");
		snprintf(in, sizeof(in), "%s", bad[i]);
		CHECK(strstr(first_error(in, strlen(in)), "UTF-8"));
	}
	static const char *const good[] = { "\xC2\x80", "\xDF\xBF", "\xE0\xA0\x80", "\xED\x9F\xBF",
					     "\xEE\x80\x80", "\xEF\xBF\xBF", "\xF0\x90\x80\x80",
					     "\xF4\x8F\xBF\xBF" };
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(in, sizeof(in), "%s,abcdefgh%s\n", good[i], good[i]);
		snprintf(want, sizeof(want), "1:%s|abcdefgh%s;", good[i], good[i]);
		CHECK_STR(read_csv(in), want);
	}
}

/* A malformed record whose quoted field spans lines is skipped whole, so
 * its second line is not taken for a record. */
static void a_malformed_record_is_skipped_to_its_end(void)
{
	CHECK_STR(read_csv("\"a\"b,\"multi\nline\"\nnext\n"), "1:!;3:next;");
	CHECK_STR(read_csv("\xFF,\"multi\r\nline\"\r\nnext\r\n"), "1:!;3:next;");
	struct hl_csv *csv = hl_csv_open("\"a\"b,\"x\ny\"\nnext\n", 15, 0, 1);
	CHECK_INT(hl_csv_next(csv), HL_EINVAL);
	CHECK_INT(hl_csv_record_line(csv), 1);
	CHECK_INT(hl_csv_line(csv), 3);
	CHECK_INT(hl_csv_offset(csv), 11);
	CHECK_INT(hl_csv_next(csv), 1);
	CHECK(hl_csv_error(csv) == NULL);
	hl_csv_close(csv);
}

/* Reading on from each record's hl_csv_offset and hl_csv_line gives what
 * a straight read gave from there. */
static void resuming_gives_the_same_records(void)
{
	static const char s[] = "\xEF\xBB\xBFh1,h2\r\n\r\n\"a\r\nb\",c\n\"x\"y\n\n"
				"\"q\"\"\",r\rlast,\"field\"";
	size_t n = sizeof(s) - 1;
	struct buf whole = BUF_INIT;
	buf_puts(&whole, readn(s, n));
	CHECK_STR(whole.data, "1:h1|h2;3:a\r\nb|c;5:!;7:q\"|r;8:last|field;");

	struct hl_csv *csv = hl_csv_open(s, n, 0, 1);
	int rc, records = 0;
	do {
		size_t at = hl_csv_offset(csv);
		long line = hl_csv_line(csv);
		struct hl_csv *again = hl_csv_open(s, n, at, line);
		const char *rest = render(again);
		hl_csv_close(again);
		/* The straight read's records from the resumed one's first. */
		const char *from = rest[0] ? strstr(whole.data, rest) : whole.data + whole.len;
		CHECK(from && strlen(from) == strlen(rest));
		rc = hl_csv_next(csv);
		records++;
	} while (rc != 0);
	CHECK_INT(records, 6);
	CHECK_INT(hl_csv_offset(csv), n);
	hl_csv_close(csv);
	buf_release(&whole);
}

static void offsets_past_the_end_and_field_bounds(void)
{
	struct hl_csv *csv = hl_csv_open("a,b\n", 4, 99, 7);
	CHECK_INT(hl_csv_next(csv), 0);
	CHECK_INT(hl_csv_offset(csv), 4);
	CHECK_INT(hl_csv_line(csv), 7);
	hl_csv_close(csv);

	csv = hl_csv_open("a,bc\n", 5, 0, 1);
	CHECK_INT(hl_csv_next(csv), 2);
	size_t len = 99;
	CHECK_STR(hl_csv_field(csv, 1, &len), "bc");
	CHECK_INT(len, 2);
	CHECK(hl_csv_field(csv, 2, &len) == NULL && len == 0);
	CHECK(hl_csv_field(csv, -1, NULL) == NULL);
	CHECK_INT(hl_csv_offset(csv), 5);
	CHECK_INT(hl_csv_line(csv), 2);
	hl_csv_close(csv);

	csv = hl_csv_open(NULL, 0, 0, 0);
	CHECK_INT(hl_csv_next(csv), 0);
	CHECK_INT(hl_csv_line(csv), 1);
	hl_csv_close(csv);
	hl_csv_close(NULL);
}

/* `fields` commas-separated fields on one line, then "next". */
static char *wide_record(int fields)
{
	char *s = malloc((size_t)fields * 2 + 8);
	size_t n = 0;
	for (int i = 0; i < fields; i++) {
		s[n++] = (char)('a' + i % 26);
		s[n++] = i + 1 < fields ? ',' : '\n';
	}
	memcpy(s + n, "next", 5);
	return s;
}

/* A field of `size` bytes (quoted when `quote`), then a line "next". */
static char *long_field(size_t size, int quote)
{
	char *s = malloc(size + 16), *p = s;
	if (quote)
		*p++ = '"';
	memset(p, 'x', size);
	p += size;
	if (quote)
		*p++ = '"';
	memcpy(p, ",y\nnext", 8);
	return s;
}

static void limits(void)
{
	char *s = wide_record(1000);
	struct hl_csv *csv = hl_csv_open(s, strlen(s), 0, 1);
	CHECK_INT(hl_csv_next(csv), 1000);
	CHECK_STR(hl_csv_field(csv, 999, NULL), "l");
	hl_csv_close(csv);
	free(s);

	s = wide_record(5000);
	CHECK_STR(read_csv(s), "1:!;2:next;");
	CHECK(strstr(first_error(s, strlen(s)), "more than 1000 fields"));
	free(s);

	for (int quote = 0; quote < 2; quote++) {
		s = long_field(1024 * 1024, quote);
		csv = hl_csv_open(s, strlen(s), 0, 1);
		size_t len;
		CHECK_INT(hl_csv_next(csv), 2);
		CHECK(hl_csv_field(csv, 0, &len) && len == 1024 * 1024);
		hl_csv_close(csv);
		free(s);

		s = long_field(1024 * 1024 + 1, quote);
		CHECK_STR(read_csv(s), "1:!;2:next;");
		CHECK(strstr(first_error(s, strlen(s)), "longer than 1 MB"));
		free(s);
	}
}

/* ---- the writer ------------------------------------------------------------ */

static struct buf out = BUF_INIT;

static const char *quoted(const char *s, size_t n)
{
	buf_reset(&out);
	csv_quote(&out, s, n);
	return out.data ? out.data : "";
}

static void fields_are_quoted_only_when_they_must_be(void)
{
	CHECK_STR(quoted("plain", 5), "plain");
	CHECK_STR(quoted("", 0), "");
	CHECK_STR(quoted(" spaced ", 8), " spaced ");
	CHECK_STR(quoted("Zoë", 4), "Zoë");
	CHECK_STR(quoted("a,b", 3), "\"a,b\"");
	CHECK_STR(quoted("say \"hi\"", 8), "\"say \"\"hi\"\"\"");
	CHECK_STR(quoted("\"", 1), "\"\"\"\"");
	CHECK_STR(quoted("a\rb", 3), "\"a\rb\"");
	CHECK_STR(quoted("a\nb", 3), "\"a\nb\"");
	CHECK_STR(quoted("\xEF\xBB\xBFx", 4), "\"\xEF\xBB\xBFx\"");
}

/* OWASP's guard: what a spreadsheet would run gets a ' and quotes. */
static void formulas_are_guarded(void)
{
	CHECK_STR(quoted("=1+2", 4), "\"'=1+2\"");
	CHECK_STR(quoted("=cmd|' /C calc'!A0", 18), "\"'=cmd|' /C calc'!A0\"");
	CHECK_STR(quoted("-2+3", 4), "\"'-2+3\"");
	CHECK_STR(quoted("@HYPERLINK(\"x\")", 15), "\"'@HYPERLINK(\"\"x\"\")\"");
	CHECK_STR(quoted("\tx", 2), "\"'\tx\"");
	CHECK_STR(quoted("\rx", 2), "\"'\rx\"");
	CHECK_STR(quoted("'=x", 3), "\"''=x\"");
	CHECK_STR(quoted("''-", 3), "\"'''-\"");
	CHECK_STR(quoted("+", 1), "\"'+\"");
	CHECK_STR(quoted("-1e3", 4), "\"'-1e3\"");
	CHECK_STR(quoted("+1 555 0100", 11), "\"'+1 555 0100\"");
	CHECK_STR(quoted("+1-512-555-0199", 15), "\"'+1-512-555-0199\"");
	CHECK_STR(quoted("-1.", 3), "\"'-1.\"");
	CHECK_STR(quoted("'+15550100", 10), "\"''+15550100\"");
	/* Not formulas: a quote alone, one later in the text, a trigger not
	 * first; a sign and digits, a number to a spreadsheet (a phone as
	 * stored). */
	CHECK_STR(quoted("'", 1), "'");
	CHECK_STR(quoted("''", 2), "''");
	CHECK_STR(quoted("O'Brien", 7), "O'Brien");
	CHECK_STR(quoted("a=b", 3), "a=b");
	CHECK_STR(quoted(" =1", 3), " =1");
	CHECK_STR(quoted("+15125550199", 12), "+15125550199");
	CHECK_STR(quoted("-7.5", 4), "-7.5");
	/* The reader takes one quote off exactly those, and nothing else. */
	CHECK_STR(read_csv("'=1,''=2,'''+x,'@,'-\r\n"), "1:=1|'=2|''+x|@|-;");
	CHECK_STR(read_csv("',O'Brien,'x,'',' =1,\"'\t\"\r\n"), "1:'|O'Brien|'x|''|' =1|\t;");
	/* An export of an older build, which guarded phones too, reads back. */
	CHECK_STR(read_csv("'+15550100,'-7,''+15550100\r\n"), "1:+15550100|-7|'+15550100;");
}

static void rows_from_sqlite(void)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	CHECK_INT(sqlite3_open(":memory:", &db), SQLITE_OK);
	CHECK_INT(sqlite3_prepare_v2(db,
				     "SELECT 42 AS id, -2.5 AS \"a,b\", 1e300 AS big, NULL AS n,"
				     " x'00ff' AS blob, 'x\"y' AS t, 'c' AS _cursor, '' AS e,"
				     " -7 AS neg, '-7' AS text_neg",
				     -1, &st, NULL), SQLITE_OK);
	CHECK_INT(sqlite3_step(st), SQLITE_ROW);
	buf_reset(&out);
	csv_header(&out, st);
	csv_row(&out, st);
	/* A number is not guarded, nor text that is a signed number. */
	CHECK_STR(out.data, "id,\"a,b\",big,n,blob,t,e,neg,text_neg\r\n"
			    "42,-2.5,1.0e+300,,,\"x\"\"y\",,-7,-7\r\n");
	sqlite3_finalize(st);

	/* A row of one empty field must not read back as a blank line. */
	CHECK_INT(sqlite3_prepare_v2(db, "SELECT NULL AS only, 1 AS _hidden", -1, &st, NULL),
		  SQLITE_OK);
	CHECK_INT(sqlite3_step(st), SQLITE_ROW);
	buf_reset(&out);
	csv_header(&out, st);
	csv_row(&out, st);
	CHECK_STR(out.data, "only\r\n\"\"\r\n");
	CHECK_STR(read_csv(out.data), "1:only;2:;");
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* Awkward strings written as one row per string (twice, with a column
 * after) read back the same. */
static void writer_to_reader_round_trip(void)
{
	static const char *const tricky[] = {
		"", " ", "plain", "a,b", "\"", "\"\"", "\"quoted\"", "ends with \"",
		"line\nbreak", "crlf\r\nbreak", "lone\rcr", "\r", "\n", ",", "a\"b,c\r\nd\"",
		"\xEF\xBB\xBF" "bom", "Zoë 東京 😀", "=SUM(A1:A2)", "   ", "trailing,",
		"+1 555 0100", "-2+3", "@HYPERLINK(\"x\")", "\tx", "\rx", "'=x", "''+x", "'",
		"''", "'x", "=cmd|' /C calc'!A0",
	};
	size_t n = sizeof(tricky) / sizeof(tricky[0]);
	buf_reset(&out);
	buf_append(&out, "\xEF\xBB\xBF", 3); /* as a file saved by an editor */
	for (size_t i = 0; i < n; i++) {
		csv_quote(&out, tricky[i], strlen(tricky[i]));
		buf_putc(&out, ',');
		csv_quote(&out, tricky[i], strlen(tricky[i]));
		buf_append(&out, ",end\r\n", 6);
	}
	struct hl_csv *csv = hl_csv_open(out.data, out.len, 0, 1);
	for (size_t i = 0; i < n; i++) {
		CHECK_INT(hl_csv_next(csv), 3);
		CHECK_STR(hl_csv_field(csv, 0, NULL), tricky[i]);
		CHECK_STR(hl_csv_field(csv, 1, NULL), tricky[i]);
		CHECK_STR(hl_csv_field(csv, 2, NULL), "end");
	}
	CHECK_INT(hl_csv_next(csv), 0);
	hl_csv_close(csv);
}

static void a_file_in_another_encoding_is_named(void)
{
	long line = -1;
	const char ok[] = "\xEF\xBB\xBFname\r\nZo\xC3\xAB\r\n";
	CHECK(hl_csv_check(ok, sizeof(ok) - 1, &line) == NULL);
	CHECK_INT(line, 0);
	const char latin1[] = "name\r\nAnn\r\n\"Two\rlines\"\nJos\xE9\n";
	const char *why = hl_csv_check(latin1, sizeof(latin1) - 1, &line);
	CHECK(why && strstr(why, "Latin-1") && strstr(why, "CSV UTF-8"));
	CHECK_INT(line, 5);
	const char utf16[] = "\xFF\xFEn\0a\0";
	why = hl_csv_check(utf16, sizeof(utf16) - 1, &line);
	CHECK(why && strstr(why, "UTF-16"));
	CHECK_INT(line, 0);
	const char nul[] = "name\nA\0n\n";
	why = hl_csv_check(nul, sizeof(nul) - 1, &line);
	CHECK(why && strstr(why, "NUL"));
	CHECK_INT(line, 2);
	const char cut[] = "name\r\nab\xE2\x82";
	CHECK(hl_csv_check(cut, sizeof(cut) - 1, &line) != NULL);
	CHECK_INT(line, 2);
}

static void cleanup(void)
{
	buf_release(&seen);
	buf_release(&out);
}

TEST_MAIN(fields_and_quotes,
	  line_breaks_and_line_numbers,
	  byte_order_mark_only_at_the_start,
	  malformed_records_are_refused_and_skipped,
	  invalid_utf8_is_refused,
	  a_malformed_record_is_skipped_to_its_end,
	  resuming_gives_the_same_records,
	  offsets_past_the_end_and_field_bounds,
	  limits,
	  fields_are_quoted_only_when_they_must_be,
	  formulas_are_guarded,
	  rows_from_sqlite,
	  writer_to_reader_round_trip,
	  a_file_in_another_encoding_is_named,
	  cleanup)

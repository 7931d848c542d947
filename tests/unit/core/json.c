/* SPDX-License-Identifier: MIT */
/*
 * Tests core/lib/json_write.c (commas, escaping, UTF-8 repair, numbers, rows
 * from SQLite) and core/lib/json_read.c (lookups, unescaping, number ranges and
 * the documents that must be refused, text that is not UTF-8 included).
 */
#include "lib/json.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"

/* ---- the writer ------------------------------------------------------------ */

static struct buf out = BUF_INIT;
static struct hl_json w;

static struct hl_json *writer(void)
{
	buf_reset(&out);
	json_writer_init(&w, &out);
	return &w;
}

static const char *written(void)
{
	return out.data ? out.data : "";
}

/* The JSON string literal the writer makes of the n bytes at s. */
static const char *quoted(const char *s, size_t n)
{
	hl_json_stringn(writer(), s, n);
	return written();
}

static void commas_in_nested_objects_and_arrays(void)
{
	struct hl_json *j = writer();
	hl_json_object(j);
	hl_json_key(j, "a");
	hl_json_int(j, 1);
	hl_json_key(j, "b");
	hl_json_array(j);
	hl_json_int(j, 1);
	hl_json_object(j);
	hl_json_object_end(j);
	hl_json_array(j);
	hl_json_array_end(j);
	hl_json_null(j);
	hl_json_array_end(j);
	hl_json_key(j, "c");
	hl_json_object(j);
	hl_json_key(j, "d");
	hl_json_bool(j, 1);
	hl_json_key(j, "e");
	hl_json_bool(j, 0);
	hl_json_object_end(j);
	hl_json_key(j, "f");
	hl_json_string(j, NULL);
	hl_json_object_end(j);
	CHECK_STR(written(), "{\"a\":1,\"b\":[1,{},[],null],\"c\":{\"d\":true,\"e\":false},\"f\":null}");
}

static void array_of_objects_separates_each(void)
{
	struct hl_json *j = writer();
	hl_json_array(j);
	for (int i = 0; i < 3; i++) {
		hl_json_object(j);
		hl_json_key(j, "i");
		hl_json_int(j, i);
		hl_json_key(j, "s");
		hl_json_string(j, "x");
		hl_json_object_end(j);
	}
	hl_json_array_end(j);
	CHECK_STR(written(), "[{\"i\":0,\"s\":\"x\"},{\"i\":1,\"s\":\"x\"},{\"i\":2,\"s\":\"x\"}]");
}

static void quotes_backslashes_and_controls_are_escaped(void)
{
	CHECK_STR(quoted("a\"b\\c", 5), "\"a\\\"b\\\\c\"");
	CHECK_STR(quoted("\n\r\t", 3), "\"\\n\\r\\t\"");
	CHECK_STR(quoted("\x01\x1f", 2), "\"\\u0001\\u001f\"");
	CHECK_STR(quoted("a\0b", 3), "\"a\\u0000b\"");
	CHECK_STR(quoted("/", 1), "\"/\"");
	struct hl_json *j = writer();
	hl_json_object(j);
	hl_json_key(j, "k\"\n");
	hl_json_string(j, "v");
	hl_json_object_end(j);
	CHECK_STR(written(), "{\"k\\\"\\n\":\"v\"}");
}

static void valid_utf8_passes_through(void)
{
	const char *s = "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xEF\xBF\xBF \xF4\x8F\xBF\xBF";
	char want[64];
	snprintf(want, sizeof(want), "\"%s\"", s);
	CHECK_STR(quoted(s, strlen(s)), want);
}

#define FFFD "\xEF\xBF\xBD"

static void invalid_utf8_becomes_replacement_characters(void)
{
	/* Each byte that is not part of a valid sequence becomes U+FFFD. */
	CHECK_STR(quoted("a\x80z", 3), "\"a" FFFD "z\"");                  /* lone continuation */
	CHECK_STR(quoted("a\xE2\x82", 3), "\"a" FFFD FFFD "\"");            /* truncated at the end */
	CHECK_STR(quoted("a\xE2\x82\xAC", 3), "\"a" FFFD FFFD "\"");        /* cut by the length */
	CHECK_STR(quoted("a\xE2\x82z", 4), "\"a" FFFD FFFD "z\"");          /* truncated inside */
	CHECK_STR(quoted("\xC0\xAF", 2), "\"" FFFD FFFD "\"");              /* overlong '/' */
	CHECK_STR(quoted("\xE0\x80\xAF", 3), "\"" FFFD FFFD FFFD "\"");     /* overlong, 3 bytes */
	CHECK_STR(quoted("\xED\xA0\x80", 3), "\"" FFFD FFFD FFFD "\"");     /* surrogate U+D800 */
	CHECK_STR(quoted("\xF4\x90\x80\x80", 4), "\"" FFFD FFFD FFFD FFFD "\""); /* > U+10FFFF */
	CHECK_STR(quoted("\xFF", 1), "\"" FFFD "\"");
	CHECK_STR(quoted("\xC3\xA9\x80", 3), "\"\xC3\xA9" FFFD "\"");       /* valid, then stray */
}

static void int64_extremes(void)
{
	struct hl_json *j = writer();
	hl_json_array(j);
	hl_json_int(j, INT64_MIN);
	hl_json_int(j, INT64_MAX);
	hl_json_int(j, 0);
	hl_json_int(j, -1);
	hl_json_array_end(j);
	CHECK_STR(written(), "[-9223372036854775808,9223372036854775807,0,-1]");
}

static void doubles_are_short_and_non_finite_is_null(void)
{
	struct hl_json *j = writer();
	hl_json_array(j);
	hl_json_double(j, 3.25);
	hl_json_double(j, 0.1);
	hl_json_double(j, -2.0);
	hl_json_double(j, NAN);
	hl_json_double(j, INFINITY);
	hl_json_double(j, -INFINITY);
	hl_json_array_end(j);
	CHECK_STR(written(), "[3.25,0.1,-2,null,null,null]");
	/* Whatever form it takes, a double reads back exactly. */
	hl_json_double(writer(), 0.1 + 0.2);
	CHECK(strtod(written(), NULL) == 0.1 + 0.2);
	hl_json_double(writer(), 1e300);
	CHECK(strtod(written(), NULL) == 1e300);
}

static void row_from_sqlite_statement(void)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	CHECK_INT(sqlite3_open(":memory:", &db), SQLITE_OK);
	CHECK_INT(sqlite3_prepare_v2(db,
				     "SELECT NULL AS n, 42 AS i, 2.5 AS r, 'x\"y' AS t,"
				     " json_array(1, 'a') AS json_tags, NULL AS json_none",
				     -1, &st, NULL), SQLITE_OK);
	CHECK_INT(sqlite3_step(st), SQLITE_ROW);
	hl_json_row(writer(), st);
	CHECK_STR(written(), "{\"n\":null,\"i\":42,\"r\":2.5,\"t\":\"x\\\"y\","
			     "\"tags\":[1,\"a\"],\"none\":null}");
	/* Rows inside an array are separated like any value. */
	struct hl_json *j = writer();
	hl_json_array(j);
	hl_json_row(j, st);
	hl_json_row(j, st);
	hl_json_array_end(j);
	CHECK(strstr(written(), "},{\"n\"") != NULL);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* hl_json_rows: every row as an array, the statement reset for the next
 * use; a failing step or a NULL statement is HL_EDB. */
static void rows_of_a_statement_as_an_array(void)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	CHECK_INT(sqlite3_open(":memory:", &db), SQLITE_OK);
	CHECK_INT(sqlite3_prepare_v2(db, "SELECT value AS n FROM json_each(:list)", -1, &st, NULL),
		  SQLITE_OK);
	hl_bind_text(st, ":list", "[1,2,3]");
	CHECK_INT(hl_json_rows(writer(), st), 0);
	CHECK_STR(written(), "[{\"n\":1},{\"n\":2},{\"n\":3}]");
	CHECK_INT(hl_json_rows(writer(), st), 0); /* reset: the same rows again */
	CHECK_STR(written(), "[{\"n\":1},{\"n\":2},{\"n\":3}]");
	hl_bind_text(st, ":list", "[]");
	CHECK_INT(hl_json_rows(writer(), st), 0);
	CHECK_STR(written(), "[]");
	hl_bind_text(st, ":list", "not json");
	CHECK_INT(hl_json_rows(writer(), st), HL_EDB);
	CHECK_INT(hl_json_rows(writer(), NULL), HL_EDB);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* Prepare `sql` on `db` and step it to its first row. */
static sqlite3_stmt *first_row(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	CHECK_INT(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	CHECK_INT(sqlite3_step(st), SQLITE_ROW);
	return st;
}

/* hl_json_row remembers the keys of the last row it wrote: rows of other
 * statements, with other names at the same columns, must get their own. */
static void rows_of_statements_in_turn_keep_their_keys(void)
{
	sqlite3 *db = NULL;
	CHECK_INT(sqlite3_open(":memory:", &db), SQLITE_OK);
	sqlite3_stmt *a = first_row(db, "SELECT 1 AS id, 'x' AS name, 7 AS _cursor");
	sqlite3_stmt *b = first_row(db, "SELECT 2 AS id, '[3]' AS json_name, 'y' AS \"q\"\"uote\"");
	sqlite3_stmt *c = first_row(db, "SELECT 4 AS _id, 5 AS id");
	struct hl_json *j = writer();
	hl_json_array(j);
	hl_json_row(j, a);
	hl_json_row(j, b);
	hl_json_row(j, a);
	hl_json_row(j, c);
	hl_json_row(j, b);
	hl_json_array_end(j);
	CHECK_STR(written(), "[{\"id\":1,\"name\":\"x\"},{\"id\":2,\"name\":[3],\"q\\\"uote\":\"y\"},"
			     "{\"id\":1,\"name\":\"x\"},{\"id\":5},"
			     "{\"id\":2,\"name\":[3],\"q\\\"uote\":\"y\"}]");
	sqlite3_finalize(a);
	sqlite3_finalize(b);
	sqlite3_finalize(c);
	sqlite3_close(db);
}

/* Build "SELECT 0 AS "names[0]", 1 AS ..." and the object a row of it
 * makes, for `n` columns (c7 and so on past the names given). */
static void columns(const char *const *names, int given, int n, struct buf *sql, struct buf *want)
{
	buf_reset(sql);
	buf_reset(want);
	buf_puts(sql, "SELECT ");
	buf_puts(want, "{");
	for (int i = 0; i < n; i++) {
		char own[16];
		const char *name = names && i < given ? names[i] : own;
		snprintf(own, sizeof(own), "c%d", i);
		buf_printf(sql, "%s%d AS \"", i ? ", " : "", i);
		buf_puts(want, i ? ",\"" : "\"");
		for (const char *p = name; *p; p++) {
			buf_puts(sql, *p == '"' ? "\"\"" : (char[]){ *p, 0 });
			buf_puts(want, *p == '"' ? "\\\"" : (char[]){ *p, 0 });
		}
		buf_printf(sql, "\"");
		buf_printf(want, "\":%d", i);
	}
	buf_puts(want, "}");
}

/* Write three rows of `sql`, each as `want`; returns how many keys the
 * writer then remembers. */
static int rows_are(sqlite3 *db, const char *sql, const char *want)
{
	sqlite3_stmt *st = first_row(db, sql);
	for (int round = 0; round < 3; round++) {
		hl_json_row(writer(), st);
		CHECK_STR(written(), want);
	}
	sqlite3_finalize(st);
	return w.row_keys;
}

/* Keys at the edges of what is remembered, written right all the same:
 * names of 39 bytes fit, 40 do not; a quoted key ("name":) of 48 bytes
 * fits, 49 do not; 24 columns are remembered, the rest quoted each time;
 * past a name that does not fit, nothing more is remembered. */
static void long_names_and_many_columns(void)
{
	static const char n39[] = "c_name_of_exactly_thirty_nine_bytes_xyz";
	static const char n40[] = "c_name_of_exactly_forty_bytes_long_wxyz0";
	/* 39 bytes with 6 and 7 quotes: "name": is 39 + 3 + 6 = 48 and 49 bytes. */
	static const char q48[] = "q\"q\"q\"q\"q\"q\"xxxxxxxxxxxxxxxxxxxxxxxxxxx";
	static const char q49[] = "q\"q\"q\"q\"q\"q\"q\"xxxxxxxxxxxxxxxxxxxxxxxxx";
	const char *const by_name[] = { "a", n39, "b", n40, "c" };
	const char *const by_quotes[] = { q48, q49, "z" };
	const char *const mixed[] = { "a", "b", "a_name_much_longer_than_the_forty_bytes_kept", "d" };
	sqlite3 *db = NULL;
	struct buf sql = BUF_INIT, want = BUF_INIT;
	CHECK_INT(sizeof(n39) - 1, 39);
	CHECK_INT(sizeof(n40) - 1, 40);
	CHECK_INT(sizeof(q48) - 1, 39);
	CHECK_INT(sizeof(q49) - 1, 39);
	CHECK_INT(sqlite3_open(":memory:", &db), SQLITE_OK);
	columns(by_name, 5, 5, &sql, &want);
	CHECK_INT(rows_are(db, sql.data, want.data), 3);
	columns(by_quotes, 3, 3, &sql, &want);
	CHECK_INT(rows_are(db, sql.data, want.data), 1);
	columns(NULL, 0, 40, &sql, &want);
	CHECK_INT(rows_are(db, sql.data, want.data), ROW_KEYS);
	columns(mixed, 4, 30, &sql, &want);
	CHECK_INT(rows_are(db, sql.data, want.data), 2);
	sqlite3_close(db);
	buf_release(&sql);
	buf_release(&want);
}

/* ---- the reader ------------------------------------------------------------ */

static struct arena arena;

static int parse(struct json_doc *d, const char *src)
{
	size_t err_at;
	return json_parse(d, &arena, src, strlen(src), 1000, &err_at);
}

static void valid_document_lookups(void)
{
	struct json_doc d;
	CHECK_INT(parse(&d, " {\"name\": \"Ann\", \"age\": 41, \"vip\": true,"
			    " \"tags\": [\"a\", \"b\", {\"k\": null}],"
			    " \"addr\": {\"city\": \"Oslo\", \"zip\": {\"code\": -0.5e+2}}} \n"), 0);
	CHECK_INT(json_type(&d, 0), HL_JSON_OBJECT);
	CHECK_INT(json_count(&d, 0), 5);
	CHECK_STR(json_string(&d, json_find(&d, 0, "name"), &arena), "Ann");
	int64_t age = 0;
	CHECK_INT(json_int(&d, json_find(&d, 0, "age"), &age), 0);
	CHECK_INT(age, 41);
	int vip = -1;
	CHECK_INT(json_bool(&d, json_find(&d, 0, "vip"), &vip), 0);
	CHECK_INT(vip, 1);
	int tags = json_find(&d, 0, "tags");
	CHECK_INT(json_type(&d, tags), HL_JSON_ARRAY);
	CHECK_INT(json_count(&d, tags), 3);
	CHECK_STR(json_string(&d, json_index(&d, tags, 1), &arena), "b");
	CHECK_INT(json_type(&d, json_find(&d, json_index(&d, tags, 2), "k")), HL_JSON_NULL);
	CHECK_INT(json_index(&d, tags, 3), -1);
	CHECK_INT(json_index(&d, tags, -1), -1);
	int addr = json_find(&d, 0, "addr");
	CHECK_STR(json_string(&d, json_find(&d, addr, "city"), &arena), "Oslo");
	int zip = json_find(&d, json_find(&d, addr, "zip"), "code");
	CHECK_INT(json_type(&d, zip), HL_JSON_NUMBER);
	CHECK_INT(json_find(&d, 0, "city"), -1);   /* only direct members */
	CHECK_INT(json_find(&d, 0, "missing"), -1);
	CHECK_INT(json_find(&d, tags, "a"), -1);   /* not an object */
	CHECK(json_string(&d, json_find(&d, 0, "age"), &arena) == NULL);
	CHECK_INT(json_type(&d, -1), HL_JSON_NONE);
	CHECK_INT(json_type(&d, d.ntok), HL_JSON_NONE);
	arena_reset(&arena);
}

static void decimals_are_read_exactly_in_their_units(void)
{
	struct json_doc d;
	CHECK_INT(parse(&d, "[1.5, 2, 0.125, -0.5, 1.2345, 1e3, 9223372036854775.807, \"1\", 0.10,"
			    " 9223372036854775.808, 1.0]"), 0);
	static const int64_t want[] = { 1500, 2000, 125, -500, -1, -1, INT64_MAX, -1, 100, -1, 1000 };
	for (int i = 0; i < (int)(sizeof(want) / sizeof(want[0])); i++) {
		int64_t v = 0;
		int rc = json_decimal(&d, json_index(&d, 0, i), 3, &v);
		if (want[i] == -1 && i != 3) {
			CHECK_INT(rc, HL_EINVAL); /* too many places, an exponent, text, too big */
		} else {
			CHECK_INT(rc, 0);
			CHECK(v == want[i]);
		}
	}
	int64_t v = 0;
	CHECK_INT(json_decimal(&d, json_index(&d, 0, 1), 0, &v), 0);
	CHECK(v == 2);
	CHECK_INT(json_decimal(&d, json_index(&d, 0, 0), 0, &v), HL_EINVAL);
	CHECK_INT(json_decimal(&d, json_index(&d, 0, 0), 19, &v), HL_EINVAL);
	arena_reset(&arena);
}

static void a_value_after_a_nested_one_is_found(void)
{
	struct json_doc d;
	CHECK_INT(parse(&d, "[{\"a\":[1,[2,3]],\"b\":{\"c\":{}}},\"last\",[false]]"), 0);
	CHECK_INT(json_count(&d, 0), 3);
	CHECK_STR(json_string(&d, json_index(&d, 0, 1), &arena), "last");
	int f = -1;
	CHECK_INT(json_bool(&d, json_index(&d, json_index(&d, 0, 2), 0), &f), 0);
	CHECK_INT(f, 0);
	CHECK_INT(json_type(&d, json_find(&d, json_index(&d, 0, 0), "b")), HL_JSON_OBJECT);
	CHECK_INT(json_count(&d, json_find(&d, json_find(&d, json_index(&d, 0, 0), "b"), "c")), 0);
	arena_reset(&arena);
}

static void escaped_strings_are_decoded(void)
{
	struct json_doc d;
	CHECK_INT(parse(&d, "[\"caf\\u00e9\", \"\\ud83d\\ude00\", \"a\\\"b\\\\c\\/d\\n\\t\\r\\b\\f\","
			    " \"\\u20AC\", \"\\u00ff\\u07FF\\uFFFF\", \"raw \xC3\xA9\"]"), 0);
	CHECK_STR(json_string(&d, json_index(&d, 0, 0), &arena), "caf\xC3\xA9");
	CHECK_STR(json_string(&d, json_index(&d, 0, 1), &arena), "\xF0\x9F\x98\x80");
	CHECK_STR(json_string(&d, json_index(&d, 0, 2), &arena), "a\"b\\c/d\n\t\r\b\f");
	CHECK_STR(json_string(&d, json_index(&d, 0, 3), &arena), "\xE2\x82\xAC");
	CHECK_STR(json_string(&d, json_index(&d, 0, 4), &arena), "\xC3\xBF\xDF\xBF\xEF\xBF\xBF");
	CHECK_STR(json_string(&d, json_index(&d, 0, 5), &arena), "raw \xC3\xA9");
	arena_reset(&arena);
}

static void escaped_key_is_found_by_plain_name(void)
{
	struct json_doc d;
	CHECK_INT(parse(&d, "{\"k\\u0065y\": 1, \"a\\\"b\": 2, \"caf\\u00e9\": 3}"), 0);
	int64_t v = 0;
	CHECK_INT(json_int(&d, json_find(&d, 0, "key"), &v), 0);
	CHECK_INT(v, 1);
	CHECK_INT(json_int(&d, json_find(&d, 0, "a\"b"), &v), 0);
	CHECK_INT(v, 2);
	CHECK_INT(json_int(&d, json_find(&d, 0, "caf\xC3\xA9"), &v), 0);
	CHECK_INT(v, 3);
	CHECK_INT(json_find(&d, 0, "k\\u0065y"), -1);
	arena_reset(&arena);
}

static void a_key_named_twice_is_refused(void)
{
	struct json_doc d;
	size_t err_at = 0;
	const char *twice = "{\"name\": \"a\", \"email\": 1, \"name\": \"b\"}";
	CHECK_INT(json_parse(&d, &arena, twice, strlen(twice), 1000, &err_at), HL_EINVAL);
	CHECK_INT(err_at, 27); /* the second "name" */
	CHECK_INT(parse(&d, "{\"k\\u0065y\": 1, \"key\": 2}"), HL_EINVAL); /* the same key, escaped */
	CHECK_INT(parse(&d, "[{\"a\": {\"b\": 1, \"c\": {\"b\": 2, \"b\": 3}}}]"), HL_EINVAL);
	/* The same key in two objects, and keys that only start alike, are fine. */
	CHECK_INT(parse(&d, "{\"a\": {\"b\": 1}, \"c\": {\"b\": 2}, \"ab\": 3, \"a b\": 4}"), 0);
	/* A wide object is checked in n log n: 50,000 distinct keys. */
	struct buf wide = BUF_INIT;
	buf_append(&wide, "{", 1);
	for (int i = 0; i < 50000; i++)
		buf_printf(&wide, "%s\"k%d\": %d", i ? "," : "", i, i);
	buf_append(&wide, "}", 1);
	CHECK_INT(json_parse(&d, &arena, wide.data, wide.len, 200000, &err_at), 0);
	wide.data[wide.len - 1] = ','; /* the closing brace */
	buf_printf(&wide, "\"k49999\": 0}");
	CHECK_INT(json_parse(&d, &arena, wide.data, wide.len, 200000, &err_at), HL_EINVAL);
	buf_release(&wide);
	arena_reset(&arena);
}

static void int_range_and_type_errors(void)
{
	struct json_doc d;
	CHECK_INT(parse(&d, "[1.5, 9223372036854775808, -9223372036854775809, 9223372036854775807,"
			    " -9223372036854775808, 1e3, \"7\", true, null, 0, -0]"), 0);
	int64_t v = 99;
	CHECK_INT(json_int(&d, json_index(&d, 0, 0), &v), HL_EINVAL);
	CHECK_INT(json_int(&d, json_index(&d, 0, 1), &v), HL_EINVAL);
	CHECK_INT(json_int(&d, json_index(&d, 0, 2), &v), HL_EINVAL);
	CHECK_INT(v, 99); /* untouched on failure */
	CHECK_INT(json_int(&d, json_index(&d, 0, 3), &v), 0);
	CHECK_INT(v, INT64_MAX);
	CHECK_INT(json_int(&d, json_index(&d, 0, 4), &v), 0);
	CHECK_INT(v, INT64_MIN);
	CHECK_INT(json_int(&d, json_index(&d, 0, 5), &v), HL_EINVAL);
	CHECK_INT(json_int(&d, json_index(&d, 0, 6), &v), HL_EINVAL);
	CHECK_INT(json_int(&d, json_index(&d, 0, 7), &v), HL_EINVAL);
	CHECK_INT(json_int(&d, json_index(&d, 0, 8), &v), HL_EINVAL);
	CHECK_INT(json_int(&d, json_index(&d, 0, 9), &v), 0);
	CHECK_INT(v, 0);
	CHECK_INT(json_int(&d, json_index(&d, 0, 10), &v), 0);
	CHECK_INT(v, 0);
	CHECK_INT(json_int(&d, -1, &v), HL_EINVAL);
	arena_reset(&arena);
}

static void bool_of_a_non_bool_fails(void)
{
	struct json_doc d;
	CHECK_INT(parse(&d, "[true, false, 1, \"true\", null, {}]"), 0);
	int b = -1;
	CHECK_INT(json_bool(&d, json_index(&d, 0, 0), &b), 0);
	CHECK_INT(b, 1);
	CHECK_INT(json_bool(&d, json_index(&d, 0, 1), &b), 0);
	CHECK_INT(b, 0);
	for (int i = 2; i < 6; i++)
		CHECK_INT(json_bool(&d, json_index(&d, 0, i), &b), HL_EINVAL);
	CHECK_INT(json_bool(&d, 99, &b), HL_EINVAL);
	arena_reset(&arena);
}

/* RFC 8259 lets any value be the whole document. */
static void top_level_scalars_are_documents(void)
{
	struct json_doc d;
	int64_t v = 0;
	int b = -1;
	CHECK_INT(parse(&d, "\"abc\""), 0);
	CHECK_STR(json_string(&d, 0, &arena), "abc");
	CHECK_INT(parse(&d, " \"x\\u00e9\" \n"), 0);
	CHECK_STR(json_string(&d, 0, &arena), "x\xC3\xA9");
	CHECK_INT(parse(&d, "42"), 0);
	CHECK_INT(json_int(&d, 0, &v), 0);
	CHECK_INT(v, 42);
	CHECK_INT(parse(&d, " -7 "), 0);
	CHECK_INT(json_int(&d, 0, &v), 0);
	CHECK_INT(v, -7);
	CHECK_INT(parse(&d, "true"), 0);
	CHECK_INT(json_bool(&d, 0, &b), 0);
	CHECK_INT(b, 1);
	CHECK_INT(parse(&d, "null"), 0);
	CHECK_INT(json_type(&d, 0), HL_JSON_NULL);
	arena_reset(&arena);
}

static void too_many_tokens_is_too_big(void)
{
	struct json_doc d;
	size_t err_at;
	const char *src = "[1,2,3]";
	CHECK_INT(json_parse(&d, &arena, src, strlen(src), 3, &err_at), HL_ETOOBIG);
	CHECK_INT(json_parse(&d, &arena, src, strlen(src), 4, &err_at), 0);
	arena_reset(&arena);
}

static void error_offset_points_at_the_problem(void)
{
	struct json_doc d;
	size_t err_at = 0;
	const char *src = "[1, 01]";
	CHECK_INT(json_parse(&d, &arena, src, strlen(src), 100, &err_at), HL_EINVAL);
	CHECK_INT(err_at, 4);
	src = "{\"a\":\"x\x01\"}";
	CHECK_INT(json_parse(&d, &arena, src, strlen(src), 100, &err_at), HL_EINVAL);
	CHECK_INT(err_at, 7);
	arena_reset(&arena);
}

/* The documents a strict JSON parser must refuse (RFC 8259). */
static const char *const invalid[] = {
	"{\"a\":1,}",
	"[1,]",
	"{\"a\"}",
	"{\"a\" 1}",
	"01",
	"1.",
	".5",
	"-",
	"tru",
	"nul",
	"\"\\x\"",
	"\"a\tb\"",
	"[\"a\x01\"]",
	"\"abc",
	"{\"a\":1} {\"b\":2}",
	"[1 2]",
	"{1:2}",
	"",
	" \t\r\n ",
	/* the same grammar errors where jsmn cannot blame the end of input */
	"[01]",
	"[1.]",
	"[.5]",
	"[-]",
	"[tru]",
	"[nul]",
	"[1e]",
	"[+1]",
	"[truex]",
	"{\"a\":\"\\x\"}",
	"{\"a\":[1 2]}",
	"[[1,],2]",
	"{\"a\":1 \"b\":2}",
	"{\"a\":1,,\"b\":2}",
	"[,1]",
	"{,\"a\":1}",
	"[1,,2]",
	"{\"a\"::1}",
	"[1:2]",
	"[\"a\" \"b\"]",
	"[1] 2",
	"[1]]",
	"{\"a\":1}}",
	"[}",
	"\"\\u12\"",
	"\"\\ud83d\\u\"",
	"[\"a\":1]",
	",[1]",
	":[1]",
	"[,]",
	"{:}",
	"[{} {}]",
	"[\"a\":1]",
	"\"nul\\u0000byte\"",
};

/* Text that is not UTF-8, raw or escaped, in a value or a key, and the
 * byte the error names. */
static const struct {
	const char *src;
	size_t at;
} not_utf8[] = {
	{ "{\"n\":\"\xff\xfe\"}", 6 },              /* bytes that are never UTF-8 */
	{ "{\"n\":\"ab\xC0\xAF\"}", 8 },            /* overlong '/' */
	{ "{\"n\":\"\xE0\x80\xAF\"}", 6 },          /* overlong, 3 bytes */
	{ "{\"n\":\"\xF0\x82\x82\xAC\"}", 6 },      /* overlong, 4 bytes */
	{ "{\"n\":\"\xED\xA0\x80\"}", 6 },          /* U+D800 as UTF-8 */
	{ "{\"n\":\"\xF4\x90\x80\x80\"}", 6 },      /* past U+10FFFF */
	{ "{\"n\":\"x\xE2\x82\"}", 7 },             /* cut short */
	{ "{\"n\":\"\x80\"}", 6 },                  /* a lone continuation */
	{ "{\"\xff\":1}", 2 },                       /* in a key */
	{ "[\"ok\", \"\xC3\"]", 8 },                 /* cut short at the end */
	{ "{\"n\":\"a\\ud800\"}", 7 },              /* a lone high surrogate */
	{ "{\"n\":\"a\\udc00b\"}", 7 },             /* a lone low surrogate */
	{ "{\"n\":\"\\ud800\\u0041\"}", 6 },        /* high, then not low */
	{ "{\"n\":\"\\udbff\\udbff\"}", 6 },        /* high, then high */
	{ "{\"n\":\"ab\\u0000cd\"}", 8 },           /* NUL would cut it short */
};

static void text_that_is_not_utf8_is_refused(void)
{
	for (size_t i = 0; i < sizeof(not_utf8) / sizeof(not_utf8[0]); i++) {
		struct json_doc d;
		size_t err_at = 12345;
		const char *src = not_utf8[i].src;
		int rc = json_parse(&d, &arena, src, strlen(src), 100, &err_at);
		if (rc != HL_EINVAL || err_at != not_utf8[i].at)
			printf("not_utf8[%zu]: rc %d at %zu\n", i, rc, err_at);
		CHECK_INT(rc, HL_EINVAL);
		CHECK_INT(err_at, not_utf8[i].at);
		arena_reset(&arena);
	}
	/* The largest code points of each length, and a pair, are fine. */
	struct json_doc d;
	CHECK_INT(parse(&d, "[\"\x7F\xDF\xBF\xEF\xBF\xBF\xF4\x8F\xBF\xBF\", \"\\udbff\\udfff\"]"), 0);
	CHECK_STR(json_string(&d, json_index(&d, 0, 1), &arena), "\xF4\x8F\xBF\xBF");
	arena_reset(&arena);
}

static void invalid_documents_are_rejected(void)
{
	for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
		struct json_doc d;
		int rc = parse(&d, invalid[i]);
		if (rc != HL_EINVAL)
			printf("json_parse accepted or misjudged '%s': rc %d\n", invalid[i], rc);
		CHECK_INT(rc, HL_EINVAL);
		arena_reset(&arena);
	}
}

static void nesting_is_limited_to_64(void)
{
	char doc[300];
	struct json_doc d;
	for (int depth = 64; depth <= 65; depth++) {
		memset(doc, '[', (size_t)depth);
		memset(doc + depth, ']', (size_t)depth);
		doc[2 * depth] = '\0';
		CHECK_INT(parse(&d, doc), depth == 64 ? 0 : HL_EINVAL);
		arena_reset(&arena);
	}
	/* Brackets inside strings do not count. */
	CHECK_INT(parse(&d, "[\"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"]"), 0);
	arena_reset(&arena);
}

static void array_elements_in_any_order(void)
{
	struct json_doc d;
	CHECK_INT(parse(&d, "[10, [20, 21], {\"a\": 30}, 40]"), 0);
	int64_t v = 0;
	CHECK_INT(json_int(&d, json_index(&d, 0, 0), &v), 0);
	CHECK_INT(v, 10);
	CHECK_INT(json_int(&d, json_index(&d, 0, 3), &v), 0);
	CHECK_INT(v, 40);
	CHECK_INT(json_type(&d, json_index(&d, 0, 2)), HL_JSON_OBJECT);
	CHECK_INT(json_type(&d, json_index(&d, 0, 1)), HL_JSON_ARRAY); /* backwards */
	CHECK_INT(json_int(&d, json_index(&d, json_index(&d, 0, 1), 1), &v), 0);
	CHECK_INT(v, 21);
	CHECK_INT(json_int(&d, json_index(&d, 0, 0), &v), 0);
	CHECK_INT(v, 10);
	CHECK_INT(json_index(&d, 0, 4), -1);
	arena_reset(&arena);
}

static void cleanup(void)
{
	buf_release(&out);
	arena_release(&arena);
}

TEST_MAIN(commas_in_nested_objects_and_arrays,
	  nesting_is_limited_to_64,
	  array_elements_in_any_order,
	  array_of_objects_separates_each,
	  quotes_backslashes_and_controls_are_escaped,
	  valid_utf8_passes_through,
	  invalid_utf8_becomes_replacement_characters,
	  int64_extremes,
	  doubles_are_short_and_non_finite_is_null,
	  row_from_sqlite_statement,
	  rows_of_a_statement_as_an_array,
	  rows_of_statements_in_turn_keep_their_keys,
	  long_names_and_many_columns,
	  valid_document_lookups,
	  decimals_are_read_exactly_in_their_units,
	  a_value_after_a_nested_one_is_found,
	  escaped_strings_are_decoded,
	  escaped_key_is_found_by_plain_name,
	  a_key_named_twice_is_refused,
	  int_range_and_type_errors,
	  bool_of_a_non_bool_fails,
	  top_level_scalars_are_documents,
	  too_many_tokens_is_too_big,
	  error_offset_points_at_the_problem,
	  invalid_documents_are_rejected,
	  text_that_is_not_utf8_is_refused,
	  cleanup)

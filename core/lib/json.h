/* SPDX-License-Identifier: MIT */
/*
 * json.h: the core's JSON reader and writer.
 *
 * The writer (json_write.c) builds JSON straight into a buffer: commas,
 * escaping and UTF-8 repair are its job, so a caller cannot produce invalid
 * JSON by calling it in document order. The public hl_json_* functions are
 * this writer.
 *
 * The reader (json_read.c) checks a whole document with jsmn in strict mode
 * plus the checks jsmn leaves out (number and literal grammar, string
 * escapes, control characters, UTF-8 in strings and keys, one root value) and then answers lookups by
 * token index without copying anything but the strings asked for.
 */
#ifndef HL_JSON_H
#define HL_JSON_H

#include <hyperlevel/hyperlevel.h>

#include "lib/arena.h"
#include "lib/buf.h"

#include <stddef.h>
#include <stdint.h>

/* The key hl_json_row wrote for one column of the last row: a row of the
 * same statement finds its column's name here and copies the key as it
 * was quoted instead of quoting it again. */
enum row_key_kind { ROW_KEY_PLAIN, ROW_KEY_JSON, ROW_KEY_HIDDEN };
struct row_key {
	char name[40];   /* the column's name, as SQLite gives it */
	char quoted[48]; /* what the answer gets: "name": */
	unsigned char len, kind;
};
#define ROW_KEYS 24 /* columns remembered; later ones are quoted each time */

struct hl_json {
	struct buf *out;
	uint64_t need_comma; /* bit d: the next value at depth d needs a comma */
	int depth;
	int after_key;
	int row_keys;    /* how many of row_key[] are filled */
	struct row_key row_key[ROW_KEYS];
};

void json_writer_init(struct hl_json *j, struct buf *out);
/* Append `s` as a JSON string literal, quotes included. */
void json_quote(struct buf *out, const char *s, size_t n);

struct json_doc {
	const char *src;
	struct json_tok *tok;
	int ntok;
	/* The last json_index answer, so a loop over an array costs one step
	 * per element instead of a walk from the start each time. */
	int last_arr, last_idx, last_tok;
};

/* Parse and check `src`. Returns 0, HL_EINVAL with *err_at set to the byte
 * offset of the first problem (nesting deeper than 64 included), or HL_ETOOBIG beyond `max_tokens`. Tokens
 * are allocated from `a`. */
int json_parse(struct json_doc *d, struct arena *a, const char *src, size_t len,
	       int max_tokens, size_t *err_at);
enum hl_json_type json_type(const struct json_doc *d, int tok);
int json_find(const struct json_doc *d, int obj, const char *key);
int json_count(const struct json_doc *d, int tok);
/* The token of the key after `key` in the object at `obj` (the first when
 * `key` is negative), or -1 after the last; its value is the next token. */
int json_next_key(const struct json_doc *d, int obj, int key);
int json_index(struct json_doc *d, int arr, int i);
/* The unescaped string at `tok`, allocated from `a`; NULL if not a string. */
char *json_string(const struct json_doc *d, int tok, struct arena *a);
int json_int(const struct json_doc *d, int tok, int64_t *out);
/* A number with at most `places` (0 to 18) digits after its point and no
 * exponent, as an integer in units of 10^-places: "1.5" at 3 places is
 * 1500. Exact: no floating point on the way. HL_EINVAL for anything else,
 * or past int64. */
int json_decimal(const struct json_doc *d, int tok, int places, int64_t *out);
int json_bool(const struct json_doc *d, int tok, int *out);

#endif

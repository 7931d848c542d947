/* SPDX-License-Identifier: MIT */
/*
 * csv.c: the RFC 4180 reader behind hl_csv_* (imports).
 *
 * It walks the caller's bytes without copying them. A record's fields are
 * unescaped into one buffer, each followed by a NUL, with an array of
 * their start offsets; both are kept for the next record, so a file costs
 * allocations only while its largest record grows the buffer.
 *
 * Lines: a line break is LF, CRLF or a lone CR (old Mac files). Lines are
 * counted as an editor shows them, breaks inside quoted fields included
 * (those are kept in the field as they are), so a record's line is the
 * one it starts on and hl_csv_line is always a real line number.
 *
 * Leniency, as spreadsheets write files: a quote inside an unquoted field
 * is kept as text; spaces are data. A malformed record (text after a
 * closing quote, a NUL byte, invalid UTF-8, too many fields, too big a
 * field) is still read to its end, so that a well-formed quoted field
 * further on cannot be mistaken for records, then refused; the reader goes
 * on at the line after it. Only a quote left open at the end swallows the
 * rest of the input: there is no telling where it should have closed.
 *
 * A field of the form '=..., ''+..., (quotes, then what a spreadsheet
 * takes for a formula) loses one quote: the guard csv_write.c adds, so
 * an export imports back as it was stored.
 */
#include <hyperlevel/hyperlevel.h>

#include "lib/csv.h"
#include "lib/utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* What makes text a formula, first after any quotes. */
static const unsigned char formula[256] = {
	['='] = 1, ['+'] = 1, ['-'] = 1, ['@'] = 1, ['\t'] = 1, ['\r'] = 1,
};

int csv_formula(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && s[i] == '\'')
		i++;
	return i < n && formula[(unsigned char)s[i]];
}

#define CSV_MAX_FIELDS 1000
#define CSV_MAX_FIELD (1024 * 1024)

struct hl_csv {
	const unsigned char *data;
	size_t len;
	size_t pos;         /* the next byte to read */
	long line;          /* the line `pos` is on */
	long record_line;   /* the line the current record began on */
	const char *error;  /* why the current record is refused, or NULL */
	int nomem;          /* the buffer could not grow: this record is lost */
	int n;              /* fields read in the current record */
	char *bytes;        /* the fields' unescaped bytes, each NUL-terminated */
	size_t used, cap;
	/* start[i]: where field i begins in `bytes`; start[n] is the field
	 * being read, so start[i + 1] - 1 is where field i ends. */
	size_t start[CSV_MAX_FIELDS + 1];
};

/* Bytes that end a run of text outside quotes (a quote there is text) and
 * inside quotes. */
static const unsigned char stop_plain[256] = { [0] = 1, ['\n'] = 1, ['\r'] = 1, [','] = 1 };
static const unsigned char stop_quoted[256] = { [0] = 1, ['\n'] = 1, ['\r'] = 1, ['"'] = 1 };

#define ONES 0x0101010101010101ull

/* High bit set in each byte of x that is zero. A borrow can also flag a
 * byte above a zero one, never one below: the lowest flag is right. */
static inline uint64_t zero_bytes(uint64_t x)
{
	return (x - ONES) & ~x & (ONES << 7);
}

/* Step p over bytes not in `stop`: NUL, LF, CR and `sep` (',' outside
 * quotes, '"' inside). Eight bytes at a time on little-endian machines,
 * which is most of the reader's time on long fields. */
static inline const unsigned char *scan(const unsigned char *stop, unsigned char sep,
					const unsigned char *p, const unsigned char *end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (; end - p >= 8; p += 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		uint64_t m = zero_bytes(w) | zero_bytes(w ^ (ONES * '\n')) |
			     zero_bytes(w ^ (ONES * '\r')) | zero_bytes(w ^ (ONES * sep));
		if (m)
			return p + (__builtin_ctzll(m) >> 3);
	}
#else
	(void)sep;
#endif
	while (p < end && !stop[*p])
		p++;
	return p;
}

/* Keep the first reason: it is the cause of the others. */
static void refuse(struct hl_csv *c, const char *why)
{
	if (!c->error)
		c->error = why;
}

static int grow(struct hl_csv *c, size_t need)
{
	size_t cap = c->cap;
	while (cap < need)
		cap *= 2;
	char *p = realloc(c->bytes, cap);
	if (!p) {
		c->nomem = 1;
		return -1;
	}
	c->bytes = p;
	c->cap = cap;
	return 0;
}

/* Append n bytes to the field being read. Past CSV_MAX_FIELD the field is
 * emptied and the record marked, so memory stays bounded while the reader
 * walks on to the record's end. */
static void put(struct hl_csv *c, const unsigned char *s, size_t n)
{
	if (c->used - c->start[c->n] + n > CSV_MAX_FIELD) {
		refuse(c, "a field is longer than 1 MB");
		c->used = c->start[c->n];
		return;
	}
	if (c->used + n + 1 > c->cap && grow(c, c->used + n + 1))
		return;
	memcpy(c->bytes + c->used, s, n);
	c->used += n;
}

/* Close the field being read; past CSV_MAX_FIELDS it is dropped. */
static void field_end(struct hl_csv *c)
{
	if (c->used + 1 > c->cap && grow(c, c->used + 1))
		return;
	c->bytes[c->used++] = '\0';
	if (c->n == CSV_MAX_FIELDS) {
		refuse(c, "a record has more than 1000 fields");
		c->used = c->start[c->n];
		return;
	}
	c->start[++c->n] = c->used;
}

/* Step over the line break at p (CR, LF or CRLF), counting it. */
static const unsigned char *skip_break(struct hl_csv *c, const unsigned char *p,
				       const unsigned char *end)
{
	if (*p++ == '\r' && p < end && *p == '\n')
		p++;
	c->line++;
	return p;
}

static const char nul_byte[] = "a NUL byte (is the file UTF-16? save it as CSV UTF-8)";

/* Read text up to a comma, a line break or the end; where it stopped. */
static const unsigned char *plain(struct hl_csv *c, const unsigned char *p,
				  const unsigned char *end)
{
	for (;;) {
		const unsigned char *run = p;
		p = scan(stop_plain, ',', p, end);
		put(c, run, (size_t)(p - run));
		if (p == end || *p)
			return p;
		refuse(c, nul_byte);
		p++;
	}
}

/* Read a quoted field from just after its opening quote; where it stopped
 * after the closing quote, or NULL when the quote never closes. */
static const unsigned char *quoted(struct hl_csv *c, const unsigned char *p,
				   const unsigned char *end)
{
	for (;;) {
		const unsigned char *run = p;
		p = scan(stop_quoted, '"', p, end);
		if (p == end) {
			put(c, run, (size_t)(p - run));
			return NULL;
		}
		if (*p == '"') {
			int doubled = p + 1 < end && p[1] == '"';
			put(c, run, (size_t)(p - run) + (size_t)doubled); /* one of two */
			p += 1 + doubled;
			if (!doubled)
				return p;
		} else if (*p == '\0') {
			put(c, run, (size_t)(p - run));
			refuse(c, nul_byte);
			p++;
		} else {
			p = skip_break(c, p, end); /* kept in the field */
			put(c, run, (size_t)(p - run));
		}
	}
}

/* Read the record at c->pos into the fields, leaving c->pos after it. */
static void read_record(struct hl_csv *c)
{
	const unsigned char *p = c->data + c->pos, *end = c->data + c->len;
	for (;;) {
		if (p < end && *p == '"') {
			p = quoted(c, p + 1, end);
			if (!p) {
				c->error = "a quote is never closed (the rest of the input is skipped)";
				p = end;
			} else if (p < end && !stop_plain[*p]) {
				/* Read on as text so the record ends where it should. */
				refuse(c, "text after a closing quote");
			}
		}
		p = plain(c, p, end);
		field_end(c);
		if (p == end)
			break;
		if (*p == ',') {
			p++;
			continue;
		}
		p = skip_break(c, p, end);
		break;
	}
	c->pos = (size_t)(p - c->data);
}

/* The line of byte `at`, counting as the reader does (CRLF is one). */
static long line_of(const char *data, size_t at)
{
	long line = 1;
	for (size_t i = 0; i < at; i++)
		if (data[i] == '\n' || (data[i] == '\r' && (i + 1 >= at || data[i + 1] != '\n')))
			line++;
	return line;
}

HL_API const char *hl_csv_check(const char *data, size_t len, long *line)
{
	size_t bad = utf8_check(data, len);
	const char *nul = memchr(data, '\0', bad);
	*line = 0;
	if (len >= 2 && (!memcmp(data, "\xFF\xFE", 2) || !memcmp(data, "\xFE\xFF", 2)))
		return "the file is UTF-16 (Excel's \"Unicode Text\"): save it as \"CSV UTF-8\""
		       " and upload it again";
	if (nul)
		bad = (size_t)(nul - data);
	if (bad == len)
		return NULL;
	*line = line_of(data, bad);
	return nul ? "the file holds NUL bytes, as UTF-16 files do: save it as \"CSV UTF-8\""
		     " and upload it again"
		   : "the file is not UTF-8: it looks like Latin-1 or Windows-1252, which"
		     " Excel's plain \"CSV\" format writes; save it as \"CSV UTF-8\" and upload"
		     " it again";
}

HL_API struct hl_csv *hl_csv_open(const char *data, size_t len, size_t offset, long line)
{
	struct hl_csv *c = malloc(sizeof(*c));
	if (!c)
		return NULL;
	memset(c, 0, offsetof(struct hl_csv, start));
	c->cap = 4096;
	if (!(c->bytes = malloc(c->cap))) {
		free(c);
		return NULL;
	}
	c->data = (const unsigned char *)(data ? data : "");
	c->len = data ? len : 0;
	c->pos = offset < c->len ? offset : c->len;
	c->line = line > 0 ? line : 1;
	c->record_line = c->line;
	c->start[0] = 0;
	if (c->pos == 0 && c->len >= 3 && !memcmp(c->data, "\xEF\xBB\xBF", 3))
		c->pos = 3; /* the byte order mark some editors write first */
	return c;
}

HL_API void hl_csv_close(struct hl_csv *c)
{
	if (!c)
		return;
	free(c->bytes);
	free(c);
}

HL_API int hl_csv_next(struct hl_csv *c)
{
	c->n = 0;
	c->used = 0;
	c->error = NULL;
	c->nomem = 0;
	while (c->pos < c->len && (c->data[c->pos] == '\n' || c->data[c->pos] == '\r'))
		c->pos = (size_t)(skip_break(c, c->data + c->pos, c->data + c->len) - c->data);
	c->record_line = c->line;
	if (c->pos == c->len)
		return 0;
	size_t pos = c->pos;
	read_record(c);
	if (c->nomem) {
		c->pos = pos; /* so the caller may try the record again */
		c->line = c->record_line;
		c->n = 0;
		return HL_ENOMEM;
	}
	if (!c->error && utf8_check(c->bytes, c->used) != c->used)
		c->error = "invalid UTF-8 (save the file as CSV UTF-8)";
	if (c->error) {
		c->n = 0;
		return HL_EINVAL;
	}
	return c->n;
}

HL_API const char *hl_csv_field(const struct hl_csv *c, int i, size_t *len)
{
	if (i < 0 || i >= c->n) {
		if (len)
			*len = 0;
		return NULL;
	}
	const char *f = c->bytes + c->start[i];
	size_t n = c->start[i + 1] - c->start[i] - 1;
	if (f[0] == '\'' && csv_formula(f, n))
		f++, n--; /* the writer's guard against formulas */
	if (len)
		*len = n;
	return f;
}

HL_API long hl_csv_record_line(const struct hl_csv *c)
{
	return c->record_line;
}

HL_API size_t hl_csv_offset(const struct hl_csv *c)
{
	return c->pos;
}

HL_API long hl_csv_line(const struct hl_csv *c)
{
	return c->line;
}

HL_API const char *hl_csv_error(const struct hl_csv *c)
{
	return c->error;
}

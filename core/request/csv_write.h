/* SPDX-License-Identifier: MIT */
/*
 * csv_write.h: the core's CSV writer (csv_write.c), which the public
 * hl_stream_csv_* functions are; the reader is the public hl_csv_* API
 * (lib/csv.c) and shares only csv_formula (lib/csv.h) with it.
 *
 * These append to a buffer (so a test can call them without a request):
 * no allocation of their own, only the buffer's growth.
 */
#ifndef HL_CSV_WRITE_H
#define HL_CSV_WRITE_H

#include <hyperlevel/hyperlevel.h>

#include "lib/buf.h"
#include "lib/csv.h"

#include <stddef.h>

/* Append s[0..n) as one field: as it is, or in quotes (quotes doubled)
 * when it holds a comma, a quote, CR or LF, or starts with a byte order
 * mark (which a reader would take for the file's). A formula (see
 * csv_formula) gets one more ' in front, and quotes. */
void csv_quote(struct buf *out, const char *s, size_t n);
/* Append the names of st's columns, or its current row, as one line
 * ending in CRLF; columns whose names start with "_" are left out. */
void csv_header(struct buf *out, sqlite3_stmt *st);
void csv_row(struct buf *out, sqlite3_stmt *st);

#endif

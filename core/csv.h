/* SPDX-License-Identifier: MIT */
/*
 * csv.h: the core's CSV writer (csv_write.c), which the public
 * hl_stream_csv_* functions are; the reader is the public hl_csv_* API
 * (csv.c) and needs nothing more inside the core.
 *
 * These append to a buffer (so a test can call them without a request):
 * no allocation of their own, only the buffer's growth.
 */
#ifndef HL_CSV_H
#define HL_CSV_H

#include <hyperlevel/hyperlevel.h>

#include "buf.h"

#include <stddef.h>

/* Append s[0..n) as one field: as it is, or in quotes (quotes doubled)
 * when it holds a comma, a quote, CR or LF, or starts with a byte order
 * mark (which a reader would take for the file's). */
void csv_quote(struct buf *out, const char *s, size_t n);
/* Append the names of st's columns, or its current row, as one line
 * ending in CRLF; columns whose names start with "_" are left out. */
void csv_header(struct buf *out, sqlite3_stmt *st);
void csv_row(struct buf *out, sqlite3_stmt *st);

#endif

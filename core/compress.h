/* SPDX-License-Identifier: MIT */
/*
 * compress.h: compressing answers: brotli for clients that accept it, else
 * gzip, for text of 1 KB and more.
 *
 * Levels, from DESIGN.md's measurements on JSON: brotli quality 4 (about
 * 47 MB/s) and libdeflate level 6 (about 70 MB/s): a 100 KB answer costs
 * one or two milliseconds and saves a phone on a slow link far more.
 * libdeflate compresses whole buffers only; streamed answers will need
 * zlib's or brotli's streaming encoders.
 */
#ifndef HL_COMPRESS_H
#define HL_COMPRESS_H

#include "buf.h"

#include <stddef.h>

enum coding { CODING_IDENTITY, CODING_GZIP, CODING_BR };

#define COMPRESS_MIN_BYTES 1024

/* The best coding an Accept-Encoding header allows (q values honoured). */
enum coding compress_choose(const char *accept_encoding);
const char *coding_name(enum coding c);
/* Whether a media type is worth compressing (text, JSON, JS, SVG). */
int compress_worth(const char *content_type);

/* Append in[0..n) compressed with `c` to `out`; 0, or -1 when it failed or
 * would not be smaller. Uses a compressor kept per thread. */
int compress_into(enum coding c, const void *in, size_t n, struct buf *out);
/* Free this thread's compressor (at thread exit). */
void compress_thread_release(void);

#endif

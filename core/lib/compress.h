/* SPDX-License-Identifier: MIT */
/*
 * compress.h: compressing answers: brotli for clients that accept it, else
 * gzip, for text of 1 KB and more.
 *
 * Levels, measured on a 106 KB JSON page of 500 contacts (size after, CPU
 * per KB of input, this machine):
 *   gzip (libdeflate) 1: 14.1% 2.2 us   4: 12.5% 4.8 us   6: 11.3% 8.5 us
 *   brotli            4: 12.3% 6.1 us   5: 10.8% 12.3 us  6: 10.6% 13.8 us
 * brotli 4 is beaten by gzip 6 on both counts, so brotli runs at 5 and
 * gzip at 6. On a 1.6 Mbit/s phone link every byte saved is 5 us, so each
 * step up pays for itself many times over; answers the cache keeps are
 * compressed once.
 * libdeflate compresses whole buffers only; streamed answers will need
 * zlib's or brotli's streaming encoders.
 */
#ifndef HL_COMPRESS_H
#define HL_COMPRESS_H

#include "lib/buf.h"

#include <stddef.h>

enum coding { CODING_IDENTITY, CODING_GZIP, CODING_BR };

#define COMPRESS_MIN_BYTES 1024

/* The best coding an Accept-Encoding header allows (q values honoured). */
enum coding compress_choose(const char *accept_encoding);
/* Whether the header allows coding `c` at all (q above 0); identity always. */
int compress_accepts(const char *accept_encoding, enum coding c);
const char *coding_name(enum coding c);
/* Whether a media type is worth compressing (text, JSON, JS, SVG). */
int compress_worth(const char *content_type);

/* Append in[0..n) compressed with `c` to `out`; 0, or -1 when it failed or
 * would not be smaller. Uses a compressor kept per thread. */
int compress_into(enum coding c, const void *in, size_t n, struct buf *out);
/* Free this thread's compressor (at thread exit). */
void compress_thread_release(void);

#endif

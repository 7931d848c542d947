/* SPDX-License-Identifier: MIT */
/*
 * encoder.h: a streaming compressor that works beside its caller: while a
 * streamed answer makes its next piece, the last one is compressed on the
 * encoder's own thread (stream.c).
 */
#ifndef HL_ENCODER_H
#define HL_ENCODER_H

#include "lib/buf.h"
#include "lib/compress.h"

struct encoder;

/* A brotli or gzip stream (not identity); NULL when out of memory. */
struct encoder *encoder_open(enum coding coding);
/* Compress in[0..len), ending the stream when `last`: the text is copied
 * and compressed on the encoder's thread while the caller goes on. First
 * appends to `made` what the previous call's text made; after a `last`
 * call, everything. 0, or -1 once the compressor or memory failed. */
int encoder_push(struct encoder *e, const void *in, size_t len, int last, struct buf *made);
/* Stop the thread, whatever it was doing, and free everything. */
void encoder_close(struct encoder *e);

#endif

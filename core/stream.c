/* SPDX-License-Identifier: MIT */
/*
 * stream.c: answers sent while they are made (exports), in HTTP chunks,
 * compressed as they go, so a 100 MB export never sits in memory.
 *
 * A handler calls hl_stream_begin, then hl_stream_write as often as it
 * likes; the pieces gather in the request's answer buffer and leave as one
 * chunk each time STREAM_CHUNK bytes are ready, and the core ends the
 * stream after the handler. libdeflate compresses whole buffers only, and
 * browsers ignore a second gzip member, so streams use brotli's streaming
 * encoder or zlib's deflate (see DESIGN.md's facts).
 *
 * A client that reads slowly must not hold a read connection: chunks made
 * while the request holds one wait in `pending`, and leave when it gives
 * the connection back (hl_read_end, between pages) or the handler ends.
 * Sending is bounded as every answer is (http_send): a client that reads
 * slower than min_rate_kb after body_timeout_s has its answer cut short.
 */
#include "compress.h"
#include "log.h"
#include "request.h"
#include "server.h"

#include <brotli/encode.h>
#include <civetweb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define STREAM_CHUNK (64 * 1024)
#define PENDING_MAX (1 << 20) /* sent anyway, by a handler that never gives
				* its read connection back: a page must fit */
#define BROTLI_STREAM_WINDOW 20 /* 1 MB: bounded memory per stream */
/* Streams are the big answers, where compressing costs more than the
 * query: on a 1.25 MB contacts export, brotli 5 took 40 ms (4.0 times
 * smaller), brotli 2 10 ms (3.4 times), brotli 0 5 ms (2.8 times); zlib 6
 * 44 ms (3.6 times), zlib 1 13 ms (2.8 times). So streams use the fast
 * levels: the export of 7,900 contacts answers in 20 ms at brotli 0, 27 ms
 * at 2 (15 ms uncompressed). Brotli 1 allocates two buffers for every
 * chunk smaller than its 128 KB block, which is each of ours. */
#define BROTLI_STREAM_QUALITY 0
#define GZIP_STREAM_LEVEL 1

struct stream {
	enum coding coding;
	BrotliEncoderState *br;
	z_stream gz;
	int head_only;
	int failed;        /* the connection went away: drop the rest */
	struct buf pending; /* the head and chunks not sent yet */
	unsigned char out[STREAM_CHUNK + 64];
};

/* Send what is pending, unless the request holds a database connection
 * (then it waits, up to PENDING_MAX) or `force`. */
static void flush(struct hl_req *r, int force)
{
	struct stream *s = r->stream;
	if (s->failed || !s->pending.len ||
	    (!force && (r->reader || r->writer) && s->pending.len < PENDING_MAX))
		return;
	if (http_send(r, s->pending.data, s->pending.len))
		s->failed = 1;
	buf_reset(&s->pending);
}

/* Add one chunk ("SIZE\r\nDATA\r\n"); a zero-length one ends the body. */
static void send_chunk(struct hl_req *r, const void *data, size_t len)
{
	struct stream *s = r->stream;
	char size[32];
	if (s->failed || s->head_only || (!len && data))
		return;
	int n = snprintf(size, sizeof(size), "%zx\r\n", len);
	buf_append(&s->pending, size, (size_t)n);
	if (len)
		buf_append(&s->pending, data, len);
	buf_append(&s->pending, "\r\n", 2);
	if (s->pending.oom)
		s->failed = 1;
	r->stream_sent += len;
	flush(r, 0);
}

static int coder_open(struct stream *s)
{
	if (s->coding == CODING_BR) {
		if (!(s->br = BrotliEncoderCreateInstance(NULL, NULL, NULL)))
			return HL_ENOMEM;
		BrotliEncoderSetParameter(s->br, BROTLI_PARAM_QUALITY, BROTLI_STREAM_QUALITY);
		BrotliEncoderSetParameter(s->br, BROTLI_PARAM_LGWIN, BROTLI_STREAM_WINDOW);
		BrotliEncoderSetParameter(s->br, BROTLI_PARAM_MODE, BROTLI_MODE_TEXT);
	} else if (s->coding == CODING_GZIP) {
		/* windowBits 15 + 16: a gzip wrapper, not zlib's. */
		if (deflateInit2(&s->gz, GZIP_STREAM_LEVEL, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
			return HL_ENOMEM;
	}
	return 0;
}

/* Compress `len` bytes (finishing the stream when `last`), sending each
 * full output buffer as a chunk. */
static void encode(struct hl_req *r, const unsigned char *in, size_t len, int last)
{
	struct stream *s = r->stream;
	if (s->coding == CODING_IDENTITY) {
		send_chunk(r, in, len);
		return;
	}
	for (;;) {
		size_t room = sizeof(s->out), made;
		int done;
		if (s->coding == CODING_BR) {
			uint8_t *next_out = s->out;
			if (!BrotliEncoderCompressStream(s->br, last ? BROTLI_OPERATION_FINISH
								     : BROTLI_OPERATION_PROCESS,
							 &len, &in, &room, &next_out, NULL)) {
				s->failed = 1;
				return;
			}
			made = sizeof(s->out) - room;
			done = last ? BrotliEncoderIsFinished(s->br) : !len && !BrotliEncoderHasMoreOutput(s->br);
		} else {
			s->gz.next_in = (unsigned char *)in;
			s->gz.avail_in = (uInt)len;
			s->gz.next_out = s->out;
			s->gz.avail_out = (uInt)room;
			int rc = deflate(&s->gz, last ? Z_FINISH : Z_NO_FLUSH);
			made = room - s->gz.avail_out;
			in = s->gz.next_in;
			len = s->gz.avail_in;
			done = last ? rc == Z_STREAM_END : s->gz.avail_out != 0;
		}
		if (made)
			send_chunk(r, s->out, made);
		if (done || s->failed)
			return;
	}
}

static void stream_head(struct hl_req *r)
{
	struct stream *s = r->stream;
	char head[HEAD_ROOM * 2];
	if (s->coding)
		request_add_header(r, "Content-Encoding: %s", coding_name(s->coding));
	int n = http_format_head(r, head, sizeof(head));
	if (n < 0 || (size_t)n >= sizeof(head))
		s->failed = 1;
	else
		buf_append(&s->pending, head, (size_t)n);
	flush(r, 0);
}

void stream_flush(struct hl_req *r)
{
	if (r->stream)
		flush(r, 0);
}

HL_API int hl_stream_begin(struct hl_req *r, int status, const char *content_type)
{
	if (r->replied || r->stream || r->headers_set) /* headers_set: a nested request */
		return HL_ESTATE;
	struct stream *s = calloc(1, sizeof(*s));
	if (!s)
		return HL_ENOMEM;
	s->head_only = !strcmp(r->method, "HEAD");
	s->coding = compress_worth(content_type)
			    ? compress_choose(hl_header(r, "Accept-Encoding"))
			    : CODING_IDENTITY;
	if (!s->head_only && coder_open(s)) {
		free(s);
		return HL_ENOMEM;
	}
	r->stream = s;
	r->streamed = 1;
	request_reset_answer(r);
	r->status = status;
	r->content_type = content_type;
	r->replied = 1;
	r->encoded = 1;
	if (compress_worth(content_type))
		request_add_header(r, "Vary: Accept-Encoding");
	stream_head(r);
	return 0;
}

int stream_body_open(struct hl_req *r)
{
	struct stream *s = r->stream;
	if (!s)
		return HL_ESTATE;
	if (s->failed)
		return HL_EIO; /* the client is gone: the handler may stop */
	return !s->head_only; /* a HEAD answer has no body, and no encoder */
}

int stream_body_added(struct hl_req *r, size_t added)
{
	r->plain_len += added;
	if (r->out.oom)
		return HL_ENOMEM;
	if (r->out.len - HEAD_ROOM >= STREAM_CHUNK) {
		encode(r, (unsigned char *)r->out.data + HEAD_ROOM, r->out.len - HEAD_ROOM, 0);
		r->out.len = HEAD_ROOM;
	}
	return r->stream->failed ? HL_EIO : 0;
}

HL_API int hl_stream_write(struct hl_req *r, const void *data, size_t len)
{
	int rc = stream_body_open(r);
	if (rc <= 0)
		return rc;
	buf_append(&r->out, data, len);
	return stream_body_added(r, len);
}

void stream_end(struct hl_req *r, int ok)
{
	struct stream *s = r->stream;
	if (!s)
		return;
	if (ok && !s->head_only) {
		encode(r, (unsigned char *)r->out.data + HEAD_ROOM, r->out.len - HEAD_ROOM, 1);
		send_chunk(r, NULL, 0);
	} else if (!s->head_only && !s->failed) {
		/* A chunk size that is not hex: the client sees a broken body at
		 * once, instead of waiting for the rest until a timeout. */
		buf_append(&s->pending, "cut\r\n", 5);
	}
	if (!r->writer)
		request_return_reader(r); /* not held while the client reads */
	flush(r, 1);
	if (s->br)
		BrotliEncoderDestroyInstance(s->br);
	if (s->coding == CODING_GZIP && !s->head_only)
		deflateEnd(&s->gz);
	buf_release(&s->pending);
	free(s);
	r->stream = NULL;
	r->out.len = HEAD_ROOM;
}

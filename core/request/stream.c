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
 * encoder or zlib's deflate (see DESIGN.md's facts), on a thread beside
 * the handler's (encoder.c).
 *
 * A client that reads slowly must not hold a read connection: chunks made
 * while the request holds one wait in `pending`, and leave when it gives
 * the connection back (hl_read_end, between pages) or the handler ends.
 * Sending is bounded as every answer is (http_send): a client that reads
 * slower than min_rate_kb after body_timeout_s has its answer cut short.
 */
#include "lib/compress.h"
#include "lib/encoder.h"
#include "lib/log.h"
#include "request/answer.h"
#include "request/request.h"
#include "server.h"

#include <civetweb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STREAM_CHUNK (64 * 1024)
#define PENDING_MAX (1 << 20) /* sent anyway, by a handler that never gives
				* its read connection back: a page must fit */

struct stream {
	enum coding coding;
	struct encoder *encoder; /* for a coding, unless head_only */
	int head_only;
	int failed;        /* the connection went away: drop the rest */
	struct buf pending; /* the head and chunks not sent yet */
	struct buf made;   /* what the encoder handed back */
};

/* Send what is pending, unless the request holds a database connection
 * (then it waits, up to PENDING_MAX) or `force`. */
static void flush(struct hl_req *r, int force)
{
	struct stream *s = r->stream;
	if (s->failed || !s->pending.len ||
	    (!force && (r->reader || r->writer) && s->pending.len < PENDING_MAX))
		return;
	if (answer_write(r, s->pending.data, s->pending.len))
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

/* Send `len` bytes of the answer, compressed when it is (finishing the
 * compression when `last`). */
static void encode(struct hl_req *r, const unsigned char *in, size_t len, int last)
{
	struct stream *s = r->stream;
	if (s->coding == CODING_IDENTITY) {
		send_chunk(r, in, len);
		return;
	}
	buf_reset(&s->made);
	if (encoder_push(s->encoder, in, len, last, &s->made))
		s->failed = 1;
	else if (s->made.len)
		send_chunk(r, s->made.data, s->made.len);
}

static void stream_head(struct hl_req *r)
{
	struct stream *s = r->stream;
	char head[HEAD_ROOM * 2];
	if (s->coding)
		request_add_header(r, "Content-Encoding: %s", coding_name(s->coding));
	int n = answer_head(r, head, sizeof(head));
	if (n < 0 || (size_t)n >= sizeof(head))
		s->failed = 1;
	else
		buf_append(&s->pending, head, (size_t)n);
	flush(r, 0);
}

/* The reader goes back to the pool, and what a stream held back while
 * the request had it is sent. */
HL_API void hl_read_end(struct hl_req *r)
{
	request_return_reader(r);
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
	if (!s->head_only && s->coding && !(s->encoder = encoder_open(s->coding))) {
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
	encoder_close(s->encoder);
	buf_release(&s->pending);
	buf_release(&s->made);
	free(s);
	r->stream = NULL;
	r->out.len = HEAD_ROOM;
}

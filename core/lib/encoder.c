/* SPDX-License-Identifier: MIT */
/*
 * encoder.c: brotli's or zlib's streaming encoder, run on a thread of its
 * own so that compressing a streamed answer overlaps making it.
 *
 * The largest sub-account's contacts export took 12.5 ms uncompressed and
 * 16.5 ms with brotli at quality 0, one after the other on one thread: the
 * 1.27 MB of CSV took about 4 ms to compress. Each stream's pieces (64 KB,
 * STREAM_CHUNK) are compressed one at a time, in order, by one thread, so
 * the answer is the one stream it was; the caller waits for a piece only
 * when it has made the next one first. A stream that ends within its first
 * piece never starts the thread, and one that cannot start it compresses
 * in the caller, as before.
 *
 * The thread lives as long as its stream, which holds a civetweb worker
 * meanwhile: there are never more of them than workers.
 */
#include "lib/encoder.h"

#include <brotli/encode.h>
#include <pthread.h>
#include <stdlib.h>
#include <zlib.h>

#define BROTLI_STREAM_WINDOW 20 /* 1 MB: bounded memory per stream */
/* Streams are the big answers, where compressing costs more than the
 * query: on a 1.25 MB contacts export, brotli 5 took 40 ms (4.0 times
 * smaller), brotli 2 10 ms (3.4 times), brotli 0 5 ms (2.8 times); zlib 6
 * 44 ms (3.6 times), zlib 1 13 ms (2.8 times). So streams use the fast
 * levels. Brotli 1 allocates two buffers for every piece smaller than its
 * 128 KB block, which is each of ours. */
#define BROTLI_STREAM_QUALITY 0
#define GZIP_STREAM_LEVEL 1
#define OUT_STEP (64 * 1024) /* room made for output at a time */

struct encoder {
	enum coding coding;
	BrotliEncoderState *br;
	z_stream gz;
	int gz_open;
	int failed;         /* the compressor failed: nothing more is made */

	/* The piece in hand and what it made; the thread's while `busy`. */
	struct buf in, out;
	int last;

	pthread_t thread;
	int tried;          /* to start the thread */
	int threaded;       /* it runs; else pieces run in the caller */
	pthread_mutex_t lock;
	pthread_cond_t wake; /* a piece to compress, or `quit` */
	pthread_cond_t done; /* `busy` went to 0 */
	int busy, quit;
};

struct encoder *encoder_open(enum coding coding)
{
	struct encoder *e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->coding = coding;
	if (coding == CODING_BR) {
		if (!(e->br = BrotliEncoderCreateInstance(NULL, NULL, NULL)))
			goto fail;
		BrotliEncoderSetParameter(e->br, BROTLI_PARAM_QUALITY, BROTLI_STREAM_QUALITY);
		BrotliEncoderSetParameter(e->br, BROTLI_PARAM_LGWIN, BROTLI_STREAM_WINDOW);
		BrotliEncoderSetParameter(e->br, BROTLI_PARAM_MODE, BROTLI_MODE_TEXT);
	} else {
		/* windowBits 15 + 16: a gzip wrapper, not zlib's. */
		if (deflateInit2(&e->gz, GZIP_STREAM_LEVEL, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
			goto fail;
		e->gz_open = 1;
	}
	return e;
fail:
	free(e);
	return NULL;
}

/* Compress the piece in `in` into `out`. */
static void compress_piece(struct encoder *e)
{
	const uint8_t *next_in = (const uint8_t *)e->in.data;
	size_t avail_in = e->in.len;
	for (int done = 0; !done && !e->failed;) {
		if (buf_reserve(&e->out, OUT_STEP)) {
			e->failed = 1;
			break;
		}
		uint8_t *next_out = (uint8_t *)e->out.data + e->out.len;
		size_t room = e->out.cap - e->out.len - 1; /* the NUL's place */
		size_t made;
		if (e->coding == CODING_BR) {
			if (!BrotliEncoderCompressStream(e->br, e->last ? BROTLI_OPERATION_FINISH
									 : BROTLI_OPERATION_PROCESS,
							 &avail_in, &next_in, &room, &next_out, NULL))
				e->failed = 1;
			made = (size_t)(next_out - (uint8_t *)e->out.data) - e->out.len;
			done = e->last ? BrotliEncoderIsFinished(e->br)
				       : !avail_in && !BrotliEncoderHasMoreOutput(e->br);
		} else {
			e->gz.next_in = (unsigned char *)next_in;
			e->gz.avail_in = (uInt)avail_in;
			e->gz.next_out = next_out;
			e->gz.avail_out = (uInt)room;
			int rc = deflate(&e->gz, e->last ? Z_FINISH : Z_NO_FLUSH);
			made = room - e->gz.avail_out;
			next_in = e->gz.next_in;
			avail_in = e->gz.avail_in;
			done = e->last ? rc == Z_STREAM_END : e->gz.avail_out != 0;
		}
		e->out.len += made;
		e->out.data[e->out.len] = '\0';
	}
}

static void *encoder_main(void *arg)
{
	struct encoder *e = arg;
	pthread_mutex_lock(&e->lock);
	for (;;) {
		while (!e->busy && !e->quit)
			pthread_cond_wait(&e->wake, &e->lock);
		if (!e->busy)
			break;
		pthread_mutex_unlock(&e->lock);
		compress_piece(e);
		pthread_mutex_lock(&e->lock);
		e->busy = 0;
		pthread_cond_signal(&e->done);
	}
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

static void start_thread(struct encoder *e)
{
	if (pthread_mutex_init(&e->lock, NULL))
		return;
	if (pthread_cond_init(&e->wake, NULL))
		goto no_wake;
	if (pthread_cond_init(&e->done, NULL))
		goto no_done;
	if (pthread_create(&e->thread, NULL, encoder_main, e))
		goto no_thread;
	e->threaded = 1;
	return;
no_thread:
	pthread_cond_destroy(&e->done);
no_done:
	pthread_cond_destroy(&e->wake);
no_wake:
	pthread_mutex_destroy(&e->lock);
}

/* Wait for the piece in hand, and move what it made to `made`. */
static void collect(struct encoder *e, struct buf *made)
{
	if (e->threaded) {
		pthread_mutex_lock(&e->lock);
		while (e->busy)
			pthread_cond_wait(&e->done, &e->lock);
		pthread_mutex_unlock(&e->lock);
	}
	if (e->out.len)
		buf_append(made, e->out.data, e->out.len);
	buf_reset(&e->out);
}

int encoder_push(struct encoder *e, const void *in, size_t len, int last, struct buf *made)
{
	collect(e, made);
	if (e->failed)
		return -1;
	if (!e->tried && !last) {
		e->tried = 1;
		start_thread(e);
	}
	buf_reset(&e->in);
	buf_append(&e->in, in, len);
	e->last = last;
	if (e->in.oom)
		e->failed = 1;
	else if (!e->threaded)
		compress_piece(e);
	else {
		pthread_mutex_lock(&e->lock);
		e->busy = 1;
		pthread_cond_signal(&e->wake);
		pthread_mutex_unlock(&e->lock);
	}
	if (last)
		collect(e, made);
	return e->failed || made->oom ? -1 : 0;
}

void encoder_close(struct encoder *e)
{
	if (!e)
		return;
	if (e->threaded) {
		pthread_mutex_lock(&e->lock);
		e->quit = 1;
		pthread_cond_signal(&e->wake);
		pthread_mutex_unlock(&e->lock);
		pthread_join(e->thread, NULL); /* after the piece in hand, if any */
		pthread_cond_destroy(&e->done);
		pthread_cond_destroy(&e->wake);
		pthread_mutex_destroy(&e->lock);
	}
	if (e->br)
		BrotliEncoderDestroyInstance(e->br);
	if (e->gz_open)
		deflateEnd(&e->gz);
	buf_release(&e->in);
	buf_release(&e->out);
	free(e);
}

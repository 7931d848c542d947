/* SPDX-License-Identifier: MIT */
/*
 * compress.c: brotli (libbrotlienc) and gzip (libdeflate) for whole
 * answers; see compress.h.
 */
#include "lib/compress.h"

#include <brotli/encode.h>
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define GZIP_LEVEL 6
/* Brotli 2 where it was 5: at a few KB brotli 5 spends most of its time
 * setting up its hash tables. On answers of 1.3 to 31.6 KB (an invoice,
 * a dashboard, a page of contacts, a board) brotli 2 took 5 to 71 us
 * where brotli 5 took 19 to 289 us, for output 8 to 18 % larger (a
 * board: 5.5 KB where 5.0 KB). Past BIG_ANSWER brotli 1: 1.5 us a KB
 * (93 us for a board of 50 deals a column, 62 KB, into 10.7 KB).
 * Measured on saved answers with the server's heap settings (heap.c),
 * the mean of 20,000 rounds. Streams go further still (stream.c). */
#define BROTLI_QUALITY 2
#define BIG_ANSWER (32 * 1024)
#define BROTLI_QUALITY_BIG 1

/* Creating a libdeflate compressor costs about 5 us: one per thread. */
static __thread struct libdeflate_compressor *deflater;

void compress_thread_release(void)
{
	libdeflate_free_compressor(deflater);
	deflater = NULL;
}

const char *coding_name(enum coding c)
{
	return c == CODING_BR ? "br" : c == CODING_GZIP ? "gzip" : "identity";
}

/* The q value the header gives `name` ("*" counts for names not listed);
 * -1 when it says nothing about it. */
static double quality(const char *header, const char *name)
{
	double star = -1, q = -1;
	size_t n = strlen(name);
	for (const char *p = header; *p;) {
		p += strspn(p, " \t,");
		size_t len = strcspn(p, " \t;,");
		double value = 1;
		const char *semi = p + len;
		semi += strspn(semi, " \t");
		if (*semi == ';') {
			const char *qs = strstr(semi, "q=");
			const char *end = semi + strcspn(semi, ",");
			if (qs && qs < end)
				value = strtod(qs + 2, NULL);
		}
		if (len == n && !strncasecmp(p, name, n))
			q = value;
		else if (len == 1 && *p == '*')
			star = value;
		p += strcspn(p, ",");
	}
	return q >= 0 ? q : star;
}

int compress_accepts(const char *accept_encoding, enum coding c)
{
	if (c == CODING_IDENTITY)
		return 1;
	return accept_encoding && quality(accept_encoding, coding_name(c)) > 0;
}

enum coding compress_choose(const char *accept_encoding)
{
	if (compress_accepts(accept_encoding, CODING_BR))
		return CODING_BR;
	if (compress_accepts(accept_encoding, CODING_GZIP))
		return CODING_GZIP;
	return CODING_IDENTITY;
}

int compress_worth(const char *type)
{
	static const char *const types[] = { "text/", "application/json", "application/javascript",
					     "application/manifest+json", "image/svg+xml" };
	/* An event stream is read as it arrives; compression would hold
	 * events back in the encoder. */
	if (type && !strncmp(type, "text/event-stream", 17))
		return 0;
	for (size_t i = 0; type && i < sizeof(types) / sizeof(types[0]); i++)
		if (!strncmp(type, types[i], strlen(types[i])))
			return 1;
	return 0;
}

static size_t gzip(const void *in, size_t n, char *out, size_t room)
{
	if (!deflater && !(deflater = libdeflate_alloc_compressor(GZIP_LEVEL)))
		return 0;
	return libdeflate_gzip_compress(deflater, in, n, out, room);
}

/* The smallest window that holds the whole answer. Brotli sizes some of
 * its tables by the window: at quality 5 a window over 64 KB took a 1 MB
 * table, which an answer of a few KB touched all over, page by page (at
 * quality 2 the window made no difference to its time). */
static int window_for(size_t n)
{
	int lgwin = BROTLI_MIN_WINDOW_BITS;
	while (lgwin < BROTLI_DEFAULT_WINDOW && ((size_t)1 << lgwin) - 16 < n)
		lgwin++;
	return lgwin;
}

static size_t brotli(const void *in, size_t n, char *out, size_t room)
{
	size_t size = room;
	int quality = n > BIG_ANSWER ? BROTLI_QUALITY_BIG : BROTLI_QUALITY;
	if (!BrotliEncoderCompress(quality, window_for(n), BROTLI_MODE_TEXT, n, in,
				   &size, (uint8_t *)out))
		return 0;
	return size;
}

int compress_into(enum coding c, const void *in, size_t n, struct buf *out)
{
	size_t room = n - 1; /* only a smaller result is worth sending */
	if (c == CODING_IDENTITY || n < 2 || buf_reserve(out, room))
		return -1;
	char *dst = out->data + out->len;
	size_t got = c == CODING_BR ? brotli(in, n, dst, room) : gzip(in, n, dst, room);
	if (!got)
		return -1;
	out->len += got;
	return 0;
}

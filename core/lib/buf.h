/* SPDX-License-Identifier: MIT */
/*
 * buf.h: a growable byte buffer, the one way the core builds text.
 *
 * Appends never fail visibly: when memory runs out the buffer marks itself
 * `oom` and ignores further appends, so a writer can append freely and check
 * once at the end. The contents are always NUL-terminated when cap > 0.
 */
#ifndef HL_BUF_H
#define HL_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

struct buf {
	char *data;
	size_t len;
	size_t cap;
	int oom;
};

#define BUF_INIT { NULL, 0, 0, 0 }

/* Make room for `extra` more bytes (and the NUL): 0, or -1 once the
 * buffer is out of memory. buf_grow is its slow path. */
int buf_grow(struct buf *b, size_t extra);
static inline int buf_reserve(struct buf *b, size_t extra)
{
	return !b->oom && b->len + extra < b->cap ? 0 : buf_grow(b, extra);
}

/* Appends are inline: a JSON answer makes tens of thousands of them. */
static inline void buf_append(struct buf *b, const void *p, size_t n)
{
	if (buf_reserve(b, n))
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

static inline void buf_putc(struct buf *b, char c)
{
	if (buf_reserve(b, 1))
		return;
	b->data[b->len++] = c;
	b->data[b->len] = '\0';
}

void buf_puts(struct buf *b, const char *s);
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vprintf(struct buf *b, const char *fmt, va_list ap);
/* Append the file at `path` to the buffer, at most `max` bytes: 0; or -1
 * with errno saying why: from open() or read(), EINVAL when it is not a
 * regular file (never waited on), EFBIG when longer than `max`, ENOMEM
 * when the buffer ran out of memory. */
int buf_read_file(struct buf *b, const char *path, size_t max);
/* Empty the buffer, keeping its memory. */
void buf_reset(struct buf *b);
/* Free the memory; the buffer is empty and usable again. */
void buf_release(struct buf *b);

#endif

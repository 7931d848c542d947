/* SPDX-License-Identifier: MIT */
/*
 * buf.c: the growable byte buffer (see buf.h). Growth doubles, so appending
 * n bytes one at a time costs O(n).
 */
#include "lib/buf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int buf_grow(struct buf *b, size_t extra)
{
	if (b->oom)
		return -1;
	if (b->len + extra + 1 <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + extra + 1)
		cap *= 2;
	char *p = realloc(b->data, cap);
	if (!p) {
		b->oom = 1;
		return -1;
	}
	b->data = p;
	b->cap = cap;
	return 0;
}

void buf_puts(struct buf *b, const char *s)
{
	buf_append(b, s, strlen(s));
}

void buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list copy;
	va_copy(copy, ap);
	size_t room = b->cap > b->len ? b->cap - b->len : 0;
	int n = vsnprintf(room ? b->data + b->len : NULL, room, fmt, copy);
	va_end(copy);
	if (n < 0 || b->oom)
		return;
	if ((size_t)n >= room) {
		if (buf_reserve(b, (size_t)n))
			return;
		vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	}
	b->len += (size_t)n;
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	b->oom = 0;
	if (b->cap)
		b->data[0] = '\0';
}

void buf_release(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
	b->oom = 0;
}

int buf_read_file(struct buf *b, const char *path, size_t max)
{
	struct stat st;
	char chunk[4096];
	size_t total = 0;
	ssize_t got = 0;
	/* not blocking: a FIFO or a device in its place must not hang us */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	int why = fstat(fd, &st) ? errno : S_ISREG(st.st_mode) ? 0 : EINVAL;
	while (!why && (got = read(fd, chunk, sizeof(chunk))) > 0 && (total += (size_t)got) <= max)
		buf_append(b, chunk, (size_t)got);
	if (!why)
		why = got < 0 ? errno : total > max ? EFBIG : b->oom ? ENOMEM : 0;
	close(fd);
	errno = why;
	return why ? -1 : 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * fold.c: hl_fold, text as a search compares it: "José Ñúñez" and "jose
 * nunez" fold alike. Unicode's compatibility decomposition (so "ﬁ" is
 * "fi" and a full-width "Ａ" an "a"), its case folding ("ß" is "ss"), the
 * marks taken off the letters, and look-alike punctuation lumped together
 * ("O’Brien" is "o'brien"): utf8proc's, from Debian. Letters that are not
 * a letter and a mark ("ø", "ł") stay as they are.
 *
 * ASCII, most of what is searched, only loses its capitals, without a
 * trip through code points. Anything else is decomposed into a buffer on
 * the stack, or for a text longer than it, one allocated for the call.
 */
#include <hyperlevel/hyperlevel.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

/* Code points decomposed on the stack: a long contact's whole searched
 * line fits. */
#define STACK_POINTS 1024

static const utf8proc_option_t FOLD = UTF8PROC_STABLE | UTF8PROC_COMPAT | UTF8PROC_DECOMPOSE |
	UTF8PROC_CASEFOLD | UTF8PROC_STRIPMARK | UTF8PROC_LUMP | UTF8PROC_IGNORE;

static int ascii_fold(const char *text, size_t n, char *out, size_t size)
{
	if (n >= size)
		return HL_ETOOBIG;
	for (size_t i = 0; i < n; i++) {
		char c = text[i];
		out[i] = c >= 'A' && c <= 'Z' ? (char)(c + ('a' - 'A')) : c;
	}
	out[n] = '\0';
	return (int)n;
}

/* `text` folded into `points` (`room` of them, one kept spare for the
 * NUL utf8proc_reencode adds) and encoded back over them as UTF-8: its
 * length in bytes; 0 with *need the points it takes when they do not
 * fit; HL_EINVAL for what is not UTF-8. */
static utf8proc_ssize_t fold_points(const char *text, size_t n, utf8proc_int32_t *points,
				    utf8proc_ssize_t room, utf8proc_ssize_t *need)
{
	utf8proc_ssize_t got = utf8proc_decompose((const utf8proc_uint8_t *)text,
						  (utf8proc_ssize_t)n, points, room - 1, FOLD);
	*need = got >= room ? got + 1 : 0;
	if (got < 0)
		return HL_EINVAL;
	if (*need)
		return 0;
	utf8proc_ssize_t len = utf8proc_reencode(points, got, FOLD);
	return len < 0 ? HL_EINVAL : len;
}

HL_API int hl_fold(const char *text, char *out, size_t size)
{
	size_t n = strlen(text), i = 0;
	while (i < n && !((unsigned char)text[i] & 0x80))
		i++;
	if (i == n)
		return ascii_fold(text, n, out, size);
	utf8proc_int32_t stack[STACK_POINTS], *points = stack;
	utf8proc_ssize_t need, len = fold_points(text, n, points, STACK_POINTS, &need);
	if (need) { /* longer than the stack holds */
		if (!(points = malloc((size_t)need * sizeof(*points))))
			return HL_ENOMEM;
		len = fold_points(text, n, points, need, &need);
	}
	int rc = len < 0 ? (int)len : (size_t)len >= size ? HL_ETOOBIG : (int)len;
	if (rc >= 0)
		memcpy(out, points, (size_t)len + 1); /* with its NUL */
	if (points != stack)
		free(points);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/*
 * utf8.c: the UTF-8 check of utf8.h. Mostly ASCII text is the usual
 * case, so it is skipped a word at a time.
 */
#include "lib/utf8.h"

#include <stdint.h>
#include <string.h>

#define HIGH_BITS 0x8080808080808080ull

size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned b = s[0], lo = 0x80, hi = 0xBF;
	size_t len;
	if (b < 0x80)
		return 1;
	if (b >= 0xC2 && b <= 0xDF) {
		len = 2;
	} else if (b >= 0xE0 && b <= 0xEF) {
		len = 3;
		lo = b == 0xE0 ? 0xA0 : 0x80; /* overlong */
		hi = b == 0xED ? 0x9F : 0xBF; /* surrogates */
	} else if (b >= 0xF0 && b <= 0xF4) {
		len = 4;
		lo = b == 0xF0 ? 0x90 : 0x80; /* overlong */
		hi = b == 0xF4 ? 0x8F : 0xBF; /* past U+10FFFF */
	} else {
		return 0; /* a continuation byte, C0, C1 (overlong) or F5..FF */
	}
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t k = 2; k < len; k++)
		if ((s[k] & 0xC0) != 0x80)
			return 0;
	return len;
}

size_t utf8_check(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	while (i < n) {
		if (n - i >= 8) {
			uint64_t w;
			memcpy(&w, s + i, 8);
			if (!(w & HIGH_BITS)) {
				i += 8;
				continue;
			}
		}
		size_t len = utf8_seq(s + i, n - i);
		if (!len)
			return i;
		i += len;
	}
	return n;
}

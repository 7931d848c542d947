/* SPDX-License-Identifier: MIT */
/*
 * utf8.h: what the core takes for UTF-8 (utf8.c), in one place for every
 * door text comes in by (JSON bodies, query strings, CSV files) and the
 * JSON writer's repair.
 *
 * Valid means RFC 3629: shortest forms only, no surrogates (ED A0..BF),
 * nothing past U+10FFFF. NUL is valid here; callers that hand text to C
 * strings refuse it themselves.
 */
#ifndef HL_UTF8_H
#define HL_UTF8_H

#include <stddef.h>

/* Length (1-4) of the valid sequence at s[0..n), n > 0, or 0 if invalid. */
size_t utf8_seq(const unsigned char *s, size_t n);
/* The offset of the first byte of s[0..n) that is not valid UTF-8, or n
 * when all of it is. ASCII is checked eight bytes at a time. */
size_t utf8_check(const char *s, size_t n);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h: what the libFuzzer targets share: the entry point's prototype,
 * a C-string copy of the input for parsers that take one, and a check that
 * stops the run (so libFuzzer saves the input) when an invariant breaks.
 */
#ifndef HL_FUZZ_H
#define HL_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                         \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed\n", __FILE__, \
				__LINE__, #cond);                                \
			abort();                                                 \
		}                                                                \
	} while (0)

/* data[0..size) as a NUL-terminated copy of its own allocation (so ASan
 * sees a read past the end), cut at the first NUL as a header or a query
 * string would be. Free with free(). */
static inline char *fuzz_cstring(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif

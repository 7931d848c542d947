/* SPDX-License-Identifier: MIT */
/*
 * test.h: the unit tests' few macros. A test file defines TESTS as a list
 * of test functions and includes this header last; each CHECK that fails
 * prints "FILE:LINE: what" and the binary ends with the line
 * "checks: N passed, N failed" that tests/run.py reads.
 */
#ifndef HL_TEST_H
#define HL_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int test_passed, test_failed;

#define CHECK(cond)                                                              \
	do {                                                                     \
		if (cond)                                                        \
			test_passed++;                                           \
		else {                                                           \
			test_failed++;                                           \
			printf("%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
		}                                                                \
	} while (0)

#define CHECK_STR(got, want)                                                     \
	do {                                                                     \
		const char *g_ = (got), *w_ = (want);                            \
		if (g_ && w_ && !strcmp(g_, w_))                                 \
			test_passed++;                                           \
		else if (!g_ && !w_)                                             \
			test_passed++;                                           \
		else {                                                           \
			test_failed++;                                           \
			printf("%s:%d: %s is \"%s\", want \"%s\"\n", __FILE__, __LINE__, \
			       #got, g_ ? g_ : "(null)", w_ ? w_ : "(null)");    \
		}                                                                \
	} while (0)

#define CHECK_INT(got, want)                                                     \
	do {                                                                     \
		long long g_ = (long long)(got), w_ = (long long)(want);         \
		if (g_ == w_)                                                    \
			test_passed++;                                           \
		else {                                                           \
			test_failed++;                                           \
			printf("%s:%d: %s is %lld, want %lld\n", __FILE__, __LINE__, \
			       #got, g_, w_);                                    \
		}                                                                \
	} while (0)

typedef void test_fn(void);

static int test_main(test_fn *const *tests, size_t n)
{
	for (size_t i = 0; i < n; i++)
		tests[i]();
	printf("checks: %d passed, %d failed\n", test_passed, test_failed);
	return test_failed ? 1 : 0;
}

#define TEST_MAIN(...)                                                           \
	int main(void)                                                           \
	{                                                                        \
		static test_fn *const tests[] = { __VA_ARGS__ };                 \
		return test_main(tests, sizeof(tests) / sizeof(tests[0]));        \
	}

#endif

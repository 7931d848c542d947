/* SPDX-License-Identifier: MIT */
/*
 * Tests core/lib/fold.c: text as a search compares it. Case and accents
 * go, whatever the letters were typed with (composed or decomposed);
 * "ß" and ligatures spread into their letters; curly quotes and dashes
 * are the plain ones; ASCII only loses its capitals; a buffer too small
 * is said so, and text that is not UTF-8 refused; a text longer than the
 * stack's buffer folds all the same.
 */
#include <hyperlevel/hyperlevel.h>

#include <stdlib.h>
#include <string.h>

#include "../test.h"

static void case_and_accents_go(void)
{
	static const char *const cases[][2] = {
		{ "José", "jose" },
		{ "JOSÉ Núñez", "jose nunez" },
		{ "Jose\xcc\x81", "jose" },            /* e and a combining acute */
		{ "Ærøskøbing Łódź", "ærøskøbing łodz" }, /* no letter under Æ, ø, ł */
		{ "Straße", "strasse" },
		{ "ﬁnance", "finance" },
		{ "Ｈｅｌｌｏ", "hello" },              /* full width */
		{ "O’Brien – Ltd", "o'brien - ltd" },
		{ "Zoë Ångström", "zoe angstrom" },
		{ "Anna-Lena ann@EXAMPLE.test +15125550199", "anna-lena ann@example.test +15125550199" },
		{ "", "" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char out[128];
		int n = hl_fold(cases[i][0], out, sizeof(out));
		CHECK_STR(out, cases[i][1]);
		CHECK_INT(n, (int)strlen(cases[i][1]));
	}
}

static void too_small_and_not_text_are_said(void)
{
	char out[5];
	CHECK_INT(hl_fold("Hello", out, sizeof(out)), HL_ETOOBIG); /* no room for the NUL */
	CHECK_INT(hl_fold("Hell", out, sizeof(out)), 4);
	CHECK_INT(hl_fold("Héllo", out, sizeof(out)), HL_ETOOBIG);
	CHECK_INT(hl_fold("Hé", out, sizeof(out)), 2);
	CHECK_INT(hl_fold("bad \xff\xfe", out, sizeof(out)), HL_EINVAL);
}

static void a_long_text_folds_beyond_the_stack(void)
{
	/* 3,000 "É"s: more code points than the buffer on the stack holds. */
	size_t n = 3000;
	char *in = malloc(n * 2 + 1), *out = malloc(n + 1), *want = malloc(n + 1);
	CHECK(in && out && want);
	for (size_t i = 0; i < n; i++) {
		memcpy(in + 2 * i, "\xc3\x89", 2);
		want[i] = 'e';
	}
	in[2 * n] = want[n] = '\0';
	CHECK_INT(hl_fold(in, out, n + 1), (int)n);
	CHECK_STR(out, want);
	free(in);
	free(out);
	free(want);
}

TEST_MAIN(case_and_accents_go,
	  too_small_and_not_text_are_said,
	  a_long_text_folds_beyond_the_stack)

/* SPDX-License-Identifier: MIT */
/*
 * search.c: hl_search_text, the words of a search as an index of folded
 * lines (hl_fold) holds them, so that every module that searches reads
 * what a person typed alike.
 */
#include "request/request.h"

#include <string.h>

/* A phone number is looked for by its digits from this many on: fewer
 * ("2024-01", "1.5") are more likely a date, a postcode, an amount. */
#define PHONE_DIGITS 7

/* Whether `s` is a phone number written with spaces, dashes, dots,
 * slashes or brackets: only those and digits, PHONE_DIGITS of them. */
static int phone_like(const char *s)
{
	size_t digits = 0;
	for (const char *p = s; *p; p++) {
		if (*p >= '0' && *p <= '9')
			digits++;
		else if (!strchr("+ -.()/", *p))
			return 0;
	}
	return digits >= PHONE_DIGITS;
}

HL_API const char *hl_search_text(struct hl_req *req, const char *typed)
{
	size_t n = strlen(typed), size = n * 4 + 64;
	char *out = hl_alloc(req, size);
	if (!out)
		return NULL;
	/* Under 3 characters a search is a prefix of the names, compared as
	 * typed (in any ASCII case); from 3 on, a substring of folded lines. */
	if (hl_text_length(typed) >= 3 ? hl_fold(typed, out, size) < 0 : !memcpy(out, typed, n + 1))
		return NULL;
	int phone = phone_like(out);
	char *w = out;
	for (const char *p = out; *p; p++)
		if (phone ? (*p >= '0' && *p <= '9') || (*p == '+' && p == out) : *p != '%' && *p != '_')
			*w++ = *p;
	*w = '\0';
	return out;
}

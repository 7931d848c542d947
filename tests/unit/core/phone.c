/* SPDX-License-Identifier: MIT */
/*
 * Tests core/lib/phone.c: numbers as people type them, read in E.164 with
 * the sub-account's country: North America's trunk 1, the 0 most
 * countries drop, Italy's 0 that stays, Russia's 8, international
 * prefixes, and what is refused (letters, too long, too short, an unknown
 * country for a national number). Every country is found, so the list is
 * sorted.
 */
#include "lib/phone.h"

#include "../test.h"

static void typed_numbers_are_read_with_the_country(void)
{
	static const char *const cases[][3] = {
		{ "+1 (555) 010-2000", "US", "+15550102000" },
		{ "(555) 010-2000", "US", "+15550102000" },
		{ "1-555-010-2000", "US", "+15550102000" },
		{ "555.010.2000", "CA", "+15550102000" },
		{ "011 44 20 7946 0958", "US", "+442079460958" },
		{ "020 7946 0958", "GB", "+442079460958" },
		{ "0044 20 7946 0958", "DE", "+442079460958" },
		{ "030 1234567", "DE", "+49301234567" },
		{ "06 6982 1234", "IT", "+390669821234" },
		{ "600 000 000", "ES", "+34600000000" },
		{ "8 (495) 123-45-67", "RU", "+74951234567" },
		{ "06 1 234 5678", "HU", "+3612345678" },
		{ "+49 30 1234567", "US", "+49301234567" },
		{ "+15550102000", NULL, "+15550102000" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char out[PHONE_MAX] = "";
		CHECK_INT(phone_e164(cases[i][0], cases[i][1], out), 0);
		CHECK_STR(out, cases[i][2]);
	}
}

static void what_is_not_a_number_is_refused(void)
{
	static const char *const cases[][2] = {
		{ "call me", "US" }, { "555-0102 ext 4", "US" }, { "", "US" },
		{ "555 0102", "US" },            /* seven digits: no area code */
		{ "+1 555 010 2000 12345", "US" }, /* sixteen digits */
		{ "+0 555 010 2000", "US" },     /* no country code starts with 0 */
		{ "+12 3", "US" }, { "+", "US" }, { "1++2", "US" },
		{ "030 1234567", "ZZ" },        /* national, in no country */
		{ "030 1234567", NULL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char out[PHONE_MAX];
		int rc = phone_e164(cases[i][0], cases[i][1], out);
		if (rc != -1)
			fprintf(stderr, "%s (%s) read as %s\n", cases[i][0], cases[i][1] ? cases[i][1] : "-",
				out);
		CHECK_INT(rc, -1);
	}
}

static void every_country_is_found(void)
{
	CHECK(phone_country_known("US") && phone_country_known("AD") && phone_country_known("ZW"));
	CHECK(!phone_country_known("us") && !phone_country_known("EU") && !phone_country_known("USA"));
	CHECK(!phone_country_known(NULL) && !phone_country_known(""));
	/* Each of the countries' codes, found by the search: the list is sorted. */
	int found = 0;
	for (char a = 'A'; a <= 'Z'; a++)
		for (char b = 'A'; b <= 'Z'; b++)
			found += phone_country_known((char[]){ a, b, '\0' });
	CHECK_INT(found, 243);
}

TEST_MAIN(typed_numbers_are_read_with_the_country,
	  what_is_not_a_number_is_refused,
	  every_country_is_found)

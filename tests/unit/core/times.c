/* SPDX-License-Identifier: MIT */
/*
 * Tests core/request/times.c: the dates and times the API takes, refused when they
 * are not real ones, read in the sub-account's time zone when they carry no
 * offset, and written as UTC with milliseconds.
 */
#include "request/times.h"

#include <hyperlevel/hyperlevel.h>

#include "../test.h"

static const char *utc(const char *s)
{
	static char out[TIME_TEXT];
	return time_to_utc(s, NULL, out) ? NULL : out;
}

/* `s` read as a sub-account in `zone` reads it. */
static const char *in_zone(const char *s, const char *zone)
{
	static char out[TIME_TEXT];
	return time_to_utc(s, zone, out) ? NULL : out;
}

static void dates_are_their_midnight(void)
{
	CHECK_STR(utc("2026-11-29"), "2026-11-29T00:00:00.000Z");
	CHECK_STR(utc("1969-12-31"), "1969-12-31T00:00:00.000Z");
	CHECK_STR(utc("2024-02-29"), "2024-02-29T00:00:00.000Z");
	CHECK_STR(utc("2000-02-29"), "2000-02-29T00:00:00.000Z");
}

static void times_keep_what_they_say(void)
{
	CHECK_STR(utc("2026-11-29T09:30"), "2026-11-29T09:30:00.000Z");
	CHECK_STR(utc("2026-11-29 09:30:05"), "2026-11-29T09:30:05.000Z");
	CHECK_STR(utc("2026-11-29T09:30:05.25Z"), "2026-11-29T09:30:05.250Z");
	CHECK_STR(utc("2026-11-29T09:30:05.123456Z"), "2026-11-29T09:30:05.123Z");
}

static void offsets_move_to_utc_across_days_and_years(void)
{
	CHECK_STR(utc("2026-11-29T10:30+01:00"), "2026-11-29T09:30:00.000Z");
	CHECK_STR(utc("2026-12-31T23:30:00-02:00"), "2027-01-01T01:30:00.000Z");
	CHECK_STR(utc("2026-01-01T00:15:00+00:30"), "2025-12-31T23:45:00.000Z");
	CHECK_STR(utc("2024-03-01T00:00:00+01:00"), "2024-02-29T23:00:00.000Z");
}

static void what_is_not_a_real_time_is_refused(void)
{
	const char *bad[] = {
		"", "2026", "2026-11", "2026-13-01", "2026-00-10", "2026-02-29", "2023-02-29",
		"2100-02-29", "2026-04-31", "2026-11-29T24:00", "2026-11-29T09:60",
		"2026-11-29T09:30:61", "2026-11-29T09", "2026-11-29T09:30+1", "2026-11-29T09:30Zx",
		"29.11.2026", "2026/11/29", "2026-11-29junk", " 2026-11-29", "next tuesday",
		"0000-01-01T00:00:00+01:00",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(utc(bad[i]) == NULL);
		if (utc(bad[i]))
			printf("    accepted \"%s\"\n", bad[i]);
	}
	CHECK(utc(NULL) == NULL);
}

static void seconds_are_written_as_the_tables_keep_times(void)
{
	char out[32];
	hl_time_text(0, out);
	CHECK_STR(out, "1970-01-01T00:00:00.000Z");
	hl_time_text(1796128200, out);
	CHECK_STR(out, "2026-12-01T12:30:00.000Z");
	hl_time_text(1709164799, out);
	CHECK_STR(out, "2024-02-28T23:59:59.000Z");
	/* It reads back as itself. */
	CHECK_STR(utc(out), "2024-02-28T23:59:59.000Z");
}

static void times_without_an_offset_are_the_sub_accounts(void)
{
	CHECK_STR(in_zone("2026-12-06", "America/Chicago"), "2026-12-06T06:00:00.000Z");
	CHECK_STR(in_zone("2026-07-06", "America/Chicago"), "2026-07-06T05:00:00.000Z");
	CHECK_STR(in_zone("2026-12-06", "Asia/Kolkata"), "2026-12-05T18:30:00.000Z");
	CHECK_STR(in_zone("2026-12-06T09:30", "Asia/Kolkata"), "2026-12-06T04:00:00.000Z");
	CHECK_STR(in_zone("2026-12-05T20:00:00.5", "America/Chicago"), "2026-12-06T02:00:00.500Z");
	/* 2026-03-08 in Havana begins at 01:00, when its clock skips midnight. */
	CHECK_STR(in_zone("2026-03-08", "America/Havana"), "2026-03-08T05:00:00.000Z");
	/* The hour Chicago skips, and the one it repeats: one side of each. */
	const char *skipped = in_zone("2026-03-08T02:30", "America/Chicago");
	CHECK(skipped && (!strcmp(skipped, "2026-03-08T07:30:00.000Z") ||
			  !strcmp(skipped, "2026-03-08T08:30:00.000Z")));
	const char *twice = in_zone("2026-11-01T01:30", "America/Chicago");
	CHECK(twice && (!strcmp(twice, "2026-11-01T06:30:00.000Z") ||
			!strcmp(twice, "2026-11-01T07:30:00.000Z")));
	/* An offset says it all. */
	CHECK_STR(in_zone("2026-12-06T09:30Z", "Asia/Kolkata"), "2026-12-06T09:30:00.000Z");
	CHECK_STR(in_zone("2026-12-06T09:30+01:00", "America/Chicago"), "2026-12-06T08:30:00.000Z");
	CHECK_STR(in_zone("2026-02-30", "Asia/Kolkata"), NULL);
}

TEST_MAIN(dates_are_their_midnight,
	  times_without_an_offset_are_the_sub_accounts,
	  seconds_are_written_as_the_tables_keep_times,
	  times_keep_what_they_say,
	  offsets_move_to_utc_across_days_and_years,
	  what_is_not_a_real_time_is_refused)

/* SPDX-License-Identifier: MIT */
/*
 * Tests core/lib/zone.c: a sub-account's days in its time zone, against
 * instants worked out from the tz database beforehand: the days clocks
 * change in America/Chicago (23 and 25 hours long), half and three
 * quarter hour offsets (Asia/Kolkata, Asia/Kathmandu), a zone whose clock
 * skips midnight (America/Havana: the day begins at 01:00), a zone 14
 * hours ahead (Pacific/Kiritimati), unknown zones taken as UTC, and the
 * same answers from several threads at once.
 */
#include "lib/zone.h"

#include <pthread.h>
#include <stdint.h>

#include "../test.h"

#define HOUR 3600

struct known_day {
	const char *zone;
	int64_t day;   /* days since 1970-01-01 */
	int64_t start; /* its first second, UTC */
};

static const struct known_day days[] = {
	{ "America/Chicago", 20520, 1772949600 },   /* 2026-03-08, clocks go forward */
	{ "America/Chicago", 20521, 1773032400 },
	{ "America/Chicago", 20758, 1793509200 },   /* 2026-11-01, clocks go back */
	{ "America/Chicago", 20759, 1793599200 },
	{ "Asia/Kolkata", 20793, 1796495400 },      /* 2026-12-06, UTC+5:30 */
	{ "Asia/Kathmandu", 20793, 1796494500 },    /* UTC+5:45 */
	{ "America/Havana", 20519, 1772859600 },    /* 2026-03-07 */
	{ "America/Havana", 20520, 1772946000 },    /* 2026-03-08 begins at 01:00 */
	{ "Europe/London", 20541, 1774742400 },     /* 2026-03-29 */
	{ "Pacific/Kiritimati", 20454, 1767175200 }, /* 2026-01-01, UTC+14 */
	{ "UTC", 20793, 20793 * 86400LL },
};

static void days_begin_at_their_local_midnight(void)
{
	for (size_t i = 0; i < sizeof(days) / sizeof(days[0]); i++) {
		const struct known_day *k = &days[i];
		CHECK_INT(zone_midnight(k->zone, k->day), k->start);
		CHECK_INT(zone_day(k->zone, k->start), k->day);
		CHECK_INT(zone_day(k->zone, k->start - 1), k->day - 1);
	}
}

static void days_last_as_long_as_their_clocks_say(void)
{
	/* Chicago: 23 hours when the clocks go forward, 25 when they go back. */
	CHECK_INT(zone_midnight("America/Chicago", 20521) - zone_midnight("America/Chicago", 20520),
		  23 * HOUR);
	CHECK_INT(zone_midnight("America/Chicago", 20759) - zone_midnight("America/Chicago", 20758),
		  25 * HOUR);
	CHECK_INT(zone_midnight("Asia/Kolkata", 20794) - zone_midnight("Asia/Kolkata", 20793),
		  24 * HOUR);
	/* 8 pm in Chicago on 2026-12-05 is 02:00 UTC the next day: still the 5th. */
	CHECK_INT(zone_day("America/Chicago", 1796522400), 20792);
	CHECK_INT(zone_offset("America/Chicago", 1782864000), -5 * HOUR); /* July: CDT */
	CHECK_INT(zone_offset("America/Chicago", 1796529600), -6 * HOUR);
	CHECK_INT(zone_offset("Asia/Kolkata", 1796529600), 5 * HOUR + 30 * 60);
}

static void unknown_zones_are_utc(void)
{
	CHECK(zone_known("UTC"));
	CHECK(zone_known("Asia/Kolkata"));
	CHECK(!zone_known("Mars/Olympus_Mons"));
	CHECK(!zone_known(""));
	CHECK(!zone_known(NULL));
	CHECK(!zone_known("America/Chicago/../../etc/passwd"));
	CHECK_INT(zone_day("Mars/Olympus_Mons", 1796529600), 1796529600 / 86400);
	CHECK_INT(zone_day(NULL, -1), -1); /* 1969-12-31 */
	CHECK_INT(zone_midnight(NULL, -1), -86400);
}

static void *ask_from_a_thread(void *arg)
{
	long wrong = 0;
	(void)arg;
	for (int round = 0; round < 200; round++)
		for (size_t i = 0; i < sizeof(days) / sizeof(days[0]); i++)
			wrong += zone_midnight(days[i].zone, days[i].day) != days[i].start;
	return (void *)wrong;
}

static void threads_get_the_same_answers(void)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		CHECK_INT(pthread_create(&t[i], NULL, ask_from_a_thread, NULL), 0);
	for (int i = 0; i < 4; i++) {
		void *wrong;
		pthread_join(t[i], &wrong);
		CHECK_INT((long)wrong, 0);
	}
}

TEST_MAIN(days_begin_at_their_local_midnight,
	  days_last_as_long_as_their_clocks_say,
	  unknown_zones_are_utc,
	  threads_get_the_same_answers)

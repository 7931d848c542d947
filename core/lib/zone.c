/* SPDX-License-Identifier: MIT */
/*
 * zone.c: the zones of zone.h. libical finds a zone by a linear search of
 * the tz database's list (about a microsecond), so the zones in use are
 * kept in a small table; an agency's sub-accounts use a handful. UTC is
 * answered without libical. One mutex serialises every libical call: a
 * zone expands its changes lazily, on whichever thread asks first.
 *
 * SQLite evaluates a bound such as "due before the sub-account's midnight
 * tomorrow" again for each row it tests, with the same arguments, so each
 * thread remembers its last answer to each question: a statement that
 * tested thousands of rows took 2 ms more without it.
 */
#include "lib/zone.h"

#include <libical/ical.h>
#include <pthread.h>
#include <string.h>

#define KEPT 32
#define DAY 86400
/* Every zone's offset lies within 15 hours of UTC. */
#define WIDEST (15 * 3600)

struct kept_zone {
	char name[ZONE_NAME_MAX];
	icaltimezone *zone; /* NULL: the tz database does not know it */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct kept_zone kept[KEPT];
static unsigned next_slot;

/* This thread's last question of each kind, and its answer. */
struct last_answer {
	char name[ZONE_NAME_MAX];
	int64_t asked, answer;
};
static __thread struct last_answer last_offset, last_midnight;

static int recalled(const struct last_answer *a, const char *name, int64_t asked)
{
	return a->name[0] && a->asked == asked && !strcmp(a->name, name);
}

static void remember(struct last_answer *a, const char *name, int64_t asked, int64_t answer)
{
	if (strlen(name) >= ZONE_NAME_MAX)
		return;
	strcpy(a->name, name);
	a->asked = asked;
	a->answer = answer;
}

static int is_utc(const char *name)
{
	return !name || !*name || !strcmp(name, "UTC") || !strcmp(name, "Etc/UTC");
}

/* The zone called `name`, from the table or libical. Under `lock`. */
static icaltimezone *find(const char *name)
{
	for (unsigned i = 0; i < KEPT; i++) {
		if (!strcmp(kept[i].name, name))
			return kept[i].zone;
	}
	icaltimezone *zone = strlen(name) < ZONE_NAME_MAX
		? icaltimezone_get_builtin_timezone(name) : NULL;
	if (strlen(name) < ZONE_NAME_MAX) {
		struct kept_zone *k = &kept[next_slot++ % KEPT];
		strcpy(k->name, name);
		k->zone = zone;
	}
	return zone;
}

int zone_known(const char *name)
{
	if (is_utc(name))
		return name != NULL && *name;
	pthread_mutex_lock(&lock);
	int known = find(name) != NULL;
	pthread_mutex_unlock(&lock);
	return known;
}

int zone_offset(const char *name, int64_t t)
{
	if (is_utc(name))
		return 0;
	if (recalled(&last_offset, name, t))
		return (int)last_offset.answer;
	int offset = 0, daylight = 0;
	pthread_mutex_lock(&lock);
	icaltimezone *zone = find(name);
	if (zone) {
		struct icaltimetype tt = icaltime_from_timet_with_zone((time_t)t, 0,
			icaltimezone_get_utc_timezone());
		offset = icaltimezone_get_utc_offset_of_utc_time(zone, &tt, &daylight);
	}
	pthread_mutex_unlock(&lock);
	remember(&last_offset, name, t, offset);
	return offset;
}

static int64_t day_of(int64_t local)
{
	return local >= 0 ? local / DAY : -((-local + DAY - 1) / DAY);
}

int64_t zone_day(const char *name, int64_t t)
{
	return day_of(t + zone_offset(name, t));
}

/* The first second whose day is `day` or later, by a binary search over
 * the widest span a day may begin in: days grow with time, except for the
 * hour a clock set back at midnight repeats the evening before, where
 * the search finds one of the two midnights. */
int64_t zone_midnight(const char *name, int64_t day)
{
	int64_t lo = day * DAY - WIDEST, hi = day * DAY + WIDEST;
	if (is_utc(name))
		return day * DAY;
	if (recalled(&last_midnight, name, day))
		return last_midnight.answer;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (zone_day(name, mid) >= day)
			hi = mid;
		else
			lo = mid + 1;
	}
	remember(&last_midnight, name, day, lo);
	return lo;
}

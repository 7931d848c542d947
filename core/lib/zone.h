/* SPDX-License-Identifier: MIT */
/*
 * zone.h: time zones by their IANA names ("America/Chicago"), for what a
 * sub-account means by "today" (zone.c). The arithmetic is libical's,
 * reading the system's tz database, so a new tzdata package is a new
 * rule everywhere; this file only caches the zones and guards libical,
 * which is not safe to call from two threads at once.
 *
 * Days are numbered as SQLite and the by-day tables number them: day 0 is
 * 1970-01-01; a zone's day N runs from its local midnight to the next,
 * 23, 24 or 25 hours later. Any thread.
 */
#ifndef HL_ZONE_H
#define HL_ZONE_H

#include <stdint.h>

/* The longest zone name kept (the tz database's longest is 32). */
#define ZONE_NAME_MAX 64

/* Whether `name` is a zone the tz database knows ("UTC" always is). */
int zone_known(const char *name);
/* Seconds east of UTC in zone `name` at `t` (seconds since 1970); 0 for
 * an unknown zone, which is taken as UTC. */
int zone_offset(const char *name, int64_t t);
/* The number of the day `t` falls on in zone `name`. */
int64_t zone_day(const char *name, int64_t t);
/* The first second of day `day` in zone `name` (its midnight, or the
 * moment the day begins where a clock change skips midnight). */
int64_t zone_midnight(const char *name, int64_t day);

#endif

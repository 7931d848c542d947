/* SPDX-License-Identifier: MIT */
/*
 * times.h: reading the API's dates and times (times.c), for the public
 * hl_field_time and hl_query_time and for the unit test.
 */
#ifndef HL_TIMES_H
#define HL_TIMES_H

#define TIME_TEXT 32 /* "2026-11-29T09:30:00.000Z" and its NUL, with room */

/* An ISO 8601 date or time, checked to be a real one, written into `out`
 * as UTC with milliseconds; one without an offset is a wall-clock time in
 * `zone` (NULL: UTC), a date alone its midnight there. 0, or -1 when it
 * is not one. */
int time_to_utc(const char *s, const char *zone, char out[TIME_TEXT]);

#endif

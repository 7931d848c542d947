/* SPDX-License-Identifier: MIT */
/*
 * times.c: dates and times as the API takes them (ISO 8601: a date, or a
 * date and time with an optional offset) and as the tables keep them (UTC,
 * "2026-11-29T08:30:00.000Z", which sorts and compares as text). Every
 * module reads a time through here, so "2026-02-30" is refused everywhere
 * rather than rolled into March, and an offset is applied the same way.
 * A date or time without an offset is the sub-account's: "2026-11-29" is
 * its midnight in the sub-account's time zone, "2026-11-29T09:30" its
 * half past nine there.
 */
#include "request/times.h"
#include "request/request.h"

#include "lib/zone.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian), after H. Hinnant. */
static long long days_from_civil(long long y, int m, int d)
{
	y -= m <= 2;
	long long era = (y >= 0 ? y : y - 399) / 400;
	long long yoe = y - era * 400;
	long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

static void civil_from_days(long long z, int *y, int *m, int *d)
{
	z += 719468;
	long long era = (z >= 0 ? z : z - 146096) / 146097;
	long long doe = z - era * 146097;
	long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	long long mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yoe + era * 400 + (*m <= 2));
}

/* `n` digits at *p as a number, or -1. */
static int digits(const char **p, int n)
{
	int v = 0;
	for (int i = 0; i < n; i++, (*p)++) {
		if (**p < '0' || **p > '9')
			return -1;
		v = v * 10 + (**p - '0');
	}
	return v;
}

static int days_in_month(int y, int m)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	return days[m - 1] + (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
}

/* Parse `s` into milliseconds since 1970, of UTC when it has an offset
 * (or Z) and of the wall clock when it has none, which *local says (2 for
 * a date alone, 1 for a time); 0, or -1 when it is not a real date or
 * time. */
static int parse_time(const char *s, long long *ms, int *local)
{
	int y = digits(&s, 4), m, d, hh = 0, mm = 0, ss = 0, frac = 0, offset = 0;
	if (y < 0 || *s++ != '-' || (m = digits(&s, 2)) < 1 || m > 12 || *s++ != '-' ||
	    (d = digits(&s, 2)) < 1 || d > days_in_month(y, m))
		return -1;
	*local = 2;
	if (*s == 'T' || *s == ' ') {
		*local = 1;
		s++;
		if ((hh = digits(&s, 2)) < 0 || hh > 23 || *s++ != ':' || (mm = digits(&s, 2)) < 0 ||
		    mm > 59)
			return -1;
		if (*s == ':' && (s++, (ss = digits(&s, 2)) < 0 || ss > 59))
			return -1;
		if (*s == '.') {
			int scale = 100;
			for (s++; *s >= '0' && *s <= '9'; s++, scale /= 10)
				frac += (*s - '0') * scale; /* milliseconds; finer digits dropped */
		}
		if (*s == 'Z') {
			s++;
			*local = 0;
		} else if (*s == '+' || *s == '-') {
			*local = 0;
			int sign = *s++ == '-' ? -1 : 1, oh = digits(&s, 2), om;
			if (oh < 0 || oh > 23 || *s++ != ':' || (om = digits(&s, 2)) < 0 || om > 59)
				return -1;
			offset = sign * (oh * 60 + om);
		}
	}
	if (*s)
		return -1;
	long long minutes = days_from_civil(y, m, d) * 1440 + hh * 60 + mm - offset;
	*ms = (minutes * 60 + ss) * 1000 + frac;
	return 0;
}

/* Milliseconds since 1970 as the tables keep times; -1 outside years 0
 * to 9999. */
static int format_ms(long long ms, char out[TIME_TEXT])
{
	long long secs = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
	long long day = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
	long long in_day = secs - day * 86400;
	int y, m, d;
	civil_from_days(day, &y, &m, &d);
	if (y < 0 || y > 9999)
		return -1;
	int hh = (int)(in_day / 3600) % 24, mi = (int)(in_day / 60 % 60), ss = (int)(in_day % 60);
	int milli = (int)(ms - secs * 1000) % 1000;
	snprintf(out, TIME_TEXT, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", y % 10000, m % 13, d % 32,
		 hh, mi, ss, milli);
	return 0;
}

/* The UTC instant of wall-clock time `wall` (seconds, as if UTC) in
 * `zone`: the offset at the guess made with the offset at the wall time
 * itself, which is right but for the hour a clock change skips or
 * repeats (then one of the two sides of it). */
static long long from_wall_clock(const char *zone, long long wall)
{
	return wall - zone_offset(zone, wall - zone_offset(zone, wall));
}

int time_to_utc(const char *s, const char *zone, char out[TIME_TEXT])
{
	long long ms;
	int local;
	if (!s || strlen(s) > 40 || parse_time(s, &ms, &local))
		return -1;
	if (local == 2)
		ms = zone_midnight(zone, ms / 86400000) * 1000;
	else if (local == 1) {
		long long wall = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
		ms = from_wall_clock(zone, wall) * 1000 + (ms - wall * 1000);
	}
	return format_ms(ms, out);
}

/* `s` as the tables keep times, in the request's memory, read in the
 * sub-account's time zone when it has no offset; NULL if it is not a real
 * date or time. */
static const char *utc_text(struct hl_req *r, const char *s)
{
	char text[TIME_TEXT];
	return time_to_utc(s, hl_location_zone(r), text) ? NULL : hl_strndup(r, text, strlen(text));
}

HL_API int hl_field_time(struct hl_req *r, int obj, const char *key, const char **out)
{
	int rc = hl_field_text(r, obj, key, 40, out);
	if (rc != HL_FIELD_SET)
		return rc;
	if (!(*out = utc_text(r, *out))) {
		hl_reply_error(r, 422, "validation", "%s: a date (2026-11-29) or an ISO 8601 time"
			       " (2026-11-29T09:30:00Z, 2026-11-29T10:30+01:00)", key);
		return HL_EINVAL;
	}
	return rc;
}

HL_API int hl_query_time(struct hl_req *r, const char *name, const char **out)
{
	const char *v = hl_query(r, name);
	*out = NULL;
	if (!v)
		return 0;
	if (!(*out = utc_text(r, v))) {
		hl_reply_error(r, 400, "bad_request", "%s must be a date (2026-11-29) or an ISO 8601"
			       " time (2026-11-29T09:30:00Z)", name);
		return HL_EINVAL;
	}
	return 0;
}

HL_API void hl_time_text(time_t t, char out[TIME_TEXT])
{
	if (format_ms((long long)t * 1000, out))
		out[0] = '\0';
}

/* SPDX-License-Identifier: MIT */
/*
 * period.c: the periods figures cover: 7, 30 or 90 days (UTC) ending
 * today, and their bounds as text that compares with the tables' times.
 */
#include "reports.h"

#include <string.h>

#define DAY 86400

int period_days(const char *name)
{
	static const struct { const char *name; int days; } known[] = {
		{ "7d", 7 }, { "30d", 30 }, { "90d", 90 },
	};
	for (size_t i = 0; name && i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(name, known[i].name))
			return known[i].days;
	return 0;
}

void period_init(struct period *p, int days, time_t now)
{
	time_t midnight = now - now % DAY;
	p->days = days;
	p->start = midnight - (time_t)(days - 1) * DAY;
	p->first_day = (int64_t)(p->start / DAY);
	hl_time_text(p->start, p->since);
	hl_time_text(midnight + DAY, p->end);
}

void period_date(const struct period *p, int day, char out[11])
{
	struct tm tm;
	time_t t = p->start + (time_t)day * DAY;
	gmtime_r(&t, &tm);
	strftime(out, 11, "%Y-%m-%d", &tm);
}

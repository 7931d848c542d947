/* SPDX-License-Identifier: MIT */
/*
 * period.c: the periods figures cover: 7, 30 or 90 of the sub-account's
 * days ending today, and their bounds as text that compares with the
 * tables' times. Day N's date is the date of UTC day N: days are numbered
 * alike in every zone.
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

void period_init(struct period *p, struct hl_req *req, int days, time_t now)
{
	int64_t today = hl_local_day(req, now);
	p->days = days;
	p->first_day = today - (days - 1);
	p->start = (time_t)hl_day_start(req, p->first_day);
	hl_time_text(p->start, p->since);
	hl_time_text((time_t)hl_day_start(req, today + 1), p->end);
}

void period_date(const struct period *p, int day, char out[11])
{
	struct tm tm;
	time_t t = (time_t)((p->first_day + day) * DAY);
	gmtime_r(&t, &tm);
	strftime(out, 11, "%Y-%m-%d", &tm);
}

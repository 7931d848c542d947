/* SPDX-License-Identifier: MIT */
/*
 * local_days.c: the days of a request's sub-account (hl_location_zone,
 * hl_local_day, hl_day_start): its zone is read from the locations table
 * once per request and kept in the request; the arithmetic is lib/zone.h's.
 */
#include "request/request.h"

#include "lib/zone.h"

#include <string.h>

HL_API const char *hl_location_zone(struct hl_req *req)
{
	if (req->zone[0])
		return req->zone;
	strcpy(req->zone, "UTC");
	const char *zone = NULL;
	sqlite3_stmt *st = req->location_id
		? hl_scoped_read(req, "SELECT timezone FROM locations WHERE id = :location") : NULL;
	if (st && sqlite3_step(st) == SQLITE_ROW)
		zone = (const char *)sqlite3_column_text(st, 0);
	if (zone && strlen(zone) < sizeof(req->zone))
		strcpy(req->zone, zone);
	if (st)
		sqlite3_reset(st);
	return req->zone;
}

HL_API int64_t hl_local_day(struct hl_req *req, int64_t t)
{
	return zone_day(hl_location_zone(req), t);
}

HL_API int64_t hl_day_start(struct hl_req *req, int64_t day)
{
	return zone_midnight(hl_location_zone(req), day);
}

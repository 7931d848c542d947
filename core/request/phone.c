/* SPDX-License-Identifier: MIT */
/*
 * phone.c: the phone numbers of a request's sub-account (hl_location_country,
 * hl_phone_e164): its country is read from the locations table once per
 * request and kept in the request, as its time zone is (local_days.c);
 * the reading is lib/phone.h's.
 */
#include "request/request.h"

#include "lib/phone.h"

#include <string.h>

_Static_assert(HL_PHONE_MAX == PHONE_MAX, "one length for a number in E.164");

HL_API const char *hl_location_country(struct hl_req *req)
{
	if (req->country[0])
		return req->country;
	strcpy(req->country, "US");
	sqlite3_stmt *st = req->location_id
		? hl_scoped_read(req, "SELECT country FROM locations WHERE id = :location") : NULL;
	const char *country = st && sqlite3_step(st) == SQLITE_ROW
		? (const char *)sqlite3_column_text(st, 0) : NULL;
	if (country && phone_country_known(country))
		strcpy(req->country, country);
	if (st)
		sqlite3_reset(st);
	return req->country;
}

HL_API int hl_phone_e164(const char *typed, const char *country, char out[HL_PHONE_MAX])
{
	return phone_e164(typed, country, out) ? HL_EINVAL : 0;
}

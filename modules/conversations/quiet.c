/* SPDX-License-Identifier: MIT */
/*
 * quiet.c: a sub-account's quiet hours (migration 012), when marketing
 * texts are held until the morning, in its own time zone; 21:00 to 08:00
 * unless its admins set others, or none.
 *
 *   GET /api/quiet-hours    {"from": "21:00", "until": "08:00"}, or nulls
 *   PUT /api/quiet-hours    the same; nulls (or from = until): none
 *
 * A change lets the held texts go at once, to be held again by the new
 * hours if they fall in them. The outbox asks quiet_until for each
 * marketing text it is about to hand over.
 */
#include "conversations.h"

#include <stdio.h>
#include <string.h>

/* The defaults, as the SQL writes them. */
#define DEFAULT_STARTS_TEXT "1260"
#define DEFAULT_ENDS_TEXT "480"
/* The sub-account's hours with their defaults, as minutes s and e. */
#define HOURS_SQL_AS_SE \
	"SELECT coalesce(q.starts_min, " DEFAULT_STARTS_TEXT ") AS s, coalesce(q.ends_min, " \
	DEFAULT_ENDS_TEXT ") AS e FROM (SELECT :location AS id) l" \
	" LEFT JOIN message_quiet_hours q ON q.location_id = l.id"

int64_t quiet_until(struct hl_job_run *run, int64_t location, int64_t now_s, int *until_min)
{
	sqlite3_stmt *st = hl_stmt_scoped(hl_job_db(run), location,
		"SELECT coalesce(q.starts_min, " DEFAULT_STARTS_TEXT "), coalesce(q.ends_min, "
		DEFAULT_ENDS_TEXT "), day_start(local_day(:now, l.timezone), l.timezone),"
		" day_start(local_day(:now, l.timezone) + 1, l.timezone)"
		" FROM locations l LEFT JOIN message_quiet_hours q ON q.location_id = l.id"
		" WHERE l.id = :location");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":now", now_s);
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(st);
		return rc == SQLITE_DONE ? 0 : HL_EDB;
	}
	int64_t starts = sqlite3_column_int64(st, 0), ends = sqlite3_column_int64(st, 1);
	int64_t midnight = sqlite3_column_int64(st, 2), next = sqlite3_column_int64(st, 3);
	sqlite3_reset(st);
	int64_t minute = (now_s - midnight) / 60;
	*until_min = (int)ends;
	if (starts == ends)
		return 0;
	if (starts < ends) /* within a day: 01:00 to 06:00 */
		return minute >= starts && minute < ends ? midnight + ends * 60 : 0;
	if (minute >= starts) /* across midnight: 21:00 to 08:00, late evening */
		return next + ends * 60;
	return minute < ends ? midnight + ends * 60 : 0; /* early morning */
}

static int reply_hours(struct hl_req *req)
{
	sqlite3_stmt *st = hl_scoped_read(req, "SELECT iif(s = e, NULL, printf('%02d:%02d', s / 60,"
		" s % 60)) AS \"from\", iif(s = e, NULL, printf('%02d:%02d', e / 60, e % 60)) AS until"
		" FROM (" HOURS_SQL_AS_SE ")");
	return hl_reply_row(req, 200, st, "quiet hours");
}

int conv_quiet_hours_get(struct hl_req *req)
{
	return reply_hours(req);
}

/* "21:00" as minutes after midnight: 0, or HL_EINVAL after a 422. */
static int read_time(struct hl_req *req, const char *member, int *out)
{
	const char *text;
	int h, m, n = 0;
	if (hl_field_text(req, 0, member, 5, &text) < 0)
		return HL_EINVAL;
	if (!text) {
		*out = -1;
		return 0;
	}
	if (sscanf(text, "%2d:%2d%n", &h, &m, &n) != 2 || n != 5 || h < 0 || h > 23 || m < 0 || m > 59)
		return hl_reply_invalid(req, member, "a time of day, 21:00");
	*out = h * 60 + m;
	return 0;
}

int conv_quiet_hours_put(struct hl_req *req)
{
	static const char *const keys[] = { "from", "until", NULL };
	int from, until;
	if (hl_fields_only(req, 0, keys) || read_time(req, "from", &from) ||
	    read_time(req, "until", &until))
		return HL_EINVAL;
	if ((from < 0) != (until < 0))
		return hl_reply_invalid(req, "until", "give both times, or neither for no quiet hours");
	if (from < 0)
		from = until = 0; /* none */
	if (!hl_write_begin(req))
		return HL_EDB;
	sqlite3_stmt *st = hl_scoped_write(req, "INSERT INTO message_quiet_hours (location_id,"
		" starts_min, ends_min) VALUES (:location, :from, :until) ON CONFLICT (location_id)"
		" DO UPDATE SET starts_min = excluded.starts_min, ends_min = excluded.ends_min");
	hl_bind_int(st, ":from", from);
	hl_bind_int(st, ":until", until);
	if (hl_step_changes(st) < 0)
		return HL_EDB;
	/* What the old hours held is looked at again now. */
	st = hl_scoped_write(req, "UPDATE outbox SET due_at = 0 WHERE location_id = :location"
		" AND due_at > 0 AND message_id IN (SELECT id FROM messages WHERE location_id = :location"
		" AND marketing AND status = 'queued')");
	if (hl_step_changes(st) < 0)
		return HL_EDB;
	return reply_hours(req);
}

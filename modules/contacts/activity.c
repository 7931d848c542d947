/* SPDX-License-Identifier: MIT */
/*
 * activity.c: the activity counts of a contact's record. Other modules
 * publish what happens around a contact (a message received, a task
 * completed, a deal won) with the contact's id in the event's data; this
 * handler counts each kind per contact in contact_activity, which the
 * record reads. Counting events keeps the contacts module free of other
 * modules' tables; contacts.c lists the nouns whose events are counted.
 */
#include "contacts.h"

/* One more of `ev->name` for the contact its data names, when that is a
 * contact of the event's location (anything else is not ours to count). */
int activity_count(struct hl_job_run *run, const struct hl_event *ev)
{
	sqlite3_stmt *st = hl_stmt(hl_job_db(run),
		"INSERT INTO contact_activity (contact_id, kind, location_id, count, last_at)"
		" SELECT id, ?2, location_id, 1, strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM contacts"
		" WHERE id = json_extract(?1, '$.contact_id') AND location_id = ?3"
		" ON CONFLICT DO UPDATE SET count = count + 1, last_at = excluded.last_at");
	if (!st)
		return HL_EDB;
	sqlite3_bind_text(st, 1, ev->data, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, ev->name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, ev->location_id);
	return sqlite3_step(st) == SQLITE_DONE ? 0 : HL_EDB;
}

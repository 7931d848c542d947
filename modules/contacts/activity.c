/* SPDX-License-Identifier: MIT */
/*
 * activity.c: the activity counts of a contact's record. Other modules
 * publish what happens around a contact (a message received, a task
 * completed, a deal won) with the contact's id in the event's data; this
 * handler counts each kind per contact, and per user the event's record
 * is assigned to, in contact_activity, which the record reads (a user who
 * sees only what is assigned to them, their own and everyone's). Counting
 * events keeps the contacts module free of other modules' tables;
 * contacts.c lists the nouns whose events are counted.
 */
#include "contacts.h"

/* One more of `ev->name` for the contact its data names, when that is a
 * contact of the event's location (anything else is not ours to count). */
int activity_count(struct hl_job_run *run, const struct hl_event *ev)
{
	sqlite3_stmt *st = hl_stmt_scoped(hl_job_db(run), ev->location_id,
		"INSERT INTO contact_activity (contact_id, kind, assigned_to, location_id, count, last_at)"
		" SELECT id, :kind, :assigned_to, location_id, 1, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
		" FROM contacts WHERE id = json_extract(:data, '$.contact_id') AND location_id = :location"
		" ON CONFLICT DO UPDATE SET count = count + 1, last_at = excluded.last_at");
	hl_bind_text(st, ":data", ev->data);
	hl_bind_text(st, ":kind", ev->name);
	hl_bind_int(st, ":assigned_to", ev->assigned_to);
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

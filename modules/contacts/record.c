/* SPDX-License-Identifier: MIT */
/*
 * record.c: GET /api/contacts/:id, one contact with its tags, custom field
 * values (typed as their fields say), its five most recent notes, the
 * number of notes and the activity counts of activity.c, in one statement.
 */
#include "contacts.h"

/* The activity an "assigned only" caller (:me) counts: of their records
 * and everyone's (activity.c; -1 is HL_EVERYONE). */
#define ACTIVITY_MINE " AND (:me = 0 OR assigned_to IN (:me, -1))"
_Static_assert(HL_EVERYONE == -1, "ACTIVITY_MINE names everyone's activity -1");

int contacts_reply_record(struct hl_req *req, int status, int64_t id)
{
	return hl_reply_record(req, status, id, "contact",
		"SELECT c.id, c.first_name, c.last_name, c.email, c.phone, c.phone_typed, c.company_id,"
		" c.company_name, c.source, c.owner_id, c.health_score, c.created_at, c.updated_at,"
		" (SELECT json_group_array(json_object('id', t.id, 'name', t.name, 'color', t.color))"
		"  FROM contact_tags ct JOIN tags t ON t.id = ct.tag_id WHERE ct.contact_id = c.id)"
		"  AS json_tags,"
		" (SELECT json_group_object(f.key, CASE f.type"
		"   WHEN 'number' THEN v.value + 0"
		"   WHEN 'checkbox' THEN json(CASE v.value WHEN 'true' THEN 'true' ELSE 'false' END)"
		"   ELSE v.value END)"
		"  FROM custom_values v JOIN custom_fields f ON f.id = v.field_id"
		"  WHERE v.contact_id = c.id) AS json_custom_fields,"
		" (SELECT json_group_array(json_object('id', n.id, 'body', n.body,"
		"   'author_id', n.author_id, 'created_at', n.created_at))"
		"  FROM (SELECT * FROM notes WHERE contact_id = c.id ORDER BY id DESC LIMIT 5) n)"
		"  AS json_recent_notes,"
		" (SELECT count(*) FROM notes WHERE contact_id = c.id) AS notes_count,"
		" (SELECT json_group_object(kind, n) FROM (SELECT kind, sum(count) AS n"
		"  FROM contact_activity WHERE contact_id = c.id" ACTIVITY_MINE " GROUP BY kind))"
		"  AS json_activity,"
		" (SELECT max(last_at) FROM contact_activity WHERE contact_id = c.id" ACTIVITY_MINE ")"
		"  AS last_activity_at"
		" FROM contacts c WHERE c.id = :id AND c.location_id = :location AND c.deleted_at IS NULL"
		CONTACT_MINE("c."));
}

int contacts_record(struct hl_req *req)
{
	int64_t id;
	if (hl_param_id(req, "id", &id))
		return 0;
	return contacts_reply_record(req, 200, id);
}

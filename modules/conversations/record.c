/* SPDX-License-Identifier: MIT */
/*
 * record.c: one conversation with its contact's name, as the writes
 * answer it (GET /api/conversations/:id is the same, as data in
 * conversations.c). And conv_find and conv_contact_visible, which the
 * handlers use to learn whether the caller may see a conversation, or a
 * contact.
 */
#include "conversations.h"

#include <stdio.h>

int conv_reply_record(struct hl_req *req, int status, int64_t id)
{
	return hl_reply_record(req, status, id, "conversation", CONVERSATION_RECORD_SQL);
}

int conv_find(struct hl_req *req, int64_t id, struct conversation *out)
{
	sqlite3_stmt *st = hl_scoped_read(req, "SELECT contact_id, channel FROM conversations"
		" WHERE id = :id AND location_id = :location AND (:me = 0 OR assigned_to = :me)");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":id", id);
	hl_bind_int(st, ":me", hl_assigned_user(req));
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? 0 : HL_EDB;
	out->id = id;
	out->contact = sqlite3_column_int64(st, 0);
	const char *channel = (const char *)sqlite3_column_text(st, 1);
	snprintf(out->channel, sizeof(out->channel), "%s", channel ? channel : "");
	sqlite3_reset(st);
	return 1;
}

int conv_contact_visible(struct hl_req *req, int64_t contact)
{
	return (int)hl_scoped_read_int(req, "SELECT 1 FROM contacts WHERE id = :id"
				       " AND location_id = :location AND deleted_at IS NULL"
				       " AND (:me = 0 OR owner_id = :me)", contact);
}

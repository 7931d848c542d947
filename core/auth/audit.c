/* SPDX-License-Identifier: MIT */
/*
 * audit.c: writing the audit log (see audit.h).
 */
#include "auth/audit.h"
#include "auth/auth.h"
#include "db/db.h"
#include "server.h"

static int insert(struct hl_req *r, struct hl_db *w, int64_t user, const char *action,
		  const char *entity, int64_t id)
{
	sqlite3_stmt *st = hl_stmt(w,
		"INSERT INTO audit_log (agency_id, user_id, location_id, action, entity, entity_id, client)"
		" VALUES (COALESCE(NULLIF(:agency, 0),"
		"  (SELECT agency_id FROM users WHERE id = :user)),"
		" NULLIF(:user, 0), NULLIF(:current_location, 0), :action, :entity,"
		" NULLIF(:entity_id, 0), :client)");
	hl_bind_int(st, ":agency", r->who.agency_id);
	hl_bind_int(st, ":user", r->who.user_id ? r->who.user_id : user);
	hl_bind_int(st, ":current_location", r->location_id);
	hl_bind_text(st, ":action", action);
	hl_bind_text(st, ":entity", entity);
	hl_bind_int(st, ":entity_id", id);
	hl_bind_text(st, ":client", auth_client(r));
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

int audit_note(struct hl_req *r, int64_t user, const char *action, const char *entity,
	       int64_t id)
{
	if (r->writer)
		return insert(r, r->writer, user, action, entity, id);
	struct db *db = r->srv->db;
	struct hl_db *w = db_write_lock(db);
	int rc = db_begin(w) || insert(r, w, user, action, entity, id) || db_commit(w) ? HL_EDB : 0;
	if (rc)
		db_rollback(w);
	db_write_unlock(db, w);
	return rc;
}

int audit_module_writes(struct hl_req *r)
{
	struct hl_db *w = r->writer;
	db_record_changes(w, 0); /* our own inserts are not to be noted */
	const struct db_changes *ch = db_recorded_changes(w);
	for (size_t i = 0; i < ch->n; i++)
		if (insert(r, w, 0, ch->list[i].op, ch->list[i].table, ch->list[i].rowid))
			return HL_EDB;
	if (ch->more && insert(r, w, 0, "more_changes", NULL, (int64_t)ch->more))
		return HL_EDB;
	return 0;
}

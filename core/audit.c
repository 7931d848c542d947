/* SPDX-License-Identifier: MIT */
/*
 * audit.c: writing the audit log (see audit.h).
 */
#include "audit.h"
#include "auth.h"
#include "db.h"
#include "server.h"

static int insert(struct hl_req *r, struct hl_db *w, int64_t user, const char *action,
		  const char *entity, int64_t id)
{
	sqlite3_stmt *st = hl_stmt(w,
		"INSERT INTO audit_log (agency_id, user_id, location_id, action, entity, entity_id, client)"
		" VALUES (COALESCE(NULLIF(?1, 0), (SELECT agency_id FROM users WHERE id = ?2)),"
		" NULLIF(?2, 0), NULLIF(?3, 0), ?4, ?5, NULLIF(?6, 0), ?7)");
	if (!st)
		return HL_EDB;
	sqlite3_bind_int64(st, 1, r->who.agency_id);
	sqlite3_bind_int64(st, 2, r->who.user_id ? r->who.user_id : user);
	sqlite3_bind_int64(st, 3, r->location_id);
	sqlite3_bind_text(st, 4, action, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, entity, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 6, id);
	sqlite3_bind_text(st, 7, auth_client(r), -1, SQLITE_TRANSIENT);
	return sqlite3_step(st) == SQLITE_DONE ? 0 : HL_EDB;
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

/* GET /api/admin/audit?limit=N&cursor=C[&location=L][&user=U]
 * [&action=A][&entity=E]: the agency's entries, newest first; those of
 * one sub-account, one person, one action or one kind of record when
 * asked. The whole agency's unless `location` says otherwise: the
 * browser's current sub-account does not narrow it. */
static int list_audit(struct hl_req *r)
{
	int64_t limit, cursor, user, location;
	if (hl_query_int(r, "limit", 50, 1, 1000, &limit) ||
	    hl_query_int(r, "cursor", INT64_MAX, 1, INT64_MAX, &cursor) ||
	    hl_query_int(r, "location", 0, 1, INT64_MAX, &location) ||
	    hl_query_int(r, "user", 0, 1, INT64_MAX, &user))
		return 0;
	sqlite3_stmt *st = hl_stmt(hl_read(r),
		"SELECT id, at, user_id, location_id, action, entity, entity_id, client FROM audit_log"
		" WHERE agency_id = ?1 AND id < ?2 AND (?3 = 0 OR location_id = ?3)"
		" AND (?5 = 0 OR user_id = ?5) AND (?6 IS NULL OR action = ?6)"
		" AND (?7 IS NULL OR entity = ?7) ORDER BY id DESC LIMIT ?4");
	if (!st)
		return HL_EDB;
	sqlite3_bind_int64(st, 1, r->who.agency_id);
	sqlite3_bind_int64(st, 2, cursor);
	sqlite3_bind_int64(st, 3, location);
	sqlite3_bind_int64(st, 4, limit + 1);
	sqlite3_bind_int64(st, 5, user);
	sqlite3_bind_text(st, 6, hl_query(r, "action"), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, hl_query(r, "entity"), -1, SQLITE_STATIC);
	return hl_reply_page(r, st, limit, 0);
}

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/admin/audit", .handler = list_audit,
	  .access = HL_ACCESS_ADMIN, .flags = HL_ROUTE_NO_LOCATION },
};

int audit_register(struct router *rt)
{
	return router_add_table(rt, routes, sizeof(routes) / sizeof(routes[0]), "core");
}

/* SPDX-License-Identifier: MIT */
/*
 * audit_log.c: GET /api/admin/audit, the audit log as agency admins read
 * it: "Ana Ruiz changed invoice INV-00001", and the choices of its
 * filters. The entries are written by auth/audit.c; nothing here writes.
 */
#include "admin/admin.h"
#include "auth/audit.h"
#include "request/request.h"
#include "request/router.h"
#include "server.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* What each stored action reads as: "Ana Ruiz changed invoice INV-1". An
 * action not here reads as itself, its dots as spaces. */
#define ACTIONS(X)                                                                    \
	X("insert", "created") X("update", "changed") X("delete", "deleted")          \
	X("more_changes", "changed") X("login", "signed in")                          \
	X("login.failed", "failed to sign in") X("logout", "signed out")              \
	X("user.created", "created") X("user.updated", "changed")                     \
	X("user.disabled", "disabled") X("user.password_reset", "reset the password of") \
	X("location.created", "created") X("location.updated", "changed")             \
	X("location.disabled", "disabled") X("token.created", "created")              \
	X("token.revoked", "revoked") X("agency.updated", "changed")                  \
	X("agency.logo_changed", "changed the logo of")                               \
	X("agency.logo_removed", "removed the logo of")                               \
	X("location.logo_changed", "changed the logo of")                             \
	X("location.logo_removed", "removed the logo of")                             \
	X("password.changed", "changed their password") X("password.change_failed",    \
	"failed to change their password") X("sessions.ended", "signed out a device")      \
	X("user.invited", "invited") X("user.invitation_revoked", "revoked the invitation of") \
	X("user.reset_link", "made a password reset link for")                          \
	X("invitation.accepted", "accepted their invitation")                           \
	X("password.reset", "chose a new password by link")                             \
	X("password.reset_asked", "asked for a new password")                           \
	X("password.reset_refused", "asked for a new password")
#define AS_JSON(stored, shown) "\"" stored "\":\"" shown "\","
#define AS_ENTRY(stored, shown) { stored, shown },

static const char actions_shown[] = "{" ACTIONS(AS_JSON) "\"\":\"\"}";
static const struct {
	const char *stored, *shown;
} actions[] = { ACTIONS(AS_ENTRY) };

/* A filter names an action or a kind as read ("created") or as stored
 * ("user.created"); it matches these many stored values at most. */
#define MATCHES 6

static void bind_matches(sqlite3_stmt *st, const char *prefix, const char *const *v, int n)
{
	for (int i = 0; i < MATCHES; i++) {
		char name[16];
		snprintf(name, sizeof(name), ":%s%d", prefix, i);
		hl_bind_text(st, name, i < n ? v[i] : NULL);
	}
}

/* The stored actions `asked` stands for: itself, and those read so. */
static int action_matches(const char *asked, const char **out)
{
	int n = 0;
	out[n++] = asked;
	for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]) && n < MATCHES; i++)
		if (!strcmp(actions[i].shown, asked))
			out[n++] = actions[i].stored;
	return n;
}

/* What a person does to their own account, read without a record:
 * "Ana Ruiz signed in". */
#define SELF_ACTIONS "'login', 'login.failed', 'logout', 'password.changed'," \
	" 'password.change_failed', 'sessions.ended', 'invitation.accepted', 'password.reset'," \
	" 'password.reset_asked', 'password.reset_refused'"
/* An entry as people read it: who (a name), in which sub-account, did
 * what (`did`) to which kind of record (`kind`) named how (`label`, read
 * when the entry was made; for older entries the core's records are
 * named as they are now, a module's by "#id" on the page). What a person
 * does to their own account (SELF_ACTIONS) names no record. The stored
 * action and entity stay, for scripts. */
#define READABLE_ENTRY                                                                  \
	"SELECT a.id, a.at, a.user_id, u.name AS who, a.location_id, l.name AS location,"     \
	" a.action, COALESCE(json_extract(:actions, '$.\"' || a.action || '\"'),"             \
	"  replace(a.action, '.', ' ')) AS did,"                                           \
	" a.entity, CASE WHEN a.action IN (" SELF_ACTIONS ") THEN NULL"                       \
	"  ELSE COALESCE(json_extract(:kinds, '$.\"' || a.entity || '\"'),"                   \
	"  replace(a.entity, '_', ' ')) END AS kind, a.entity_id,"                           \
	" CASE WHEN a.action IN (" SELF_ACTIONS ") THEN NULL"                                 \
	"  WHEN a.action = 'more_changes' THEN a.entity_id || ' more rows'"                   \
	"  ELSE COALESCE(a.label, CASE a.entity"                                              \
	"  WHEN 'user' THEN (SELECT name FROM users WHERE id = a.entity_id)"                  \
	"  WHEN 'location' THEN (SELECT name FROM locations WHERE id = a.entity_id)"          \
	"  WHEN 'api_token' THEN (SELECT name FROM api_tokens WHERE id = a.entity_id)"        \
	"  WHEN 'agency' THEN (SELECT name FROM agencies WHERE id = a.entity_id) END)"       \
	" END AS label, a.client"                                                             \
	" FROM audit_log a LEFT JOIN users u ON u.id = a.user_id"                             \
	" LEFT JOIN locations l ON l.id = a.location_id"

/* GET /api/admin/audit?limit=N&cursor=C[&location=L][&user=U]
 * [&action=A][&entity=E]: the agency's entries, newest first, as people
 * read them (READABLE_ENTRY); those of one sub-account, one person, one
 * action (as read, "created", or as stored, "user.created") or one kind
 * of record (as read, "invoice", or as stored) when asked. The whole
 * agency's unless `location` says otherwise: the browser's current
 * sub-account does not narrow it. The choices are at
 * /api/admin/audit/choices. */
static int list_audit(struct hl_req *r)
{
	int64_t limit, cursor, user, location;
	if (hl_query_int(r, "limit", 50, 1, 1000, &limit) ||
	    hl_query_int(r, "cursor", INT64_MAX, 1, INT64_MAX, &cursor) ||
	    hl_query_int(r, "location", 0, 1, INT64_MAX, &location) ||
	    hl_query_int(r, "user", 0, 1, INT64_MAX, &user))
		return 0;
	sqlite3_stmt *st = hl_stmt(hl_read(r), READABLE_ENTRY
		" WHERE a.agency_id = :agency AND a.id < :cursor"
		" AND (:only_location = 0 OR a.location_id = :only_location)"
		" AND (:user = 0 OR a.user_id = :user)"
		" AND (:a0 IS NULL OR a.action IN (:a0, :a1, :a2, :a3, :a4, :a5))"
		" AND (:e0 IS NULL OR a.entity IN (:e0, :e1, :e2, :e3, :e4, :e5))"
		" ORDER BY a.id DESC LIMIT :limit");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":agency", r->who.agency_id);
	hl_bind_int(st, ":cursor", cursor);
	hl_bind_int(st, ":only_location", location);
	hl_bind_int(st, ":limit", limit + 1);
	hl_bind_int(st, ":user", user);
	const char *action = hl_query(r, "action"), *entity = hl_query(r, "entity");
	const char *match[MATCHES];
	if (action)
		bind_matches(st, "a", match, action_matches(action, match));
	if (entity) {
		match[0] = entity;
		bind_matches(st, "e", match, 1 + audit_kind_entities(r->srv->audit_kinds, entity,
								     match + 1, MATCHES - 1));
	}
	hl_bind_text(st, ":actions", actions_shown);
	hl_bind_text(st, ":kinds", audit_kind_names(r->srv->audit_kinds));
	return hl_reply_page(r, st, limit, 0);
}

/* GET /api/admin/audit/choices: what the log's filters offer, as select
 * lists: the actions and kinds of record as people read them ({name},
 * each also the filter's value), the agency's people and sub-accounts
 * ({id, name}). From these lists, not from the log: bounded, whatever
 * its length. */
static int audit_choices(struct hl_req *r)
{
	struct hl_db *db = hl_read(r);
	sqlite3_stmt *done = hl_stmt(db,
		"SELECT DISTINCT value AS name FROM json_each(:actions) WHERE key <> '' ORDER BY 1");
	sqlite3_stmt *kinds = hl_stmt(db,
		"SELECT DISTINCT value AS name FROM json_each(:kinds) ORDER BY 1");
	sqlite3_stmt *people = hl_stmt(db,
		"SELECT id, name FROM users WHERE agency_id = :agency ORDER BY name, id LIMIT 1000");
	sqlite3_stmt *places = hl_stmt(db,
		"SELECT id, name FROM locations WHERE agency_id = :agency ORDER BY name, id LIMIT 1000");
	if (!done || !kinds || !people || !places)
		return HL_EDB;
	hl_bind_text(done, ":actions", actions_shown);
	hl_bind_text(kinds, ":kinds", audit_kind_names(r->srv->audit_kinds));
	hl_bind_int(people, ":agency", r->who.agency_id);
	hl_bind_int(places, ":agency", r->who.agency_id);
	struct hl_json *j = hl_reply_json(r, 200);
	hl_json_object(j);
	hl_json_key(j, "actions");
	int rc = hl_json_rows(j, done);
	hl_json_key(j, "kinds");
	rc = rc ? rc : hl_json_rows(j, kinds);
	hl_json_key(j, "people");
	rc = rc ? rc : hl_json_rows(j, people);
	hl_json_key(j, "locations");
	rc = rc ? rc : hl_json_rows(j, places);
	hl_json_object_end(j);
	return rc;
}

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/admin/audit", .handler = list_audit,
	  .access = HL_ACCESS_ADMIN, .flags = HL_ROUTE_NO_LOCATION },
	{ .method = "GET", .pattern = "/api/admin/audit/choices", .handler = audit_choices,
	  .access = HL_ACCESS_ADMIN, .flags = HL_ROUTE_NO_LOCATION },
};

int audit_log_register(struct router *rt)
{
	return router_add_table(rt, routes, sizeof(routes) / sizeof(routes[0]), "core");
}

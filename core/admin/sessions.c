/* SPDX-License-Identifier: MIT */
/*
 * sessions.c: the caller's own sessions, one per browser they signed in
 * with: listed (where from, when last active, which is this one) and
 * signed out one by one or all but this one, as a lost phone or a shared
 * computer needs. A session is named by the first 8 bytes of its token's
 * hash, in hex: enough to tell a person's few apart, and nothing from
 * which the token could be had. Signing in is accounts.c's.
 */
#include "admin/admin.h"
#include "auth/audit.h"
#include "auth/auth.h"
#include "request/request.h"
#include "request/router.h"
#include "server.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* A session's name, as the list gives it. */
#define SESSION_ID "lower(hex(substr(token_hash, 1, 8)))"
/* A person signs in on a few devices; the list stops here. */
#define SESSIONS_SHOWN 200

/* A session's own business: an API token (a script, an integration)
 * neither sees where its owner signs in nor signs them out. 1 after
 * answering 403. */
static int refused(struct hl_req *req)
{
	if (!req->who.token_id)
		return 0;
	hl_reply_error(req, 403, "forbidden", "sign in to see or end your sessions: an API token"
		       " cannot");
	return 1;
}

/* GET /api/auth/sessions: the caller's live sessions, the most recently
 * active first: {"data": [{"id", "current", "client", "user_agent",
 * "created_at", "active_at", "expires_at"}]}. "active_at" moves at most
 * hourly, when the session is renewed. */
static int list_sessions(struct hl_req *req)
{
	if (refused(req))
		return 0;
	sqlite3_stmt *st = hl_stmt(hl_read(req), "SELECT " SESSION_ID " AS id,"
		" iif(token_hash = :session, 'true', 'false') AS json_current, client, user_agent,"
		" created_at, strftime('%Y-%m-%dT%H:%M:%SZ', renewed_at, 'unixepoch') AS active_at,"
		" strftime('%Y-%m-%dT%H:%M:%SZ', expires_at, 'unixepoch') AS expires_at"
		" FROM sessions WHERE user_id = :user AND expires_at > :now"
		" ORDER BY token_hash = :session DESC, renewed_at DESC LIMIT :limit");
	if (!st)
		return HL_EDB;
	hl_bind_blob(st, ":session", req->who.session, 32);
	hl_bind_int(st, ":user", req->who.user_id);
	hl_bind_int(st, ":now", (int64_t)time(NULL));
	hl_bind_int(st, ":limit", SESSIONS_SHOWN);
	return hl_reply_page(req, st, INT64_MAX, 0);
}

/* Runs `sql`, a DELETE of the caller's sessions, with :id bound to `id`
 * (may be NULL): the number it ended, or HL_EDB. */
static int64_t end_sessions(struct hl_req *req, const char *sql, const char *id)
{
	sqlite3_stmt *st = hl_stmt(hl_write_begin(req), sql);
	hl_bind_int(st, ":user", req->who.user_id);
	hl_bind_blob(st, ":session", req->who.session, 32);
	hl_bind_text(st, ":id", id);
	int64_t ended = hl_step_changes(st);
	if (ended > 0 && audit_note(req, 0, "sessions.ended", "user", req->who.user_id))
		return HL_EDB;
	auth_rights_changed(req, req->who.user_id, 0);
	return ended;
}

/* DELETE /api/auth/sessions/:id: 204, that session signed out (this one
 * too: it is then a sign-out, the cookie cleared). */
static int end_session(struct hl_req *req)
{
	const char *id = hl_param(req, "id");
	if (refused(req))
		return 0;
	if (!id || strlen(id) != 16 || strspn(id, "0123456789abcdef") != 16)
		return hl_reply_error(req, 404, "not_found", "no such session");
	int64_t ended = end_sessions(req, "DELETE FROM sessions WHERE user_id = :user"
				     " AND " SESSION_ID " = :id", id);
	if (ended <= 0)
		return ended ? (int)ended : hl_reply_error(req, 404, "not_found", "no such session");
	char mine[17];
	for (int i = 0; i < 8; i++)
		snprintf(mine + 2 * i, 3, "%02x", req->who.session[i]);
	if (!strcmp(id, mine))
		auth_set_cookie(req, "", 0); /* the browser forgets it too */
	return hl_reply_empty(req);
}

/* DELETE /api/auth/sessions: every session but this one signed out. */
static int end_other_sessions(struct hl_req *req)
{
	if (refused(req))
		return 0;
	int64_t ended = end_sessions(req, "DELETE FROM sessions WHERE user_id = :user"
				     " AND token_hash <> :session", NULL);
	return ended < 0 ? (int)ended : hl_reply_empty(req);
}

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/auth/sessions", .handler = list_sessions,
	  .flags = HL_ROUTE_NO_LOCATION },
	{ .method = "DELETE", .pattern = "/api/auth/sessions", .handler = end_other_sessions,
	  .flags = HL_ROUTE_NO_LOCATION },
	{ .method = "DELETE", .pattern = "/api/auth/sessions/:id", .handler = end_session,
	  .flags = HL_ROUTE_NO_LOCATION },
};

int sessions_register(struct router *rt)
{
	return router_add_table(rt, routes, sizeof(routes) / sizeof(routes[0]), "core");
}

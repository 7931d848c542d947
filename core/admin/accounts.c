/* SPDX-License-Identifier: MIT */
/*
 * accounts.c: the core's routes for signing in and out, the caller's own
 * account, their password and their API tokens (their sessions:
 * sessions.c). Users and locations are managed in
 * users.c; who may open what is decided in auth.c.
 */
#include "admin/admin.h"
#include "auth/audit.h"
#include "auth/auth.h"
#include "auth/password.h"
#include "lib/log.h"
#include "lib/ratelimit.h"
#include "server.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static int login(struct hl_req *req);
static int logout(struct hl_req *req);
static int me(struct hl_req *req);
static int list_tokens(struct hl_req *req);
static int create_token(struct hl_req *req);
static int revoke_token(struct hl_req *req);
static int change_password(struct hl_req *req);

static const struct hl_route routes[] = {
	{ .method = "POST", .pattern = "/api/auth/login", .handler = login,
	  .access = HL_ACCESS_PUBLIC },
	{ .method = "POST", .pattern = "/api/auth/logout", .handler = logout,
	  .flags = HL_ROUTE_NO_LOCATION },
	{ .method = "GET", .pattern = "/api/auth/me", .handler = me, .access = HL_ACCESS_PUBLIC,
	  .flags = HL_ROUTE_NO_LOCATION },
	{ .method = "GET", .pattern = "/api/auth/tokens", .handler = list_tokens,
	  .flags = HL_ROUTE_NO_LOCATION },
	{ .method = "POST", .pattern = "/api/auth/tokens", .handler = create_token,
	  .flags = HL_ROUTE_NO_LOCATION },
	{ .method = "DELETE", .pattern = "/api/auth/tokens/:id", .handler = revoke_token,
	  .flags = HL_ROUTE_NO_LOCATION },
	{ .method = "POST", .pattern = "/api/auth/password", .handler = change_password,
	  .flags = HL_ROUTE_NO_LOCATION },
};

int accounts_register(struct router *r)
{
	return router_add_table(r, routes, sizeof(routes) / sizeof(routes[0]), "core");
}

/* A string member of the body, or NULL after answering 422. */
static const char *required_string(struct hl_req *req, const char *key, size_t max)
{
	const char *v = hl_body_string(req, hl_body_find(req, 0, key));
	if (!v || !*v || strlen(v) > max) {
		hl_reply_error(req, 422, "validation", "%s is required (at most %zu characters)",
			       key, max);
		return NULL;
	}
	return v;
}

/* ---- signing in and out ----------------------------------------------- */

/* The account behind `email`: its id and hash (0 and NULL for none), or
 * -1 when the database failed. The read connection goes back to the pool
 * before the slow password check, so sign-ins never hold one while they
 * wait for a hashing slot. */
static int64_t find_account(struct hl_req *req, const char *email, const char **hash)
{
	*hash = NULL;
	sqlite3_stmt *st = hl_stmt(hl_read(req), "SELECT id, password_hash FROM users"
						 " WHERE email = :email AND disabled_at IS NULL");
	if (!st)
		return -1;
	hl_bind_text(st, ":email", email);
	int step = sqlite3_step(st);
	int64_t id = step == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	const char *h = step == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 1) : NULL;
	*hash = h ? hl_strndup(req, h, strlen(h)) : NULL;
	request_return_reader(req);
	return step == SQLITE_ROW || step == SQLITE_DONE ? id : -1;
}

int accounts_start_session(struct hl_req *req, int64_t user)
{
	char token[TOKEN_TEXT];
	auth_token_new("", token, req->who.session);
	int64_t now = (int64_t)time(NULL), lifetime = CONFIG_LIVE(req->srv->cfg, session_days) * 86400;
	sqlite3_stmt *st = hl_stmt(hl_write_begin(req),
		"INSERT INTO sessions (token_hash, user_id, expires_at, renewed_at, client, user_agent)"
		" VALUES (:session, :user, :expires_at, :now, :client, substr(:user_agent, 1, 200))");
	hl_bind_blob(st, ":session", req->who.session, 32);
	hl_bind_int(st, ":user", user);
	hl_bind_int(st, ":expires_at", now + lifetime);
	hl_bind_int(st, ":now", now);
	hl_bind_text(st, ":client", auth_client(req));
	hl_bind_text(st, ":user_agent", hl_header(req, "User-Agent"));
	if (hl_step_changes(st) < 0)
		return HL_EDB;
	auth_set_cookie(req, token, lifetime);
	return 0;
}

/* The keys a sign-in attempt was counted under; `table` is NULL until it
 * was counted against the account. */
struct attempt {
	struct limiter *table;
	char account[300];
	char client[80];
};

/* Count the attempt against the address first, so an address over its
 * limit takes no other slot. 0 to go on; -1 after answering 429. */
static int count_client(struct hl_req *req, struct attempt *a)
{
	struct limit l;
	a->table = NULL;
	snprintf(a->client, sizeof(a->client), "client:%s", auth_client_key(req));
	if (limiter_hit(req->srv->login_guess_limit, a->client,
			CONFIG_LIVE(req->srv->cfg, login_attempts_per_client), &l))
		return 0;
	auth_too_many(req, &l, "too many failed sign-ins");
	return -1;
}

/* Count it against the account before the password is checked, so
 * concurrent guesses cannot all slip in under the limit. An account that
 * exists is counted in the strict table, where no flood can push its
 * count out; an e-mail without one in the lenient table, so made-up
 * e-mails never fill the strict one, yet are refused after as many tries
 * as a real account (which tells nobody which e-mails exist). 0 to go on;
 * -1 after answering 429. */
static int count_account(struct hl_req *req, int64_t user, const char *email,
			 struct attempt *a)
{
	struct limit l;
	struct limiter *table = user ? req->srv->login_limit : req->srv->login_guess_limit;
	if (user)
		snprintf(a->account, sizeof(a->account), "user:%lld", (long long)user);
	else
		snprintf(a->account, sizeof(a->account), "email:%s", email);
	for (char *p = a->account; *p; p++) /* e-mails are compared without case */
		*p = (char)tolower((unsigned char)*p);
	if (limiter_hit(table, a->account, CONFIG_LIVE(req->srv->cfg, login_attempts), &l)) {
		a->table = table;
		return 0;
	}
	limiter_refund(req->srv->login_guess_limit, a->client);
	auth_too_many(req, &l, "too many failed sign-ins");
	return -1;
}

/* A good sign-in, or one the server failed, does not count. */
static void refund_attempt(struct hl_req *req, const struct attempt *a)
{
	if (a->table)
		limiter_refund(a->table, a->account);
	limiter_refund(req->srv->login_guess_limit, a->client);
}

/* POST /api/auth/login {"email", "password"} */
static int login(struct hl_req *req)
{
	struct attempt a;
	const char *hash;
	memset(&req->who, 0, sizeof(req->who)); /* a session of someone else does not count */
	const char *email = required_string(req, "email", 254);
	const char *password = email ? required_string(req, "password", PASSWORD_MAX) : NULL;
	if (!password || count_client(req, &a))
		return 0;
	int64_t user = find_account(req, email, &hash);
	if (user >= 0 && count_account(req, user, email, &a))
		return 0;
	int ok = user < 0 ? -1 : password_verify(hash, password);
	if (ok < 0) { /* not the caller's fault: it does not count */
		refund_attempt(req, &a);
		return hl_reply_error(req, 503, "busy", "sign-in is busy; try again in a moment");
	}
	if (!ok || !user) {
		if (audit_note(req, user, "login.failed", "user", user))
			return HL_EDB;
		return hl_reply_error(req, 401, "invalid_credentials", "wrong e-mail or password");
	}
	refund_attempt(req, &a);
	int rc = accounts_start_session(req, user);
	if (rc)
		return rc;
	req->who.user_id = user;
	if (audit_note(req, user, "login", "user", user))
		return HL_EDB;
	return me(req);
}

/* POST /api/auth/logout: ends the session, or revokes the token used. */
static int logout(struct hl_req *req)
{
	struct hl_db *w = hl_write_begin(req);
	sqlite3_stmt *st = req->who.token_id
		? hl_stmt(w, "UPDATE api_tokens SET revoked_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"
			     " WHERE id = :token")
		: hl_stmt(w, "DELETE FROM sessions WHERE token_hash = :session");
	hl_bind_int(st, ":token", req->who.token_id); /* one of the two is there */
	hl_bind_blob(st, ":session", req->who.session, 32);
	if (hl_step_changes(st) < 0)
		return HL_EDB;
	if (audit_note(req, 0, req->who.token_id ? "token.revoked" : "logout",
		       req->who.token_id ? "api_token" : "user",
		       req->who.token_id ? req->who.token_id : req->who.user_id))
		return HL_EDB;
	if (!req->who.token_id)
		auth_set_cookie(req, "", 0);
	auth_rights_changed(req, req->who.user_id, 0);
	return hl_reply_raw(req, 204, "text/plain", "", 0);
}

/* ---- the caller's account --------------------------------------------- */

static int write_locations(struct hl_req *req, struct hl_json *j)
{
	sqlite3_stmt *st = hl_stmt(hl_read(req),
		"SELECT l.id, l.name, l.timezone, l.currency FROM location_users lu"
		" JOIN locations l ON l.id = lu.location_id"
		" WHERE lu.user_id = :user AND l.disabled_at IS NULL ORDER BY l.id");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":user", req->who.user_id);
	return hl_json_rows(j, st);
}

/* GET /api/auth/me without a user: nobody, for a caller who brought no
 * credentials (a browser's first visit, or after signing out: asking is
 * not an error); 401 for a session or token that is not valid. */
static int nobody(struct hl_req *req)
{
	if (auth_carries_session(req) || hl_header(req, "Authorization"))
		return hl_reply_error(req, 401, "unauthorized", "the session or token is not valid");
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	static const char *const keys[] = { "user", "agency", "csrf_token" };
	for (int i = 0; i < 3; i++) {
		hl_json_key(j, keys[i]);
		hl_json_null(j);
	}
	hl_json_key(j, "locations");
	hl_json_array(j);
	hl_json_array_end(j);
	hl_json_object_end(j);
	return 0;
}

/* GET /api/auth/me: the user, their agency and the locations they may
 * open; "user": null when signed out. Public, so that the signed-out
 * answer is not an error; what auth_admit would refuse is refused here. */
static int me(struct hl_req *req)
{
	if (!req->who.user_id)
		return nobody(req);
	if (req->who.token_location)
		return hl_reply_error(req, 403, "forbidden", "this token is limited to one sub-account");
	sqlite3_stmt *st = hl_stmt(hl_read(req),
		"SELECT u.id, u.email, u.name, u.role, u.assigned_only, a.id, a.name"
		" FROM users u JOIN agencies a ON a.id = u.agency_id WHERE u.id = :user");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":user", req->who.user_id);
	if (sqlite3_step(st) != SQLITE_ROW)
		return HL_EDB;
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	hl_json_key(j, "user");
	hl_json_object(j);
	static const char *const user_keys[] = { "id", "email", "name", "role" };
	for (int i = 0; i < 4; i++) {
		hl_json_key(j, user_keys[i]);
		hl_json_column(j, st, i);
	}
	hl_json_key(j, "assigned_only");
	hl_json_bool(j, sqlite3_column_int(st, 4));
	hl_json_object_end(j);
	hl_json_key(j, "agency");
	hl_json_object(j);
	hl_json_key(j, "id");
	hl_json_column(j, st, 5);
	hl_json_key(j, "name");
	hl_json_column(j, st, 6);
	hl_json_object_end(j);
	char csrf[33];
	auth_csrf_token(req, csrf);
	hl_json_key(j, "csrf_token");
	if (*csrf)
		hl_json_string(j, csrf);
	else
		hl_json_null(j);
	hl_json_key(j, "locations");
	int rc = write_locations(req, j);
	hl_json_object_end(j);
	return rc;
}

/* ---- API tokens ---------------------------------------------------------- */

/* A token's end is kept in Unix seconds, as a session's, for the
 * comparison each request makes; it is answered as every other time is. */
#define TOKEN_EXPIRES "strftime('%Y-%m-%dT%H:%M:%SZ', expires_at, 'unixepoch') AS expires_at"

static int list_tokens(struct hl_req *req)
{
	sqlite3_stmt *st = hl_stmt(hl_read(req),
		"SELECT id, name, location_id, " TOKEN_EXPIRES ", last_used_at, created_at"
		" FROM api_tokens WHERE user_id = :user AND revoked_at IS NULL ORDER BY id");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":user", req->who.user_id);
	return hl_reply_page(req, st, INT64_MAX, 0);
}

/* The optional integer `key` of the body in [min, max]; -1 after 422. */
static int64_t optional_int(struct hl_req *req, const char *key, int64_t min, int64_t max)
{
	int tok = hl_body_find(req, 0, key);
	int64_t v = 0;
	if (tok < 0 || hl_body_type(req, tok) == HL_JSON_NULL)
		return 0;
	if (hl_body_int(req, tok, &v) || v < min || v > max) {
		hl_reply_error(req, 422, "validation", "%s must be an integer from %lld to %lld", key,
			       (long long)min, (long long)max);
		return -1;
	}
	return v;
}

/* POST /api/auth/tokens {"name", "location_id"?, "expires_days"?}: the token
 * is in the answer once and never again. */
static int create_token(struct hl_req *req)
{
	static const char *const keys[] = { "name", "location_id", "expires_days", NULL };
	if (req->who.token_id)
		return hl_reply_error(req, 403, "forbidden", "a token cannot make tokens; sign in");
	if (hl_fields_only(req, 0, keys))
		return 0;
	const char *name = required_string(req, "name", 100);
	int64_t location = name ? optional_int(req, "location_id", 1, INT64_MAX) : -1;
	int64_t days = location >= 0 ? optional_int(req, "expires_days", 1, 3650) : -1;
	if (days < 0)
		return 0;
	if (location && !auth_may_open(req, location))
		return hl_reply_error(req, 404, "not_found", "no such sub-account");
	char token[TOKEN_TEXT];
	unsigned char hash[32];
	auth_token_new("hlt_", token, hash);
	sqlite3_stmt *st = hl_stmt(hl_write_begin(req),
		"INSERT INTO api_tokens (token_hash, user_id, name, location_id, expires_at)"
		" VALUES (:token_hash, :user, :name, NULLIF(:token_location, 0),"
		" CASE WHEN :days > 0 THEN :now + :days * 86400 END)"
		" RETURNING id, name, location_id, " TOKEN_EXPIRES ", created_at");
	if (!st)
		return HL_EDB;
	hl_bind_blob(st, ":token_hash", hash, sizeof(hash));
	hl_bind_int(st, ":user", req->who.user_id);
	hl_bind_text(st, ":name", name);
	hl_bind_int(st, ":token_location", location);
	hl_bind_int(st, ":days", days);
	hl_bind_int(st, ":now", (int64_t)time(NULL));
	if (sqlite3_step(st) != SQLITE_ROW)
		return HL_EDB;
	int64_t id = sqlite3_column_int64(st, 0);
	struct hl_json *j = hl_reply_json(req, 201);
	hl_json_object(j);
	for (int i = 0; i < 5; i++) {
		hl_json_key(j, sqlite3_column_name(st, i));
		hl_json_column(j, st, i);
	}
	hl_json_key(j, "token");
	hl_json_string(j, token);
	hl_json_object_end(j);
	return audit_note(req, 0, "token.created", "api_token", id) ? HL_EDB : 0;
}

/* DELETE /api/auth/tokens/:id: the caller's own token; an agency admin may
 * revoke any token of the agency. */
static int revoke_token(struct hl_req *req)
{
	int64_t id;
	if (hl_param_id(req, "id", &id))
		return 0;
	sqlite3_stmt *st = hl_stmt(hl_write_begin(req),
		"UPDATE api_tokens SET revoked_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"
		" WHERE id = :id AND revoked_at IS NULL AND (user_id = :user OR (:agency_admin"
		" AND user_id IN (SELECT id FROM users WHERE agency_id = :agency)))"
		" RETURNING user_id");
	hl_bind_int(st, ":id", id);
	hl_bind_int(st, ":user", req->who.user_id);
	hl_bind_int(st, ":agency_admin", req->who.role == ROLE_AGENCY_ADMIN);
	hl_bind_int(st, ":agency", req->who.agency_id);
	int64_t owner;
	int revoked = hl_step_int(st, &owner);
	if (revoked < 0)
		return HL_EDB;
	if (!revoked)
		return hl_reply_error(req, 404, "not_found", "no such token");
	auth_rights_changed(req, owner, 0);
	if (audit_note(req, 0, "token.revoked", "api_token", id))
		return HL_EDB;
	return hl_reply_raw(req, 204, "text/plain", "", 0);
}

/* ---- the caller's password ----------------------------------------------- */

/* The password hash of signed-in user `user`, or NULL (answered). The
 * reader goes back to the pool before the slow check, as at sign-in. */
static const char *own_hash(struct hl_req *req, int64_t user)
{
	sqlite3_stmt *st = hl_stmt(hl_read(req), "SELECT password_hash FROM users WHERE id = :user");
	hl_bind_int(st, ":user", user);
	const char *h = st && sqlite3_step(st) == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0)
							      : NULL;
	const char *hash = h ? hl_strndup(req, h, strlen(h)) : NULL;
	if (st)
		sqlite3_reset(st);
	request_return_reader(req);
	if (!hash)
		hl_reply_error(req, 503, "busy", "the server is busy; try again in a moment");
	return hash;
}

/* The new hash stored, and every other session of the user ended. */
static int store_password(struct hl_req *req, int64_t user, const char *password)
{
	char hash[crypto_pwhash_STRBYTES];
	if (password_hash(password, hash))
		return hl_reply_error(req, 503, "busy", "the server is busy; try again in a moment");
	struct hl_db *w = hl_write_begin(req);
	sqlite3_stmt *st = hl_stmt(w, "UPDATE users SET password_hash = :password_hash,"
				      " updated_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE id = :user");
	hl_bind_text(st, ":password_hash", hash);
	hl_bind_int(st, ":user", user);
	if (hl_step_changes(st) < 0)
		return HL_EDB;
	st = hl_stmt(w, "DELETE FROM sessions WHERE user_id = :user AND token_hash <> :session");
	hl_bind_int(st, ":user", user);
	hl_bind_blob(st, ":session", req->who.session, 32);
	if (hl_step_changes(st) < 0 || audit_note(req, 0, "password.changed", "user", user))
		return HL_EDB;
	auth_rights_changed(req, user, 0);
	return hl_reply_empty(req);
}

/* POST /api/auth/password {"current_password", "new_password"}: 204. The
 * caller's other sessions end (whoever else was signed in as them); their
 * API tokens stay. A wrong current password is 422 on that member, and
 * counts as a failed sign-in, so this is no way round their limits. Only
 * from a signed-in browser: an API token cannot change it. */
static int change_password(struct hl_req *req)
{
	static const char *const keys[] = { "current_password", "new_password", NULL };
	const char *current = NULL, *fresh = NULL, *hash;
	struct attempt a;
	if (req->who.token_id)
		return hl_reply_error(req, 403, "forbidden", "sign in to change your password:"
				      " an API token cannot");
	if (hl_fields_only(req, 0, keys) ||
	    hl_field_text(req, 0, "current_password", PASSWORD_MAX, &current) < 0 ||
	    hl_field_text(req, 0, "new_password", PASSWORD_MAX, &fresh) < 0)
		return 0;
	if (!current || !*current)
		return hl_reply_invalid(req, "current_password", "required");
	if (!fresh || strlen(fresh) < PASSWORD_MIN)
		return hl_reply_invalid(req, "new_password", "at least %d characters", PASSWORD_MIN);
	int64_t user = req->who.user_id;
	if (count_client(req, &a))
		return 0;
	if (!(hash = own_hash(req, user))) { /* the server's failing: no try counted */
		refund_attempt(req, &a); /* only the address's so far */
		return 0;
	}
	if (count_account(req, user, "", &a))
		return 0;
	int ok = password_verify(hash, current);
	if (ok < 0) {
		refund_attempt(req, &a);
		return hl_reply_error(req, 503, "busy", "the server is busy; try again in a moment");
	}
	if (!ok)
		return audit_note(req, user, "password.change_failed", "user", user) ? HL_EDB
			: hl_reply_invalid(req, "current_password", "not your current password");
	refund_attempt(req, &a);
	return store_password(req, user, fresh);
}

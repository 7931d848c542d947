/* SPDX-License-Identifier: MIT */
/*
 * auth.c: identifying the caller and choosing the current location (see
 * auth.h). The rules, in the order they are applied:
 *   1. A bearer token, else a session cookie, names the user; an unknown,
 *      expired or revoked one is 401 (on public routes it is ignored).
 *   2. Public routes need nothing more. Others need a user (401).
 *   3. Agency routes need an agency role, admin routes an agency admin,
 *      location-admin routes a location admin or agency admin (403).
 *   4. Unless the route says otherwise, a location is chosen and checked.
 */
#include "auth/auth.h"
#include "auth/credentials.h"
#include "db/db.h"
#include "lib/buf.h"
#include "lib/conf.h"
#include "lib/log.h"
#include "lib/ratelimit.h"
#include "server.h"

#include <arpa/inet.h>
#include <civetweb.h>
#include <netinet/in.h>
#include <sodium.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define RENEW_AFTER_S 3600 /* a session's expiry moves forward at most hourly */

static const char *const role_names[] = {
	[ROLE_NONE] = "none",
	[ROLE_AGENCY_ADMIN] = "agency_admin",
	[ROLE_AGENCY_USER] = "agency_user",
	[ROLE_LOCATION_ADMIN] = "location_admin",
	[ROLE_LOCATION_USER] = "location_user",
};

enum role role_parse(const char *s)
{
	for (int i = 1; s && i < (int)(sizeof(role_names) / sizeof(role_names[0])); i++)
		if (!strcmp(s, role_names[i]))
			return (enum role)i;
	return ROLE_NONE;
}

const char *role_name(enum role role)
{
	return role_names[role];
}

void auth_token_hash(const char *token, unsigned char hash[32])
{
	crypto_hash_sha256(hash, (const unsigned char *)token, strlen(token));
}

void auth_token_new(const char *prefix, char out[TOKEN_TEXT], unsigned char hash[32])
{
	unsigned char raw[TOKEN_BYTES];
	size_t n = strlen(prefix);
	randombytes_buf(raw, sizeof(raw));
	memcpy(out, prefix, n);
	sodium_bin2base64(out + n, TOKEN_TEXT - n, raw, sizeof(raw),
			  sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	auth_token_hash(out, hash);
}

static int peer_is_trusted_proxy(struct hl_req *r)
{
	const char *list = CONFIG_LIVE(r->srv->cfg, trusted_proxies);
	const char *peer = mg_get_request_info(r->conn)->remote_addr;
	size_t n = strlen(peer);
	for (const char *p = list; p && *p;) {
		size_t len = strcspn(p, ", ");
		if (len == n && !strncmp(p, peer, n))
			return 1;
		p += len;
		p += strspn(p, ", ");
	}
	return 0;
}

const char *auth_client(struct hl_req *r)
{
	const char *xff = hl_header(r, "X-Forwarded-For");
	if (xff && peer_is_trusted_proxy(r)) {
		/* The last address is the one our proxy saw. */
		const char *last = strrchr(xff, ',');
		last = last ? last + 1 : xff;
		while (*last == ' ')
			last++;
		return hl_strndup(r, last, strcspn(last, " "));
	}
	return mg_get_request_info(r->conn)->remote_addr;
}

const char *auth_host(struct hl_req *r)
{
	const char *forwarded = hl_header(r, "X-Forwarded-Host");
	if (forwarded && peer_is_trusted_proxy(r))
		return forwarded;
	return hl_header(r, "Host");
}

int auth_is_tls(struct hl_req *r)
{
	if (mg_get_request_info(r->conn)->is_ssl)
		return 1;
	const char *proto = hl_header(r, "X-Forwarded-Proto");
	return proto && !strcasecmp(proto, "https") && peer_is_trusted_proxy(r);
}

/* The host is compared (as the browser asked for it: behind a trusted
 * proxy, its X-Forwarded-Host), not the scheme, which behind a proxy that
 * ends TLS is not the browser's. Clients that are not browsers send no
 * Origin nor Sec-Fetch-Site. */
int auth_from_our_pages(struct hl_req *r, int null_ok)
{
	const char *origin = hl_header(r, "Origin"), *host = auth_host(r);
	const char *site = hl_header(r, "Sec-Fetch-Site");
	if (site && !strcasecmp(site, "cross-site"))
		return 0;
	if (!origin || (null_ok && !strcmp(origin, "null")))
		return 1;
	const char *sep = strstr(origin, "://");
	return sep && host && (!strncasecmp(origin, "http://", 7) || !strncasecmp(origin, "https://", 8)) &&
	       !strcasecmp(sep + 3, host);
}

void auth_set_cookie(struct hl_req *r, const char *token, int64_t lifetime_s)
{
	request_add_header(r, "Set-Cookie: " SESSION_COOKIE "=%s; Path=/; Max-Age=%lld; HttpOnly;"
			   " SameSite=Lax%s", token, (long long)lifetime_s,
			   auth_is_tls(r) ? "; Secure" : "");
}

/* ---- 1. who ------------------------------------------------------------ */

static void read_identity(struct identity *who, sqlite3_stmt *st)
{
	who->user_id = sqlite3_column_int64(st, 0);
	who->agency_id = sqlite3_column_int64(st, 1);
	who->role = role_parse((const char *)sqlite3_column_text(st, 2));
	who->assigned_only = sqlite3_column_int(st, 3);
}

/* Read the caller of `token_text` (cr's kind and key set) from the database,
 * and keep what was read: 0, HL_ENOENT or HL_EDB. */
static int read_credential(struct hl_req *r, const char *token_text, struct credential *cr)
{
	int token = cr->kind == CREDENTIAL_TOKEN;
	sqlite3_stmt *st = hl_stmt(hl_read(r), token
		? "SELECT u.id, u.agency_id, u.role, u.assigned_only, t.expires_at, 0,"
		  " t.id, t.location_id"
		  " FROM api_tokens t JOIN users u ON u.id = t.user_id"
		  " WHERE t.token_hash = :token_hash AND t.revoked_at IS NULL"
		  " AND (t.expires_at IS NULL OR t.expires_at > :now) AND u.disabled_at IS NULL"
		: "SELECT u.id, u.agency_id, u.role, u.assigned_only, s.expires_at, s.renewed_at"
		  " FROM sessions s JOIN users u ON u.id = s.user_id"
		  " WHERE s.token_hash = :token_hash AND s.expires_at > :now"
		  " AND u.disabled_at IS NULL");
	if (!st)
		return HL_EDB;
	unsigned char hash[32];
	auth_token_hash(token_text, hash);
	cr->stamp = credentials_stamp(r->srv->credentials);
	cr->read_us = now_us();
	hl_bind_blob(st, ":token_hash", hash, sizeof(hash));
	hl_bind_int(st, ":now", (int64_t)time(NULL));
	int step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		read_identity(&cr->who, st);
		cr->expires_at = sqlite3_column_int64(st, 4);
		cr->renewed_at = sqlite3_column_int64(st, 5);
		if (token) {
			cr->who.token_id = sqlite3_column_int64(st, 6);
			cr->who.token_location = sqlite3_column_int64(st, 7);
		} else {
			memcpy(cr->who.session, hash, sizeof(hash));
		}
	}
	sqlite3_reset(st);
	if (step != SQLITE_ROW)
		return step == SQLITE_DONE ? HL_ENOENT : HL_EDB;
	credentials_keep(r->srv->credentials, cr);
	return 0;
}

/* Move the session's expiry forward, at most hourly (it costs a write),
 * and the cookie's with it. */
static void renew(struct hl_req *r, const char *token, int64_t renewed_at)
{
	int64_t now = (int64_t)time(NULL);
	if (now - renewed_at < RENEW_AFTER_S)
		return;
	struct db *db = r->srv->db;
	struct hl_db *w = db_write_lock(db);
	sqlite3_stmt *st = db_begin(w) ? NULL :
		hl_stmt(w, "UPDATE sessions SET expires_at = :expires_at, renewed_at = :now"
			   " WHERE token_hash = :session");
	if (st) {
		hl_bind_blob(st, ":session", r->who.session, 32);
		hl_bind_int(st, ":expires_at",
			    now + CONFIG_LIVE(r->srv->cfg, session_days) * 86400);
		hl_bind_int(st, ":now", now);
		if (hl_step_changes(st) < 0 || db_commit(w))
			db_rollback(w);
		else
			auth_set_cookie(r, token, CONFIG_LIVE(r->srv->cfg, session_days) * 86400);
	} else {
		db_rollback(w);
	}
	db_write_unlock(db, w);
}

/* Who `token` of `kind` stands for, from memory while fresh, else from
 * the database: 0 with r->who and *cr filled, HL_ENOENT or HL_EDB. */
static int find_caller(struct hl_req *r, enum credential_kind kind, const char *token,
		       struct credential *cr)
{
	if (strlen(token) >= TOKEN_TEXT)
		return HL_ENOENT; /* longer than any we hand out */
	credentials_key(r->srv->credentials, kind, token, cr);
	if (!credentials_find(r->srv->credentials, cr)) {
		int rc = read_credential(r, token, cr);
		if (rc)
			return rc;
	}
	r->who = cr->who;
	r->who.expires_at = cr->expires_at;
	if (kind == CREDENTIAL_SESSION)
		renew(r, token, cr->renewed_at);
	return 0;
}

/* 0 with r->who and *cr filled, or nobody (cr->kind 0); HL_ENOENT for
 * credentials that name nobody; HL_EDB. */
static int identify(struct hl_req *r, struct credential *cr)
{
	const char *authz = hl_header(r, "Authorization");
	if (authz && !strncasecmp(authz, "Bearer ", 7))
		return find_caller(r, CREDENTIAL_TOKEN, authz + 7, cr);
	if (authz)
		return HL_ENOENT;
	const char *cookies = hl_header(r, "Cookie");
	char token[TOKEN_TEXT];
	if (cookies && mg_get_cookie(cookies, SESSION_COOKIE, token, sizeof(token)) > 0)
		return find_caller(r, CREDENTIAL_SESSION, token, cr);
	return 0;
}

int auth_still_opens(struct hl_db *db, const struct identity *who, const int64_t *ids, int n,
		     int64_t *kept)
{
	int agency = role_is_agency(who->role);
	sqlite3_stmt *st = agency
		? hl_stmt(db, "SELECT id FROM locations WHERE agency_id = :agency"
			  " AND disabled_at IS NULL"
			  " AND id IN (SELECT value FROM json_each(:ids)) ORDER BY id")
		: hl_stmt(db, "SELECT l.id FROM user_locations ul JOIN locations l"
			  " ON l.id = ul.location_id WHERE ul.user_id = :user"
			  " AND l.disabled_at IS NULL AND l.agency_id = :agency"
			  " AND l.id IN (SELECT value FROM json_each(:ids)) ORDER BY l.id");
	struct buf list = BUF_INIT;
	buf_putc(&list, '[');
	for (int i = 0; i < n; i++)
		buf_printf(&list, "%s%lld", i ? "," : "", (long long)ids[i]);
	buf_putc(&list, ']');
	if (!st || list.oom) {
		buf_release(&list);
		return st ? HL_ENOMEM : HL_EDB;
	}
	hl_bind_int(st, ":agency", who->agency_id);
	hl_bind_int(st, ":user", who->user_id); /* only a location user's text has it */
	hl_bind_text(st, ":ids", list.data);
	int count = 0, step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW && count < n) {
		int64_t id = sqlite3_column_int64(st, 0);
		if (!who->token_location || who->token_location == id)
			kept[count++] = id;
	}
	sqlite3_reset(st);
	buf_release(&list);
	return step == SQLITE_ROW || step == SQLITE_DONE ? count : HL_EDB;
}

int auth_still_signed_in(struct hl_db *db, const struct identity *who, struct identity *now)
{
	sqlite3_stmt *st = who->token_id
		? hl_stmt(db, "SELECT u.id, u.agency_id, u.role, u.assigned_only, t.expires_at"
			" FROM api_tokens t"
			" JOIN users u ON u.id = t.user_id WHERE t.id = :token AND t.revoked_at IS NULL"
			" AND (t.expires_at IS NULL OR t.expires_at > :now)"
			" AND u.disabled_at IS NULL")
		: hl_stmt(db, "SELECT u.id, u.agency_id, u.role, u.assigned_only, s.expires_at"
			" FROM sessions s"
			" JOIN users u ON u.id = s.user_id WHERE s.token_hash = :session"
			" AND s.expires_at > :now AND u.disabled_at IS NULL");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":token", who->token_id); /* one of the two is there */
	hl_bind_blob(st, ":session", who->session, sizeof(who->session));
	hl_bind_int(st, ":now", (int64_t)time(NULL));
	int step = sqlite3_step(st);
	*now = *who;
	if (step == SQLITE_ROW) {
		read_identity(now, st);
		now->expires_at = sqlite3_column_int64(st, 4);
	}
	sqlite3_reset(st);
	if (step != SQLITE_ROW)
		return step == SQLITE_DONE ? 0 : HL_EDB;
	return now->user_id == who->user_id && now->agency_id == who->agency_id;
}

void auth_rights_changed(struct hl_req *r, int64_t user, int64_t location)
{
	if (!r->rights.changed) {
		r->rights.changed = 1;
		r->rights.user = user;
		r->rights.location = location;
		return;
	}
	/* Two changes in one request: widen to what covers both. */
	if (r->rights.user != user)
		r->rights.user = 0;
	if (r->rights.location != location)
		r->rights.location = 0;
}

int auth_carries_session(struct hl_req *r)
{
	const char *cookies = hl_header(r, "Cookie");
	char token[TOKEN_TEXT];
	return cookies && mg_get_cookie(cookies, SESSION_COOKIE, token, sizeof(token)) > 0;
}

/* ---- 4. where ---------------------------------------------------------- */

/* The location the request names: 0 when none; -1 when it is not a
 * positive integer. */
static int64_t named_location(struct hl_req *r)
{
	const char *v = hl_header(r, "X-Location-Id");
	if (!v)
		v = hl_query(r, "location_id");
	if (!v)
		return 0;
	long long id;
	return conf_int(v, 1, INT64_MAX, &id) ? -1 : id;
}

/* The location asked for: 0 when none; -1 (after answering 400) when bad. */
static int64_t requested_location(struct hl_req *r)
{
	int64_t id = named_location(r);
	if (id < 0)
		hl_reply_error(r, 400, "bad_request", "the sub-account (location_id) must be a positive integer");
	return id;
}

/* The caller's location `want`, or their first one when want is 0; 0
 * when there is none they may open; -1 when the database fails. The rule
 * of the location_users view, written per role: one index lookup instead
 * of the view's union. A location user's location must be of their own
 * agency too: the API never writes a row of user_locations across
 * agencies, but one written by hand must open nothing. */
static int64_t read_open_location(struct hl_req *r, int64_t want)
{
	const struct identity *w = &r->who;
	sqlite3_stmt *st;
	if (role_is_agency(w->role))
		st = hl_stmt(hl_read(r),
			"SELECT min(id) FROM locations WHERE agency_id = :agency"
			" AND disabled_at IS NULL AND (:want = 0 OR id = :want)");
	else
		st = hl_stmt(hl_read(r),
			"SELECT min(l.id) FROM user_locations ul JOIN locations l ON l.id = ul.location_id"
			" WHERE ul.user_id = :user AND l.disabled_at IS NULL"
			" AND l.agency_id = :agency AND (:want = 0 OR l.id = :want)");
	if (!st)
		return -1;
	hl_bind_int(st, ":agency", w->agency_id);
	hl_bind_int(st, ":user", w->user_id); /* only a location user's text has it */
	hl_bind_int(st, ":want", want);
	int64_t got = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
	sqlite3_reset(st);
	return got;
}

/* read_open_location, remembered with the caller's credential `cr`. */
static int64_t open_location(struct hl_req *r, const struct credential *cr, int64_t want)
{
	int64_t got;
	if (credential_opens(cr, want, &got))
		return got;
	uint64_t stamp = credentials_stamp(r->srv->credentials);
	got = read_open_location(r, want);
	if (got < 0)
		return -1;
	credentials_note_open(r->srv->credentials, cr, stamp, want, got);
	return got;
}

HL_API int hl_user_in_location(struct hl_db *db, int64_t location, int64_t user)
{
	sqlite3_stmt *st = hl_stmt(db,
		"SELECT 1 FROM location_users WHERE location_id = :given_location"
		" AND user_id = :user");
	hl_bind_int(st, ":given_location", location);
	hl_bind_int(st, ":user", user);
	int64_t one;
	return hl_step_int(st, &one);
}

int auth_may_open(struct hl_req *r, int64_t id)
{
	return id > 0 && read_open_location(r, id) == id &&
	       (!r->who.token_location || r->who.token_location == id);
}

int64_t auth_named_location(struct hl_req *r)
{
	int64_t id = named_location(r);
	return auth_may_open(r, id) ? id : 0;
}

static int choose_location(struct hl_req *r, const struct credential *cr, int required)
{
	int64_t want = requested_location(r);
	if (want < 0)
		return -1;
	if (r->who.token_location) {
		if (want && want != r->who.token_location) {
			hl_reply_error(r, 404, "not_found", "no such sub-account");
			return -1;
		}
		want = r->who.token_location;
	}
	if (!want && !required)
		return 0;
	r->location_id = open_location(r, cr, want);
	if (r->location_id < 0) { /* a caller known from memory borrows its first reader here */
		r->location_id = 0;
		request_reply_unavailable(r);
		return -1;
	}
	if (!r->location_id) {
		if (want)
			hl_reply_error(r, 404, "not_found", "no such sub-account");
		else
			hl_reply_error(r, 404, "no_location", "there is no sub-account you may open");
		return -1;
	}
	return 0;
}

/* ---- cross-site requests --------------------------------------------------- */

void auth_csrf_token(const struct hl_req *r, char out[33])
{
	unsigned char h[crypto_hash_sha256_BYTES];
	crypto_hash_sha256_state st;
	out[0] = '\0';
	if (!r->who.user_id || r->who.token_id)
		return;
	crypto_hash_sha256_init(&st);
	crypto_hash_sha256_update(&st, r->who.session, sizeof(r->who.session));
	crypto_hash_sha256_update(&st, (const unsigned char *)"csrf", 4);
	crypto_hash_sha256_final(&st, h);
	sodium_bin2hex(out, 33, h, 16);
}

/* A page of another site can make the browser send our cookie with a form
 * post, but not with a JSON body (that needs a CORS preflight we never
 * grant) nor with a header it cannot read. So a state-changing request
 * signed in by cookie must be JSON or carry the session's CSRF token. */
static int cross_site_safe(struct hl_req *r)
{
	if (!r->who.user_id || r->who.token_id || !strcmp(r->method, "GET") ||
	    !strcmp(r->method, "HEAD"))
		return 1;
	const char *type = hl_header(r, "Content-Type");
	if (type && !strncasecmp(type, "application/json", 16))
		return 1;
	const char *sent = hl_header(r, "X-CSRF-Token");
	char want[33];
	auth_csrf_token(r, want);
	return sent && strlen(sent) == 32 && !sodium_memcmp(sent, want, 32);
}

/* ---- how often ----------------------------------------------------------- */

int auth_is_loopback(const char *addr)
{
	return !strncmp(addr, "127.", 4) || !strcmp(addr, "::1") ||
	       !strncasecmp(addr, "::ffff:127.", 11);
}

void auth_limit_headers(struct hl_req *r, const struct limit *l)
{
	request_add_header(r, "RateLimit-Limit: %ld", l->limit);
	request_add_header(r, "RateLimit-Remaining: %ld", l->remaining);
	request_add_header(r, "RateLimit-Reset: %ld", l->reset_s);
}

void auth_too_many(struct hl_req *r, const struct limit *l, const char *what)
{
	request_add_header(r, "Retry-After: %ld", l->reset_s > 0 ? l->reset_s : 1);
	hl_reply_error(r, 429, "rate_limited", "%s; try again in %ld s", what, l->reset_s);
}

const char *auth_client_key(struct hl_req *r)
{
	const char *client = auth_client(r);
	struct in6_addr a;
	char text[INET6_ADDRSTRLEN];
	if (!strchr(client, ':') || inet_pton(AF_INET6, client, &a) != 1)
		return client;
	if (IN6_IS_ADDR_V4MAPPED(&a)) /* an IPv4 client of a dual-stack socket */
		return inet_ntop(AF_INET, &a.s6_addr[12], text, sizeof(text))
			? hl_strndup(r, text, strlen(text)) : client;
	/* One IPv6 host may own a whole /64: count the prefix, however the
	 * text writes it ("::" may stand for any of its groups). */
	memset(&a.s6_addr[8], 0, 8);
	if (!inet_ntop(AF_INET6, &a, text, sizeof(text)))
		return client;
	return hl_sprintf(r, "%s/64", text);
}

/* Count the request against its caller: the user, else the address. Callers on this machine are free unless configured. */
static int within_rate(struct hl_req *r)
{
	const struct config *cfg = r->srv->cfg;
	const char *client = auth_client(r);
	long long limit = CONFIG_LIVE(cfg, rate_limit);
	if (!limit || (!CONFIG_LIVE(cfg, rate_limit_loopback) && auth_is_loopback(client)))
		return 1;
	char key[80];
	if (r->who.user_id) /* one budget per user, however many tokens they make */
		snprintf(key, sizeof(key), "user:%lld", (long long)r->who.user_id);
	else
		snprintf(key, sizeof(key), "ip:%s", auth_client_key(r));
	struct limit l;
	int ok = limiter_hit(r->srv->api_limit, key, limit, &l);
	auth_limit_headers(r, &l);
	if (!ok)
		auth_too_many(r, &l, "too many requests");
	return ok;
}

/* ---- the rules --------------------------------------------------------- */

int auth_role_allows(enum hl_access access, enum role role)
{
	switch (access) {
	case HL_ACCESS_AGENCY: return role_is_agency(role);
	case HL_ACCESS_ADMIN: return role == ROLE_AGENCY_ADMIN;
	case HL_ACCESS_LOCATION_ADMIN:
		return role == ROLE_AGENCY_ADMIN || role == ROLE_LOCATION_ADMIN;
	default: return 1;
	}
}

int auth_admit(struct hl_req *r)
{
	const struct hl_route *route = &r->match.entry->route;
	struct credential cr = { 0 };
	int rc = identify(r, &cr);
	if (rc && route->access == HL_ACCESS_PUBLIC)
		memset(&r->who, 0, sizeof(r->who));
	if (!within_rate(r))
		return -1;
	if (route->access == HL_ACCESS_PUBLIC)
		return 0;
	if (rc == HL_EDB) {
		request_reply_unavailable(r);
		return -1;
	}
	if (rc || !r->who.user_id) {
		hl_reply_error(r, 401, "unauthorized", rc ? "the session or token is not valid"
							  : "sign in first");
		return -1;
	}
	if (!cross_site_safe(r)) {
		hl_reply_error(r, 403, "csrf", "send JSON, or the X-CSRF-Token of your session");
		return -1;
	}
	if (r->who.token_location && (route->flags & HL_ROUTE_NO_LOCATION ||
				      route->access == HL_ACCESS_AGENCY || route->access == HL_ACCESS_ADMIN)) {
		/* A token for one location works inside that location only. */
		hl_reply_error(r, 403, "forbidden", "this token is limited to one sub-account");
		return -1;
	}
	if (!auth_role_allows(route->access, r->who.role)) {
		hl_reply_error(r, 403, "forbidden", "your role may not do this");
		return -1;
	}
	if (route->flags & HL_ROUTE_NO_LOCATION)
		return 0;
	int needs_location = route->access == HL_ACCESS_USER ||
			     route->access == HL_ACCESS_LOCATION_ADMIN;
	return choose_location(r, &cr, needs_location);
}

/* SPDX-License-Identifier: MIT */
/*
 * auth.h: who is calling and what they may open, decided once per request
 * before any handler runs.
 *
 * A caller is identified by a session cookie (the browser) or a bearer API
 * token (the phone app, integrations). Either is 32 random bytes of which
 * the database keeps only the SHA-256, so looking one up is one indexed
 * read, made once a second at most per caller while nothing changes
 * (credentials.h keeps what it read). The current location is then chosen
 * from the X-Location-Id header or the location_id query parameter, or
 * defaults to the caller's first location, and must be one the caller may open: another agency's location,
 * or one a location user was not given, is answered 404 like a missing
 * record.
 */
#ifndef HL_AUTH_H
#define HL_AUTH_H

#include "request/request.h"

#define SESSION_COOKIE "hl_session"
#define TOKEN_BYTES 32
#define TOKEN_TEXT 64 /* room for the text form of a token with its prefix */

/* Identify the caller and check the route's access. Answers 400, 401, 403
 * or 404 itself and returns -1; returns 0 to go on. */
int auth_admit(struct hl_req *r);

/* The CSRF token of the caller's session (hex, 32 characters): a browser
 * sends it as X-CSRF-Token with a state-changing request whose body is not
 * JSON. Empty for callers without a session. */
void auth_csrf_token(const struct hl_req *r, char out[33]);

struct limit;
/* The RateLimit-* headers of `l`; and a 429 with Retry-After saying `what`. */
void auth_limit_headers(struct hl_req *r, const struct limit *l);
void auth_too_many(struct hl_req *r, const struct limit *l, const char *what);

/* Whether the caller may open location `id`. */
int auth_may_open(struct hl_req *r, int64_t id);
/* The location the request names (X-Location-Id, else location_id) when
 * the caller may open it; 0 when it names none, a malformed one or one
 * the caller may not open. Answers nothing: for routes of no location
 * whose answer only depends on the location when there is one. */
int64_t auth_named_location(struct hl_req *r);
/* Whether `role` may call a route of `access`: agency routes need an
 * agency role, admin routes an agency admin, location-admin routes a
 * location admin or an agency admin (the location is checked apart). The
 * one copy of the rule: whatever else shows what a role may open (the
 * pages) asks it too. */
int auth_role_allows(enum hl_access access, enum role role);

/* Whether the session or token `who` was admitted with still stands, for
 * the same user: 1 with `now` filled (role, reach and expiry as they are
 * now), 0 when it ended (signed out, expired, revoked, the user
 * disabled), or HL_EDB. For connections that stay, the live channel's.
 * Any thread, on `db`. */
int auth_still_signed_in(struct hl_db *db, const struct identity *who, struct identity *now);
/* Of the `n` locations `ids` (sorted), those `who` may open now, into
 * `kept` (room for n), sorted: how many, or HL_EDB. The rule of
 * open_location, for a list at once. Any thread, on `db`. */
int auth_still_opens(struct hl_db *db, const struct identity *who, const int64_t *ids, int n,
		     int64_t *kept);
/* The request changed what `user` (0: anyone) or the people of `location`
 * (0: any) may see: once it has committed, and before the writer is free
 * (dispatch_finish), their live streams are checked again at once
 * (live_recheck). */
void auth_rights_changed(struct hl_req *r, int64_t user, int64_t location);

/* Set (or with lifetime 0, clear) the session cookie on the answer. */
void auth_set_cookie(struct hl_req *r, const char *token, int64_t lifetime_s);

/* A new random token as text ("PREFIX" + base64url), and its hash. */
void auth_token_new(const char *prefix, char out[TOKEN_TEXT], unsigned char hash[32]);
void auth_token_hash(const char *token, unsigned char hash[32]);

/* The caller's address (the proxy's X-Forwarded-For when the peer is a
 * trusted proxy) and whether the request came over TLS. */
const char *auth_client(struct hl_req *r);
/* The address as rate limits count it: an IPv6 address by its /64
 * ("2001:db8:1:2::/64"), an IPv4 one as itself (mapped into IPv6 too). */
const char *auth_client_key(struct hl_req *r);
/* Whether `addr` (as auth_client gives it) is this machine's loopback. */
int auth_is_loopback(const char *addr);
int auth_is_tls(struct hl_req *r);
/* The host the client asked for: a trusted proxy's X-Forwarded-Host, else
 * the Host header; NULL when there is none. */
const char *auth_host(struct hl_req *r);
/* Whether a browser's request comes from a page of ours, or from no
 * browser: Sec-Fetch-Site not "cross-site", and the Origin, when there is
 * one, this server's host; with `null_ok`, an Origin of "null" too (what
 * a form posts from a page under Referrer-Policy no-referrer). For what a
 * browser sends on its own (a cookie) or a stranger's page could post. */
int auth_from_our_pages(struct hl_req *r, int null_ok);
/* Whether the request carries a session cookie, valid or not: looked at
 * without the database, for a guess (static.c), never for a decision. */
int auth_carries_session(struct hl_req *r);

enum role role_parse(const char *s);
const char *role_name(enum role role);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * links.c: one-time links that let a person choose their password without
 * telling it to anyone (the account_links table, migration 011):
 *   - an invitation, made when an admin adds a person with no password
 *     (users.c) or sends it again; it lasts INVITE_DAYS;
 *   - a reset, asked for on the sign-in page ("forgot password") or made
 *     by an admin to hand over; it lasts RESET_S.
 * A link is used once; a new one ends the person's earlier ones. Only the
 * SHA-256 of its secret is kept: the link is in the answer that made it
 * (an admin's), never again, and in the e-mail carrying it.
 *
 * The e-mail goes through the channel "email", whichever module delivers
 * it, from the core's job account_mail: the request records it as waiting
 * with the link's text, and the job's slice hands it over and records it
 * as sending, clearing the text, in one transaction; settle records how
 * it ended. The sub-account whose e-mail set-up (sender) carries it: the
 * person's first active sub-account (lowest id), or, for agency staff with
 * none of their own, the agency's first active sub-account. With no
 * module delivering e-mail nothing waits: the admin is told that nothing
 * was e-mailed, and hands the link over. A mail the relay refuses or
 * defers is not tried again (its link is gone): the admin sees why beside
 * the person, and makes a new one.
 *
 * The link leads to a public page (GET/POST /link/:token): plain
 * HTML under the default policy, a form that works without JavaScript,
 * that reads no session. Setting the password there ends the person's
 * sessions and signs them in. "Forgot password" answers the same words,
 * after the same work (a write either way), whether the address is
 * anyone's; it is limited per address (silently) and per client (429).
 * Links in e-mail a stranger asked for are made from the setting
 * public_url only, never from the request's Host, which a stranger sets.
 */
#include "admin/admin.h"
#include "auth/audit.h"
#include "auth/auth.h"
#include "auth/password.h"
#include "lib/ratelimit.h"
#include "platform/module.h"
#include "request/answer.h"
#include "server.h"

#include <civetweb.h>
#include <ctype.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define INVITE_DAYS 7
#define RESET_S 3600
#define FORGOT_PER_ADDRESS 3   /* reset mails per address per 15 minutes */
#define FORGOT_PER_CLIENT 10   /* forgot-password asks per client per 15 minutes */
#define LINK_TRIES_PER_CLIENT 30 /* link pages posted per client per 15 minutes */
#define MAIL_BATCH 20
/* Times as the accounts tables keep them. */
#define NOW "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"

static int resend_invitation(struct hl_req *req);
static int revoke_invitation(struct hl_req *req);
static int make_reset_link(struct hl_req *req);
static int forgot_password(struct hl_req *req);
static int link_page(struct hl_req *req);
static int use_link(struct hl_req *req);

#define ADMIN .access = HL_ACCESS_ADMIN, .flags = HL_ROUTE_NO_LOCATION

static const struct hl_route routes[] = {
	{ .method = "POST", .pattern = "/api/admin/users/:id/invitation",
	  .handler = resend_invitation, ADMIN },
	{ .method = "DELETE", .pattern = "/api/admin/users/:id/invitation",
	  .handler = revoke_invitation, ADMIN },
	{ .method = "POST", .pattern = "/api/admin/users/:id/reset-link", .handler = make_reset_link,
	  ADMIN },
	{ .method = "POST", .pattern = "/api/auth/forgot", .handler = forgot_password,
	  .access = HL_ACCESS_PUBLIC },
	{ .method = "GET", .pattern = "/link/:token", .handler = link_page,
	  .access = HL_ACCESS_PUBLIC },
	{ .method = "POST", .pattern = "/link/:token", .handler = use_link,
	  .access = HL_ACCESS_PUBLIC, .flags = HL_ROUTE_RAW_BODY },
};

/* The link page's look: small and inline, allowed by its hash alone
 * (page_csp, made at start), as the first page's is. */
static const char style[] =
	":root{color-scheme:light dark;font:16px/1.5 system-ui,-apple-system,\"Segoe UI\",Roboto,"
	"Arial,sans-serif}body{margin:0;padding:48px 16px;background:#f4f5f7;color:#1d2330}"
	"main{max-width:384px;margin:0 auto;padding:32px;background:#fff;border:1px solid #d9dde3;"
	"border-radius:8px}h1{font-size:22px;line-height:1.3;margin:0 0 16px}p{margin:0 0 16px}"
	"label{display:block;font-weight:600;margin:0 0 4px}input{box-sizing:border-box;width:100%;"
	"min-height:40px;padding:8px 12px;font:inherit;color:inherit;background:transparent;"
	"border:1px solid #8a93a3;border-radius:6px}button{width:100%;min-height:40px;font:inherit;"
	"font-weight:600;color:#fff;background:#2f5bd3;border:0;border-radius:6px;cursor:pointer}"
	"[role=alert]{padding:8px 12px;border-radius:6px;background:#fcebea;color:#b3261e;"
	"font-weight:600}a{color:#2f5bd3}"
	"@media (prefers-color-scheme:dark){body{background:#121418;color:#e5e7eb}"
	"main{background:#1b1e23;border-color:#363b44}button{background:#7ea3ff;color:#0d1424}"
	"a{color:#7ea3ff}[role=alert]{background:#3b1f1d;color:#ff8f87}}"
	"@media (max-width:480px){body{padding:24px 8px}main{padding:24px 16px}}";
static char page_csp[512];

int links_register(struct router *r)
{
	unsigned char sum[crypto_hash_sha256_BYTES];
	char b64[sodium_base64_ENCODED_LEN(crypto_hash_sha256_BYTES, sodium_base64_VARIANT_ORIGINAL)];
	crypto_hash_sha256(sum, (const unsigned char *)style, sizeof(style) - 1);
	sodium_bin2base64(b64, sizeof(b64), sum, sizeof(sum), sodium_base64_VARIANT_ORIGINAL);
	if (snprintf(page_csp, sizeof(page_csp), "%s; style-src 'sha256-%s'", answer_csp, b64) >=
	    (int)sizeof(page_csp))
		return HL_ENOMEM;
	return router_add_table(r, routes, sizeof(routes) / sizeof(routes[0]), "core");
}

/* ---- making a link --------------------------------------------------------- */

int64_t links_end(struct hl_db *w, int64_t user, int64_t live)
{
	sqlite3_stmt *st = hl_stmt(w, "UPDATE account_links SET used_at = " NOW ", mail_link = NULL,"
		" mail_state = NULLIF(mail_state, 'waiting') WHERE user_id = :user AND used_at IS NULL"
		" AND (:live = 0 OR EXISTS (SELECT 1 FROM account_links WHERE id = :live"
		"  AND used_at IS NULL))");
	hl_bind_int(st, ":user", user);
	hl_bind_int(st, ":live", live);
	return hl_step_changes(st);
}

/* Where links lead: the setting public_url, else (for an admin, who sees
 * the link) the host the admin's browser asked; NULL for neither. */
static const char *link_base(struct hl_req *req, int from_admin)
{
	const char *host = auth_host(req);
	if (*hl_public_url())
		return hl_public_url();
	if (!from_admin || !host || strpbrk(host, "/\\\"<> "))
		return NULL;
	return hl_sprintf(req, "%s://%s", auth_is_tls(req) ? "https" : "http", host);
}

/* A new link of `kind` for `user`, written in w's transaction (earlier
 * ones of the person ended), its e-mail waiting when `mail`; made->url
 * in the request's arena. 0 or HL_EDB. */
static int link_new(struct hl_req *req, struct hl_db *w, int64_t user, const char *kind,
		    const char *base, int mail, struct link_made *made)
{
	char token[TOKEN_TEXT];
	unsigned char hash[32];
	auth_token_new("", token, hash);
	made->url = hl_sprintf(req, "%s/link/%s", base, token);
	made->expires_at = (int64_t)time(NULL) + (strcmp(kind, "invite") ? RESET_S
									 : INVITE_DAYS * 86400);
	made->emailed = mail;
	if (links_end(w, user, 0) < 0)
		return HL_EDB;
	sqlite3_stmt *st = hl_stmt(w, "INSERT INTO account_links (token_hash, user_id, kind, expires_at, made_by,"
			" mail_state, mail_link) VALUES (:token_hash, :user, :kind, :expires_at,"
			" NULLIF(:made_by, 0), CASE WHEN :mail THEN 'waiting' END,"
			" CASE WHEN :mail THEN :mail_link END)");
	hl_bind_blob(st, ":token_hash", hash, sizeof(hash));
	hl_bind_int(st, ":user", user);
	hl_bind_text(st, ":kind", kind);
	hl_bind_int(st, ":expires_at", made->expires_at);
	hl_bind_int(st, ":made_by", req->who.user_id);
	hl_bind_int(st, ":mail", mail);
	hl_bind_text(st, ":mail_link", made->url);
	if ((made->id = hl_step_last_id(st)) <= 0)
		return HL_EDB;
	return mail ? hl_publish(req, "account.mail", 0, NULL) : 0;
}

int links_make(struct hl_req *req, struct hl_db *w, int64_t user, const char *kind,
	       struct link_made *made)
{
	const char *base = link_base(req, 1);
	if (!base) {
		hl_reply_error(req, 422, "validation", "the server's address is not known: set"
			       " public_url, or open this page by its address");
		return HL_EINVAL;
	}
	return link_new(req, w, user, kind, base, hl_channel_provider(req, "email") != NULL, made);
}

void links_write(struct hl_req *req, struct hl_json *j, const char *email,
		 const struct link_made *made)
{
	hl_json_object(j);
	hl_json_key(j, "id");
	hl_json_int(j, made->id);
	hl_json_key(j, "link");
	hl_json_string(j, made->url);
	char expires[32];
	hl_time_text((time_t)made->expires_at, expires);
	hl_json_key(j, "expires_at");
	hl_json_string(j, expires);
	hl_json_key(j, "emailed");
	hl_json_bool(j, made->emailed);
	hl_json_key(j, "message");
	hl_json_string(j, made->emailed
		? hl_sprintf(req, "An e-mail with this link is being sent to %s.", email)
		: "No e-mail provider is set up, so nothing was e-mailed: hand this link over"
		  " yourself.");
	hl_json_object_end(j);
}

/* ---- what an admin does ------------------------------------------------------ */

/* The e-mail of the agency's user `id` when `invited` says what its
 * password must be (1: none yet, an invitation; 0: any), or NULL after a
 * 404 or 409. */
static const char *person(struct hl_req *req, struct hl_db *w, int64_t id, int invited)
{
	sqlite3_stmt *st = hl_stmt(w, "SELECT email, password_hash IS NULL FROM users"
				      " WHERE id = :id AND agency_id = :agency");
	hl_bind_int(st, ":id", id);
	hl_bind_int(st, ":agency", req->who.agency_id);
	if (!st || sqlite3_step(st) != SQLITE_ROW) {
		if (st)
			sqlite3_reset(st);
		hl_reply_error(req, 404, "not_found", "no such user");
		return NULL;
	}
	const char *e = (const char *)sqlite3_column_text(st, 0);
	const char *email = hl_strndup(req, e, strlen(e));
	int pending = sqlite3_column_int(st, 1);
	sqlite3_reset(st);
	if (invited && !pending) {
		hl_reply_error(req, 409, "conflict", "this person has accepted their invitation");
		return NULL;
	}
	return email;
}

/* Answer a link just made for `email`. */
static int answer_link(struct hl_req *req, int status, const char *email,
		       const struct link_made *made)
{
	links_write(req, hl_reply_json(req, status), email, made);
	return 0;
}

/* POST /api/admin/users/:id/invitation: a new invitation for a person who
 * has not accepted theirs (the earlier link ends; a revoked one is
 * enabled again). */
static int resend_invitation(struct hl_req *req)
{
	int64_t id;
	struct link_made made;
	if (hl_param_id(req, "id", &id))
		return 0;
	struct hl_db *w = hl_write_begin(req);
	const char *email = w ? person(req, w, id, 1) : NULL;
	if (!email)
		return w ? 0 : HL_EDB;
	sqlite3_stmt *st = hl_stmt(w, "UPDATE users SET disabled_at = NULL,"
				      " updated_at = " NOW " WHERE id = :id");
	hl_bind_int(st, ":id", id);
	if (hl_step_changes(st) < 0)
		return HL_EDB;
	int rc = links_make(req, w, id, "invite", &made);
	if (rc)
		return rc == HL_EINVAL ? 0 : rc;
	if (audit_note(req, 0, "user.invited", "user", id))
		return HL_EDB;
	auth_rights_changed(req, id, 0);
	return answer_link(req, 201, email, &made);
}

/* DELETE /api/admin/users/:id/invitation: the link ends and the person,
 * who never signed in, is disabled (an invitation sent again revives
 * them). */
static int revoke_invitation(struct hl_req *req)
{
	int64_t id;
	if (hl_param_id(req, "id", &id))
		return 0;
	struct hl_db *w = hl_write_begin(req);
	if (!w)
		return HL_EDB;
	if (!person(req, w, id, 1))
		return 0;
	sqlite3_stmt *st = hl_stmt(w, "UPDATE users SET disabled_at = COALESCE(disabled_at, " NOW "),"
				      " updated_at = " NOW " WHERE id = :id");
	hl_bind_int(st, ":id", id);
	if (links_end(w, id, 0) < 0 || hl_step_changes(st) < 0)
		return HL_EDB;
	if (audit_note(req, 0, "user.invitation_revoked", "user", id))
		return HL_EDB;
	auth_rights_changed(req, id, 0);
	return hl_reply_empty(req);
}

/* POST /api/admin/users/:id/reset-link: a link that sets a new password,
 * for the admin to hand over (and e-mailed when e-mail is set up). The
 * password stays until the link is used. */
static int make_reset_link(struct hl_req *req)
{
	int64_t id;
	struct link_made made;
	if (hl_param_id(req, "id", &id))
		return 0;
	struct hl_db *w = hl_write_begin(req);
	const char *email = w ? person(req, w, id, 0) : NULL;
	if (!email)
		return w ? 0 : HL_EDB;
	int rc = links_make(req, w, id, "reset", &made);
	if (rc)
		return rc == HL_EINVAL ? 0 : rc;
	if (audit_note(req, 0, "user.reset_link", "user", id))
		return HL_EDB;
	return answer_link(req, 201, email, &made);
}

/* ---- forgot password ---------------------------------------------------------- */

/* The active user with `email`, 0 for none, -1 when the database failed. */
static int64_t user_by_email(struct hl_db *w, const char *email)
{
	sqlite3_stmt *st = hl_stmt(w, "SELECT id FROM users WHERE email = :email"
				      " AND disabled_at IS NULL");
	hl_bind_text(st, ":email", email);
	int64_t id = 0;
	return hl_step_int(st, &id) < 0 ? -1 : id;
}

/* Whether `key` of `kind` is within `max` asks in the window. */
static int within(struct hl_req *req, const char *kind, const char *key, long max,
		  struct limit *l)
{
	char k[320];
	snprintf(k, sizeof(k), "%s:%s", kind, key);
	for (char *p = k; *p; p++) /* e-mails are compared without case */
		*p = (char)tolower((unsigned char)*p);
	return limiter_hit(req->srv->login_guess_limit, k, max, l);
}

/* POST /api/auth/forgot {"email"}: 202 with the same words whoever owns
 * the address, or nobody. */
static int forgot_password(struct hl_req *req)
{
	static const char *const keys[] = { "email", NULL };
	const char *email = NULL;
	struct link_made made;
	struct limit l;
	memset(&req->who, 0, sizeof(req->who)); /* whoever is signed in does not count */
	if (hl_fields_only(req, 0, keys) || hl_field_text(req, 0, "email", 254, &email) < 0)
		return 0;
	if (!email || !hl_is_email(email))
		return hl_reply_invalid(req, "email", "an e-mail address");
	if (!within(req, "forgot-client", auth_client_key(req), FORGOT_PER_CLIENT, &l)) {
		auth_too_many(req, &l, "too many requests for a new password");
		return 0;
	}
	struct hl_db *w = hl_write_begin(req);
	int64_t user = w ? user_by_email(w, email) : -1;
	if (user < 0)
		return HL_EDB;
	const char *base = link_base(req, 0);
	int mail = user && base && hl_channel_provider(req, "email") &&
		   within(req, "forgot", email, FORGOT_PER_ADDRESS, &l);
	if (mail && link_new(req, w, user, "reset", base, 1, &made))
		return HL_EDB;
	if (audit_note(req, user, mail ? "password.reset_asked" : "password.reset_refused", "user",
		       user))
		return HL_EDB;
	struct hl_json *j = hl_reply_json(req, 202);
	hl_json_object(j);
	hl_json_key(j, "message");
	hl_json_string(j, "If an account uses this address, an e-mail with a link to choose a"
			  " new password is on its way. The link works for an hour.");
	hl_json_object_end(j);
	return 0;
}

/* ---- the link's page ------------------------------------------------------------ */

/* A live link, as its page needs it. */
struct live_link {
	int64_t id, user;
	int invite;
	const char *name, *email, *agency; /* escaped */
};

/* The link the path's token names when it is live (unused, unexpired,
 * its person enabled): 1; 0 for none; -1 when the database failed. */
static int find_link(struct hl_req *req, struct live_link *k)
{
	unsigned char hash[32];
	const char *token = hl_param(req, "token");
	if (!token || strlen(token) >= TOKEN_TEXT)
		return 0;
	auth_token_hash(token, hash);
	sqlite3_stmt *st = hl_stmt(hl_read(req),
		"SELECT k.id, k.user_id, k.kind = 'invite', u.name, u.email, a.name"
		" FROM account_links k JOIN users u ON u.id = k.user_id"
		" JOIN agencies a ON a.id = u.agency_id"
		" WHERE k.token_hash = :token_hash AND k.used_at IS NULL AND k.expires_at > :now"
		" AND u.disabled_at IS NULL");
	if (!st)
		return -1;
	hl_bind_blob(st, ":token_hash", hash, sizeof(hash));
	hl_bind_int(st, ":now", (int64_t)time(NULL));
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		k->id = sqlite3_column_int64(st, 0);
		k->user = sqlite3_column_int64(st, 1);
		k->invite = sqlite3_column_int(st, 2);
		k->name = hl_html_text(req, (const char *)sqlite3_column_text(st, 3));
		k->email = hl_html_text(req, (const char *)sqlite3_column_text(st, 4));
		k->agency = hl_html_text(req, (const char *)sqlite3_column_text(st, 5));
	}
	sqlite3_reset(st);
	request_return_reader(req);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* The page: a heading, a sentence (markup of ours), and `form` (or ""). */
static int page(struct hl_req *req, int status, const char *title, const char *text,
		const char *form)
{
	const char *html = hl_sprintf(req, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset="
		"\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
		"<meta name=\"referrer\" content=\"no-referrer\"><title>%s · HyperLevel</title>"
		"<style>%s</style></head><body><main><h1>%s</h1>%s%s</main></body></html>\n", title,
		style, title, text, form);
	int rc = hl_reply_raw(req, status, "text/html; charset=utf-8", html, strlen(html));
	req->csp = page_csp; /* after the answer began, which resets it */
	return rc;
}

static int gone(struct hl_req *req)
{
	return page(req, 404, "This link no longer works",
		    "<p>It was used already, has expired, or was replaced by a newer one."
		    " Ask your administrator for a new invitation, or ask for a new password"
		    " on the <a href=\"/\">sign-in page</a>.</p>", "");
}

/* The link's form, with `error` (markup of ours) above it, or "". */
static int form(struct hl_req *req, int status, const struct live_link *k, const char *error)
{
	const char *title = k->invite ? "Choose your password" : "Choose a new password";
	const char *text = k->invite
		? hl_sprintf(req, "<p>Welcome to %s, %s. Choose the password you will sign in"
			     " with as %s.</p>", k->agency, k->name, k->email)
		: hl_sprintf(req, "<p>Choose a new password for %s. Your other devices will be"
			     " signed out.</p>", k->email);
	const char *f = hl_sprintf(req, "%s<form method=\"post\">"
		"<input type=\"hidden\" name=\"username\" autocomplete=\"username\" value=\"%s\">"
		"<p><label for=\"password\">New password</label>"
		"<input id=\"password\" name=\"password\" type=\"password\" autocomplete=\"new-password\""
		" minlength=\"%d\" required></p>"
		"<p><label for=\"confirm\">New password again</label>"
		"<input id=\"confirm\" name=\"confirm\" type=\"password\" autocomplete=\"new-password\""
		" minlength=\"%d\" required></p>"
		"<p><button type=\"submit\">Set password and sign in</button></p></form>",
		error, k->email, PASSWORD_MIN, PASSWORD_MIN);
	return page(req, status, title, text, f);
}

/* GET /link/:token: the form; nothing changes until it is sent
 * (a mail scanner follows links). */
static int link_page(struct hl_req *req)
{
	struct live_link k;
	int found = find_link(req, &k);
	if (found < 0)
		return HL_EDB;
	return found ? form(req, 200, &k, "") : gone(req);
}

/* The form's member `name`, URL-decoded, in the request's arena, or NULL. */
static const char *form_value(struct hl_req *req, const char *name)
{
	size_t len;
	const char *body = hl_body(req, &len);
	char *v = hl_alloc(req, PASSWORD_MAX + 1);
	if (!body || mg_get_var(body, len, name, v, PASSWORD_MAX + 1) < 0)
		return NULL;
	return v;
}

/* The password set, the link and the person's other links used, every
 * session of theirs ended, in the request's transaction: 0; 1 when the
 * link was used meanwhile; HL_EDB. */
static int take_link(struct hl_req *req, const struct live_link *k, const char *hash)
{
	struct hl_db *w = hl_write_begin(req);
	int64_t used = links_end(w, k->user, k->id);
	if (used <= 0)
		return used < 0 ? HL_EDB : 1;
	static const char *const sql[] = {
		"UPDATE users SET password_hash = :password_hash, updated_at = " NOW
		" WHERE id = :user",
		"DELETE FROM sessions WHERE user_id = :user",
	};
	for (int i = 0; i < 2; i++) {
		sqlite3_stmt *st = hl_stmt(w, sql[i]);
		hl_bind_int(st, ":user", k->user);
		hl_bind_text(st, ":password_hash", hash);
		if (hl_step_changes(st) < 0)
			return HL_EDB;
	}
	return 0;
}

/* POST /link/:token, the form (password, confirm): the password
 * set, the person signed in, and off to the app (303). */
static int use_link(struct hl_req *req)
{
	struct live_link k;
	struct limit l;
	char hash[crypto_pwhash_STRBYTES];
	memset(&req->who, 0, sizeof(req->who)); /* the page reads no session */
	if (!auth_from_our_pages(req, 1)) /* another site signing the browser in as its own */
		return page(req, 403, "This form was sent from another site",
			    "<p>Open the link from your e-mail again, and choose your password"
			    " on this page.</p>", "");
	if (!within(req, "link-client", auth_client_key(req), LINK_TRIES_PER_CLIENT, &l)) {
		auth_too_many(req, &l, "too many tries");
		return 0;
	}
	int found = find_link(req, &k);
	if (found <= 0)
		return found < 0 ? HL_EDB : gone(req);
	const char *password = form_value(req, "password"), *confirm = form_value(req, "confirm");
	if (!password || strlen(password) < PASSWORD_MIN)
		return form(req, 422, &k, hl_sprintf(req, "<p role=\"alert\">The password needs at"
						       " least %d characters.</p>", PASSWORD_MIN));
	if (!confirm || strcmp(password, confirm))
		return form(req, 422, &k, "<p role=\"alert\">The two passwords differ: type the"
			    " same one twice.</p>");
	if (password_hash(password, hash))
		return hl_reply_error(req, 503, "busy", "the server is busy; try again in a moment");
	int rc = take_link(req, &k, hash);
	if (rc)
		return rc < 0 ? rc : gone(req);
	if ((rc = accounts_start_session(req, k.user)))
		return rc;
	req->who.user_id = k.user;
	if (audit_note(req, k.user, k.invite ? "invitation.accepted" : "password.reset", "user",
		       k.user))
		return HL_EDB;
	auth_rights_changed(req, k.user, 0);
	request_add_header(req, "Location: /");
	return page(req, 303, "Signed in", "<p><a href=\"/\">Continue</a></p>", "");
}

/* ---- the mail ------------------------------------------------------------------ */

/* The e-mail of link `id`'s person, in their words. */
#define MAIL_SQL                                                                           \
	"SELECT k.id, k.kind, k.mail_link, u.email, u.name, a.name,"                            \
	" COALESCE((SELECT min(ul.location_id) FROM user_locations ul JOIN locations l"         \
	"  ON l.id = ul.location_id AND l.disabled_at IS NULL WHERE ul.user_id = u.id),"       \
	" (SELECT min(id) FROM locations WHERE agency_id = u.agency_id AND disabled_at IS NULL), 0)" \
	" FROM account_links k JOIN users u ON u.id = k.user_id"                                 \
	" JOIN agencies a ON a.id = u.agency_id"                                                 \
	" WHERE k.mail_state = 'waiting' AND k.used_at IS NULL AND k.mail_link IS NOT NULL"      \
	" ORDER BY k.id LIMIT :batch"

static int mail_settle(struct hl_job_run *run, const struct hl_outcome *o)
{
	sqlite3_stmt *st = hl_stmt(hl_job_db(run), "UPDATE account_links SET"
		" mail_state = CASE WHEN :sent THEN 'sent' ELSE 'failed' END, mail_error = :reason"
		" WHERE id = :id AND mail_state = 'sending'");
	hl_bind_int(st, ":sent", o->kind == HL_SENT);
	hl_bind_text(st, ":reason", o->kind == HL_SENT ? NULL : o->reason ? o->reason
							   : "the relay did not take it");
	hl_bind_int(st, ":id", o->id);
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

/* The mail's text, for row `st` of MAIL_SQL: 0, or -1 when it has no
 * link (ended), which no mail is sent without. */
static int mail_text(sqlite3_stmt *st, char *subject, size_t ssize, char *body, size_t bsize)
{
	const char *link = (const char *)sqlite3_column_text(st, 2);
	const char *name = (const char *)sqlite3_column_text(st, 4);
	const char *agency = (const char *)sqlite3_column_text(st, 5);
	if (!link)
		return -1;
	if (!strcmp((const char *)sqlite3_column_text(st, 1), "invite")) {
		snprintf(subject, ssize, "You are invited to %s", agency);
		snprintf(body, bsize, "Hello %s,\n\nYou have been added to %s. Choose your password"
			 " here to sign in:\n\n%s\n\nThe link works once, for %d days.\n", name,
			 agency, link, INVITE_DAYS);
	} else {
		snprintf(subject, ssize, "A new password for %s", agency);
		snprintf(body, bsize, "Hello %s,\n\nSomeone asked for a new password for your"
			 " account. Choose it here:\n\n%s\n\nThe link works once, for an hour. If"
			 " you did not ask, ignore this e-mail: your password stays.\n", name, link);
	}
	return 0;
}

/* Record how link `id`'s mail went into the channel: sending, or failed
 * with `why`. */
static int mail_record(struct hl_db *w, int64_t id, int sending, const char *why)
{
	sqlite3_stmt *st = hl_stmt(w, "UPDATE account_links SET mail_link = NULL,"
		" mail_state = CASE WHEN :sending THEN 'sending' ELSE 'failed' END,"
		" mail_error = :why WHERE id = :id");
	hl_bind_int(st, ":sending", sending);
	hl_bind_text(st, ":why", sending ? NULL : why);
	hl_bind_int(st, ":id", id);
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

/* Hand each waiting mail to the channel "email". */
static int mail_slice(struct hl_job_run *run)
{
	struct hl_db *w = hl_job_db(run);
	sqlite3_stmt *st = hl_stmt(w, MAIL_SQL);
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":batch", MAIL_BATCH);
	int rc = 0, n = 0, busy = 0;
	int64_t ids[MAIL_BATCH];
	char why[MAIL_BATCH][200];
	int sent[MAIL_BATCH];
	while (!busy && sqlite3_step(st) == SQLITE_ROW) {
		char subject[300], body[2048];
		if (mail_text(st, subject, sizeof(subject), body, sizeof(body)))
			continue; /* MAIL_SQL leaves it out */
		struct hl_outgoing m = { .channel = "email",
					 .location_id = sqlite3_column_int64(st, 6),
					 .id = sqlite3_column_int64(st, 0),
					 .to = (const char *)sqlite3_column_text(st, 3),
					 .subject = subject, .body = body, .settle = mail_settle };
		rc = hl_job_send(run, &m, why[n], sizeof(why[n]));
		busy = rc == HL_ETOOBIG || rc == HL_ESTATE;
		if (!busy) {
			if (rc && !why[n][0])
				snprintf(why[n], sizeof(why[n]), rc == HL_ENOENT
					 ? "no e-mail provider is set up" : "the e-mail provider failed");
			ids[n] = m.id;
			sent[n++] = !rc;
		}
	}
	sqlite3_reset(st);
	if (busy) /* the channel is full: the rest wait a moment, not a period */
		hl_job_again_in(run, 1000);
	for (int i = 0; i < n; i++)
		if (mail_record(w, ids[i], sent[i], why[i]))
			return HL_EDB;
	return n == MAIL_BATCH ? HL_JOB_MORE : HL_JOB_DONE;
}

struct mod_job links_mail_job = {
	.name = "core.account_mail",
	.job = { .name = "account_mail", .period_ms = 600 * 1000, .slice = mail_slice,
		 .wake_on = "account.mail" },
};

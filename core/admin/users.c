/* SPDX-License-Identifier: MIT */
/*
 * users.c: agency administrators manage their people and sub-accounts:
 * users (create, or invite by a one-time link (links.c), list, update,
 * disable, reset a password, choose their locations), locations (create, list, update, disable) and the agency's
 * own name and the time zone, currency and country its new locations start
 * with. Everything is scoped to the administrator's agency. The first administrator is made on
 * the command line (`hyperlevel create-admin`), by users_create_admin.
 * Anyone who may open a location reads its people's names (GET
 * /api/users), for owners, assignees and the filters by them.
 */
#include "admin/admin.h"
#include "auth/audit.h"
#include "auth/auth.h"
#include "auth/password.h"
#include "db/db.h"
#include "lib/currency.h"
#include "lib/phone.h"
#include "lib/log.h"
#include "lib/zone.h"
#include "platform/module.h"
#include "server.h"

#include <stdint.h>
#include <string.h>

static int list_users(struct hl_req *req);
static int list_people(struct hl_req *req);
static int create_user(struct hl_req *req);
static int update_user(struct hl_req *req);
static int reset_password(struct hl_req *req);
static int list_locations(struct hl_req *req);
static int create_location(struct hl_req *req);
static int update_location(struct hl_req *req);
static int get_agency(struct hl_req *req);
static int update_agency(struct hl_req *req);

#define ADMIN .access = HL_ACCESS_ADMIN, .flags = HL_ROUTE_NO_LOCATION

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/users", .handler = list_people },
	{ .method = "GET", .pattern = "/api/admin/users", .handler = list_users, ADMIN },
	{ .method = "POST", .pattern = "/api/admin/users", .handler = create_user, ADMIN },
	{ .method = "PATCH", .pattern = "/api/admin/users/:id", .handler = update_user, ADMIN },
	{ .method = "POST", .pattern = "/api/admin/users/:id/password", .handler = reset_password,
	  ADMIN },
	{ .method = "GET", .pattern = "/api/admin/locations", .handler = list_locations, ADMIN },
	{ .method = "POST", .pattern = "/api/admin/locations", .handler = create_location, ADMIN },
	{ .method = "PATCH", .pattern = "/api/admin/locations/:id", .handler = update_location,
	  ADMIN },
	{ .method = "GET", .pattern = "/api/admin/agency", .handler = get_agency, ADMIN },
	{ .method = "PATCH", .pattern = "/api/admin/agency", .handler = update_agency, ADMIN },
};

int users_register(struct router *r)
{
	return router_add_table(r, routes, sizeof(routes) / sizeof(routes[0]), "core");
}

/* ---- reading the body ---------------------------------------------------- */

/* A string member through hl_field_text, NULL when absent; an empty one
 * is refused too, since no user field may be blank. Sets *bad after an
 * answer, so a handler reads every member and checks once. */
static const char *text_field(struct hl_req *req, const char *key, size_t max, int *bad)
{
	const char *v;
	if (*bad)
		return NULL;
	int rc = hl_field_text(req, 0, key, max, &v);
	if (rc == HL_FIELD_NULL || (rc == HL_FIELD_SET && !*v)) {
		hl_reply_error(req, 422, "validation", "%s: text of 1 to %zu characters", key, max);
		rc = HL_EINVAL;
	}
	*bad = rc < 0;
	return rc == HL_FIELD_SET ? v : NULL;
}

/* A boolean member: -1 when absent; sets *bad after an answer. */
static int bool_field(struct hl_req *req, const char *key, int *bad)
{
	int v;
	if (*bad)
		return -1;
	int rc = hl_field_bool(req, 0, key, &v);
	if (rc == HL_FIELD_NULL) {
		hl_reply_error(req, 422, "validation", "%s: true or false", key);
		rc = HL_EINVAL;
	}
	*bad = rc < 0;
	return rc == HL_FIELD_SET ? v : -1;
}

/* ---- users ------------------------------------------------------------- */

/* A query of the agency's rows (all, or the one with :id = `id`). */
static sqlite3_stmt *agency_query(struct hl_req *req, const char *sql, int64_t id)
{
	sqlite3_stmt *st = hl_stmt(hl_read(req), sql);
	if (st) {
		hl_bind_int(st, ":agency", req->who.agency_id);
		hl_bind_int(st, ":id", id);
	}
	return st;
}

/* The agency's users, or the one with `id`, in id order. */
static sqlite3_stmt *user_query(struct hl_req *req, int64_t id)
{
	return agency_query(req,
		"SELECT u.id, u.email, u.name, u.role,"
		" CASE WHEN u.assigned_only THEN 'true' ELSE 'false' END AS json_assigned_only,"
		" u.disabled_at, u.created_at,"
		" CASE WHEN u.password_hash IS NULL THEN 'true' ELSE 'false' END AS json_invited,"
		" (SELECT json_object('id', k.id, 'kind', k.kind, 'expires_at',"
		"  strftime('%Y-%m-%dT%H:%M:%SZ', k.expires_at, 'unixepoch'), 'used_at', k.used_at,"
		"  'mail', k.mail_state, 'mail_error', k.mail_error)"
		"  FROM account_links k WHERE k.user_id = u.id ORDER BY k.id DESC LIMIT 1)"
		"  AS json_link,"
		" (SELECT json_group_array(location_id) FROM (SELECT location_id FROM user_locations"
		"  WHERE user_id = u.id ORDER BY location_id)) AS json_location_ids"
		" FROM users u WHERE u.agency_id = :agency AND (:id = 0 OR u.id = :id)"
		" ORDER BY u.id", id);
}

static int list_users(struct hl_req *req)
{
	sqlite3_stmt *st = user_query(req, 0);
	return st ? hl_reply_page(req, st, INT64_MAX, 0) : HL_EDB;
}

/* Who may open the current location (the location_users view), by name:
 * what a deal's owner or a task's assignee is shown as. No e-mail: a
 * location user learns no more of the agency than the names they work
 * beside. */
static int list_people(struct hl_req *req)
{
	sqlite3_stmt *st = hl_scoped_read(req,
		"SELECT u.id, u.name, u.role FROM location_users lu JOIN users u ON u.id = lu.user_id"
		" WHERE lu.location_id = :location ORDER BY u.name COLLATE NOCASE, u.id");
	return st ? hl_reply_page(req, st, INT64_MAX, 0) : HL_EDB;
}

static int in_agency(struct hl_req *req, struct hl_db *w, int64_t location)
{
	sqlite3_stmt *st = hl_stmt(w,
		"SELECT 1 FROM locations WHERE id = :id AND agency_id = :agency");
	hl_bind_int(st, ":id", location);
	hl_bind_int(st, ":agency", req->who.agency_id);
	int64_t one;
	return hl_step_int(st, &one) == 1;
}

/* Replace the user's locations with the body's location_ids (when given);
 * each must be a location of the agency. Answers 422 itself. */
static int set_locations(struct hl_req *req, struct hl_db *w, int64_t user)
{
	int arr = hl_body_find(req, 0, "location_ids");
	if (arr < 0)
		return 0;
	if (hl_body_type(req, arr) != HL_JSON_ARRAY) {
		hl_reply_error(req, 422, "validation", "location_ids must be an array of ids");
		return HL_EINVAL;
	}
	sqlite3_stmt *st = hl_stmt(w, "DELETE FROM user_locations WHERE user_id = :user");
	hl_bind_int(st, ":user", user);
	if (hl_step_changes(st) < 0)
		return HL_EDB;
	for (int i = 0; i < hl_body_count(req, arr); i++) {
		int64_t loc = 0;
		if (hl_body_int(req, hl_body_index(req, arr, i), &loc) || !in_agency(req, w, loc)) {
			hl_reply_error(req, 422, "validation", "location_ids[%d] is not a location of"
				       " your agency", i);
			return HL_EINVAL;
		}
		st = hl_stmt(w, "INSERT OR IGNORE INTO user_locations (user_id, location_id)"
				" VALUES (:user, :granted_location)");
		hl_bind_int(st, ":user", user);
		hl_bind_int(st, ":granted_location", loc);
		if (hl_step_changes(st) < 0)
			return HL_EDB;
	}
	return 0;
}

static int answer_user(struct hl_req *req, int status, int64_t id)
{
	sqlite3_stmt *st = user_query(req, id);
	return st ? hl_reply_row(req, status, st, "user") : HL_EDB;
}

/* The answer to an invitation: the user, and the link made. */
static int answer_invited(struct hl_req *req, int64_t id, const char *email,
			  const struct link_made *made)
{
	sqlite3_stmt *st = user_query(req, id);
	if (!st || sqlite3_step(st) != SQLITE_ROW)
		return HL_EDB;
	struct hl_json *j = hl_reply_json(req, 201);
	hl_json_object(j);
	hl_json_columns(j, st);
	sqlite3_reset(st);
	hl_json_key(j, "invitation");
	links_write(req, j, email, made);
	hl_json_object_end(j);
	return 0;
}

/* POST /api/admin/users {"email", "name", "role", "password"?,
 * "location_ids"?, "assigned_only"?}: without a password, the person is
 * invited: a one-time link lets them choose it (links.c). */
static int create_user(struct hl_req *req)
{
	static const char *const keys[] = { "email", "name", "role", "password", "location_ids",
					    "assigned_only", NULL };
	int bad = 0;
	if (hl_fields_only(req, 0, keys))
		return 0;
	const char *email = text_field(req, "email", 254, &bad);
	const char *name = text_field(req, "name", 200, &bad);
	const char *role = text_field(req, "role", 32, &bad);
	const char *password = text_field(req, "password", PASSWORD_MAX, &bad);
	int assigned_only = bool_field(req, "assigned_only", &bad);
	if (bad)
		return 0;
	if (!email || !hl_is_email(email))
		return hl_reply_error(req, 422, "validation", "email must be an e-mail address");
	if (!name || !role_parse(role))
		return hl_reply_error(req, 422, "validation", "name and a role (agency_admin,"
				      " agency_user, location_admin, location_user) are required");
	if (password && strlen(password) < PASSWORD_MIN)
		return hl_reply_error(req, 422, "validation", "password must have at least %d"
				      " characters", PASSWORD_MIN);
	char hash[crypto_pwhash_STRBYTES];
	if (password && password_hash(password, hash))
		return hl_reply_error(req, 503, "busy", "the server is busy; try again in a moment");
	struct hl_db *w = hl_write_begin(req);
	sqlite3_stmt *st = hl_stmt(w,
		"INSERT INTO users (agency_id, email, name, role, assigned_only, password_hash)"
		" VALUES (:agency, :email, :name, :role, :assigned_only, :password_hash)"
		" ON CONFLICT (email) DO NOTHING RETURNING id");
	hl_bind_int(st, ":agency", req->who.agency_id);
	hl_bind_text(st, ":email", email);
	hl_bind_text(st, ":name", name);
	hl_bind_text(st, ":role", role);
	hl_bind_int(st, ":assigned_only", assigned_only > 0);
	hl_bind_text(st, ":password_hash", password ? hash : NULL);
	int64_t id;
	int added = hl_step_int(st, &id);
	if (added < 0)
		return HL_EDB;
	if (!added)
		return hl_reply_error(req, 409, "conflict", "a user with this e-mail exists");
	struct link_made made;
	int rc = set_locations(req, w, id);
	if (!rc && !password)
		rc = links_make(req, w, id, "invite", &made);
	if (rc)
		return rc == HL_EINVAL ? 0 : rc;
	if (audit_note(req, 0, password ? "user.created" : "user.invited", "user", id))
		return HL_EDB;
	return password ? answer_user(req, 201, id) : answer_invited(req, id, email, &made);
}

/* End every way the user is signed in, sessions and API tokens alike,
 * and their one-time links: after a disable or a new password
 * (re-enabling revives none). */
static int sign_out_everywhere(struct hl_db *w, int64_t user)
{
	static const char *const sql[] = {
		"DELETE FROM sessions WHERE user_id = :user",
		"UPDATE api_tokens SET revoked_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"
		" WHERE user_id = :user AND revoked_at IS NULL",
	};
	for (int i = 0; i < 2; i++) {
		sqlite3_stmt *st = hl_stmt(w, sql[i]);
		hl_bind_int(st, ":user", user);
		if (hl_step_changes(st) < 0)
			return HL_EDB;
	}
	/* nor may a link made before set another password */
	return links_end(w, user, 0) < 0 ? HL_EDB : 0;
}

/* PATCH /api/admin/users/:id {"name"?, "role"?, "assigned_only"?,
 * "disabled"?, "location_ids"?} */
static int update_user(struct hl_req *req)
{
	static const char *const keys[] = { "name", "role", "assigned_only", "disabled",
					    "location_ids", NULL };
	int64_t id;
	int bad = 0;
	if (hl_param_id(req, "id", &id) || hl_fields_only(req, 0, keys))
		return 0;
	const char *name = text_field(req, "name", 200, &bad);
	const char *role = text_field(req, "role", 32, &bad);
	int assigned_only = bool_field(req, "assigned_only", &bad);
	int disabled = bool_field(req, "disabled", &bad);
	if (bad)
		return 0;
	if (role && !role_parse(role))
		return hl_reply_error(req, 422, "validation", "role must be agency_admin, agency_user,"
				      " location_admin or location_user");
	if (id == req->who.user_id && (disabled > 0 || (role && strcmp(role, "agency_admin"))))
		return hl_reply_error(req, 422, "validation", "you cannot disable or demote yourself");
	struct hl_db *w = hl_write_begin(req);
	sqlite3_stmt *st = hl_stmt(w,
		"UPDATE users SET name = COALESCE(:name, name), role = COALESCE(:role, role),"
		" assigned_only = CASE WHEN :assigned_only < 0 THEN assigned_only"
		"  ELSE :assigned_only END,"
		" disabled_at = CASE WHEN :disabled < 0 THEN disabled_at"
		"  WHEN :disabled = 0 THEN NULL"
		"  ELSE COALESCE(disabled_at, strftime('%Y-%m-%dT%H:%M:%SZ', 'now')) END,"
		" updated_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"
		" WHERE id = :id AND agency_id = :agency");
	hl_bind_int(st, ":id", id);
	hl_bind_int(st, ":agency", req->who.agency_id);
	hl_bind_text(st, ":name", name);
	hl_bind_text(st, ":role", role);
	hl_bind_int(st, ":assigned_only", assigned_only);
	hl_bind_int(st, ":disabled", disabled);
	int64_t changed = hl_step_changes(st);
	if (changed < 0)
		return HL_EDB;
	if (!changed)
		return hl_reply_error(req, 404, "not_found", "no such user");
	int rc = set_locations(req, w, id);
	if (!rc && disabled > 0)
		rc = sign_out_everywhere(w, id);
	if (rc)
		return rc == HL_EINVAL ? 0 : rc;
	if (audit_note(req, 0, disabled > 0 ? "user.disabled" : "user.updated", "user", id))
		return HL_EDB;
	auth_rights_changed(req, id, 0);
	return answer_user(req, 200, id);
}

/* POST /api/admin/users/:id/password {"password"}: also signs them out. */
static int reset_password(struct hl_req *req)
{
	static const char *const keys[] = { "password", NULL };
	int64_t id;
	int bad = 0;
	if (hl_param_id(req, "id", &id) || hl_fields_only(req, 0, keys))
		return 0;
	const char *password = text_field(req, "password", PASSWORD_MAX, &bad);
	if (bad)
		return 0;
	if (!password || strlen(password) < PASSWORD_MIN)
		return hl_reply_error(req, 422, "validation", "password must have at least %d"
				      " characters", PASSWORD_MIN);
	char hash[crypto_pwhash_STRBYTES];
	if (password_hash(password, hash))
		return hl_reply_error(req, 503, "busy", "the server is busy; try again in a moment");
	struct hl_db *w = hl_write_begin(req);
	sqlite3_stmt *st = hl_stmt(w, "UPDATE users SET password_hash = :password_hash,"
				      " updated_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"
				      " WHERE id = :id AND agency_id = :agency");
	hl_bind_int(st, ":id", id);
	hl_bind_int(st, ":agency", req->who.agency_id);
	hl_bind_text(st, ":password_hash", hash);
	int64_t changed = hl_step_changes(st);
	if (changed < 0)
		return HL_EDB;
	if (!changed)
		return hl_reply_error(req, 404, "not_found", "no such user");
	int rc = sign_out_everywhere(w, id);
	if (rc)
		return rc;
	if (audit_note(req, 0, "user.password_reset", "user", id))
		return HL_EDB;
	auth_rights_changed(req, id, 0);
	return hl_reply_raw(req, 204, "text/plain", "", 0);
}

/* ---- locations ----------------------------------------------------------- */

/* The agency's locations, or the one with `id`, in id order. */
static sqlite3_stmt *location_query(struct hl_req *req, int64_t id)
{
	return agency_query(req,
		"SELECT id, name, timezone, currency, country, disabled_at, created_at, updated_at"
		" FROM locations"
		" WHERE agency_id = :agency AND (:id = 0 OR id = :id) ORDER BY id", id);
}

static int list_locations(struct hl_req *req)
{
	sqlite3_stmt *st = location_query(req, 0);
	return st ? hl_reply_page(req, st, INT64_MAX, 0) : HL_EDB;
}

static int answer_location(struct hl_req *req, int status, int64_t id)
{
	sqlite3_stmt *st = location_query(req, id);
	return st ? hl_reply_row(req, status, st, "location") : HL_EDB;
}

/* A sub-account's time zone, currency and country, when given: one the
 * tz database knows, an active ISO 4217 code and an ISO 3166-1 code phone
 * numbers are read with. Answers 422 and returns 1 for another. */
static int bad_place(struct hl_req *req, const char *timezone, const char *currency,
		     const char *country)
{
	if (timezone && !zone_known(timezone))
		return !hl_reply_error(req, 422, "validation", "timezone: \"%s\" is not a time zone"
				       " of the tz database, such as \"America/Chicago\"", timezone);
	if (currency && currency_digits(currency) < 0)
		return !hl_reply_error(req, 422, "validation", "currency: \"%s\" is not an ISO 4217"
				       " code, such as \"USD\" or \"EUR\"", currency);
	if (country && !phone_country_known(country))
		return !hl_reply_error(req, 422, "validation", "country: \"%s\" is not an ISO 3166-1"
				       " code, such as \"US\" or \"GB\"", country);
	return 0;
}

/* A sub-account's or the agency's name and place in a body, each NULL
 * when absent. */
struct place {
	const char *name, *timezone, *currency, *country;
};

/* Reads `p` (after any member read into *bad before): 0, or 1 after a
 * 422 (bad_place). */
static int read_place(struct hl_req *req, struct place *p, int *bad)
{
	p->name = text_field(req, "name", 200, bad);
	p->timezone = text_field(req, "timezone", 64, bad);
	p->currency = text_field(req, "currency", 3, bad);
	p->country = text_field(req, "country", 2, bad);
	return *bad || bad_place(req, p->timezone, p->currency, p->country);
}

static void bind_place(sqlite3_stmt *st, const struct place *p)
{
	hl_bind_text(st, ":name", p->name);
	hl_bind_text(st, ":timezone", p->timezone);
	hl_bind_text(st, ":currency", p->currency);
	hl_bind_text(st, ":country", p->country);
}

/* POST /api/admin/locations {"name", "timezone"?, "currency"?, "country"?} */
static int create_location(struct hl_req *req)
{
	static const char *const keys[] = { "name", "timezone", "currency", "country", NULL };
	struct place p;
	int bad = 0;
	if (hl_fields_only(req, 0, keys) || read_place(req, &p, &bad))
		return 0;
	if (!p.name)
		return hl_reply_error(req, 422, "validation", "name is required");
	sqlite3_stmt *st = hl_stmt(hl_write_begin(req),
		"INSERT INTO locations (agency_id, name, timezone, currency, country)"
		" SELECT :agency, :name, COALESCE(:timezone, timezone), COALESCE(:currency, currency),"
		" COALESCE(:country, country) FROM agencies WHERE id = :agency RETURNING id");
	hl_bind_int(st, ":agency", req->who.agency_id);
	bind_place(st, &p);
	int64_t id;
	if (hl_step_int(st, &id) != 1)
		return HL_EDB;
	if (audit_note(req, 0, "location.created", "location", id))
		return HL_EDB;
	return answer_location(req, 201, id);
}

/* Whether sub-account `id`'s amounts may be read in `currency` from now
 * on: they are kept in minor units, so a currency with as many digits
 * after the point (USD, EUR, GBP) may replace another, while JPY (none)
 * would read every cent as a yen. Answers 422 and returns 1 for one
 * that may not; 0 also for no such sub-account (the update answers it). */
static int bad_currency_change(struct hl_req *req, struct hl_db *w, int64_t id,
			       const char *currency)
{
	char now[4] = "";
	sqlite3_stmt *st = hl_stmt(w, "SELECT currency FROM locations"
				      " WHERE id = :id AND agency_id = :agency");
	hl_bind_int(st, ":id", id);
	hl_bind_int(st, ":agency", req->who.agency_id);
	if (st && sqlite3_step(st) == SQLITE_ROW)
		snprintf(now, sizeof(now), "%s", (const char *)sqlite3_column_text(st, 0));
	if (st)
		sqlite3_reset(st);
	if (!currency || !*now || currency_digits(now) == currency_digits(currency))
		return 0;
	return !hl_reply_error(req, 422, "validation", "currency: amounts are kept in %s's"
			       " minor units (%d decimals); %s has %d, so its amounts would change",
			       now, currency_digits(now), currency, currency_digits(currency));
}

/* PATCH /api/admin/locations/:id {"name"?, "timezone"?, "currency"?,
 * "country"?, "disabled"?}. A new time zone makes the modules' counts by day again,
 * in the same transaction. */
static int update_location(struct hl_req *req)
{
	static const char *const keys[] = { "name", "timezone", "currency", "country", "disabled",
					    NULL };
	struct place p;
	int64_t id;
	int bad = 0;
	if (hl_param_id(req, "id", &id) || hl_fields_only(req, 0, keys))
		return 0;
	int disabled = bool_field(req, "disabled", &bad);
	if (read_place(req, &p, &bad))
		return 0;
	struct hl_db *w = hl_write_begin(req);
	if (w && bad_currency_change(req, w, id, p.currency))
		return 0;
	sqlite3_stmt *st = hl_stmt(w,
		"UPDATE locations SET name = COALESCE(:name, name),"
		" timezone = COALESCE(:timezone, timezone),"
		" currency = COALESCE(:currency, currency),"
		" country = COALESCE(:country, country),"
		" disabled_at = CASE WHEN :disabled < 0 THEN disabled_at"
		"  WHEN :disabled = 0 THEN NULL"
		"  ELSE COALESCE(disabled_at, strftime('%Y-%m-%dT%H:%M:%SZ', 'now')) END,"
		" updated_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"
		" WHERE id = :id AND agency_id = :agency");
	hl_bind_int(st, ":id", id);
	hl_bind_int(st, ":agency", req->who.agency_id);
	bind_place(st, &p);
	hl_bind_int(st, ":disabled", disabled);
	int64_t changed = hl_step_changes(st);
	if (changed < 0)
		return HL_EDB;
	if (!changed)
		return hl_reply_error(req, 404, "not_found", "no such sub-account");
	if (p.timezone && modules_recount(req->srv->modules, w, id))
		return HL_EDB;
	if (audit_note(req, 0, disabled > 0 ? "location.disabled" : "location.updated", "location", id))
		return HL_EDB;
	if (disabled > 0)
		auth_rights_changed(req, 0, id);
	return answer_location(req, 200, id);
}

/* ---- the first administrator ----------------------------------------------- */

int users_create_admin(struct db *db, const char *email, const char *name, const char *agency,
		       const char *password)
{
	if (!hl_is_email(email) || !*name || strlen(password) < PASSWORD_MIN) {
		log_error("create-admin: give an e-mail address, a name, and a password of at least"
			  " %d characters on standard input", PASSWORD_MIN);
		return HL_EINVAL;
	}
	char hash[crypto_pwhash_STRBYTES];
	if (password_hash(password, hash))
		return HL_ENOMEM;
	struct hl_db *w = db_write_lock(db);
	int rc = db_begin(w);
	sqlite3_stmt *st = rc ? NULL : hl_stmt(w,
		"INSERT INTO agencies (name) SELECT :name"
		" WHERE NOT EXISTS (SELECT 1 FROM agencies)");
	hl_bind_text(st, ":name", agency);
	if (!rc && hl_step_changes(st) < 0)
		rc = HL_EDB;
	st = rc ? NULL : hl_stmt(w,
		"INSERT INTO users (agency_id, email, name, role, password_hash)"
		" VALUES ((SELECT min(id) FROM agencies), :email, :name, 'agency_admin',"
		" :password_hash) ON CONFLICT (email) DO NOTHING");
	hl_bind_text(st, ":email", email);
	hl_bind_text(st, ":name", name);
	hl_bind_text(st, ":password_hash", hash);
	int64_t added = rc ? 0 : hl_step_changes(st);
	if (!rc && added < 0)
		rc = HL_EDB;
	if (!rc && !added) {
		log_error("create-admin: a user with the e-mail %s exists", email);
		rc = HL_EEXIST;
	}
	if (!rc)
		rc = hl_exec(w, "INSERT INTO audit_log (agency_id, user_id, action, entity,"
			     " entity_id, label, client) SELECT agency_id, id, 'user.created', 'user',"
			     " id, name, 'command line' FROM users WHERE id = last_insert_rowid()");
	if (rc || db_commit(w)) {
		db_rollback(w);
		rc = rc ? rc : HL_EDB;
	}
	db_write_unlock(db, w);
	return rc;
}

/* ---- the agency ---------------------------------------------------------- */

static int answer_agency(struct hl_req *req, int status)
{
	sqlite3_stmt *st = agency_query(req, "SELECT a.id, a.name, a.timezone, a.currency, a.country,"
		" a.address, a.email, a.phone, a.tax_id, '/api/logos/' || l.key AS logo_url, a.created_at"
		" FROM agencies a LEFT JOIN agency_logos l ON l.agency_id = a.id WHERE a.id = :agency", 0);
	return st ? hl_reply_row(req, status, st, "agency") : HL_EDB;
}

/* GET /api/admin/agency: its name, the time zone, currency and country
 * new sub-accounts start with, the business details its invoices print
 * (unless a sub-account gives its own) and its logo's address (logo.c). */
static int get_agency(struct hl_req *req)
{
	return answer_agency(req, 200);
}

/* The business details: text that may be cleared (""); NULL when absent.
 * Sets *bad after an answer. */
struct business {
	const char *address, *email, *phone, *tax_id;
};

static const char *detail_field(struct hl_req *req, const char *key, size_t max, int *bad)
{
	const char *v = NULL;
	int rc = *bad ? HL_FIELD_ABSENT : hl_field_text(req, 0, key, max, &v);
	*bad = *bad || rc < 0;
	return rc == HL_FIELD_SET ? v : rc == HL_FIELD_NULL ? "" : NULL;
}

static int read_business(struct hl_req *req, struct business *b, int *bad)
{
	b->address = detail_field(req, "address", 500, bad);
	b->email = detail_field(req, "email", 200, bad);
	b->phone = detail_field(req, "phone", 50, bad);
	b->tax_id = detail_field(req, "tax_id", 50, bad);
	if (!*bad && b->email && *b->email && !hl_is_email(b->email)) {
		hl_reply_error(req, 422, "validation", "email: an e-mail address, like billing@example.com");
		*bad = 1;
	}
	return *bad;
}

/* PATCH /api/admin/agency {"name", "timezone", "currency", "country",
 * "address", "email", "phone", "tax_id"}: what is sent changes; the
 * sub-accounts there are keep their own. */
static int update_agency(struct hl_req *req)
{
	static const char *const keys[] = { "name", "timezone", "currency", "country", "address",
					     "email", "phone", "tax_id", NULL };
	struct place p;
	struct business b;
	int bad = 0;
	if (hl_fields_only(req, 0, keys) || read_business(req, &b, &bad) || read_place(req, &p, &bad))
		return 0;
	sqlite3_stmt *st = hl_stmt(hl_write_begin(req), "UPDATE agencies SET"
		" name = COALESCE(:name, name), timezone = COALESCE(:timezone, timezone),"
		" currency = COALESCE(:currency, currency), country = COALESCE(:country, country),"
		" address = COALESCE(:address, address), email = COALESCE(:email, email),"
		" phone = COALESCE(:phone, phone), tax_id = COALESCE(:tax_id, tax_id)"
		" WHERE id = :agency");
	hl_bind_int(st, ":agency", req->who.agency_id);
	bind_place(st, &p);
	hl_bind_text(st, ":address", b.address);
	hl_bind_text(st, ":email", b.email);
	hl_bind_text(st, ":phone", b.phone);
	hl_bind_text(st, ":tax_id", b.tax_id);
	if (hl_step_changes(st) < 0 || audit_note(req, 0, "agency.updated", "agency", req->who.agency_id))
		return HL_EDB;
	return answer_agency(req, 200);
}

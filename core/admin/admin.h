/* SPDX-License-Identifier: MIT */
/*
 * admin.h: the core's own routes, the top layer but main: each file of
 * admin/ is one group of them, registered by main.c at start under the
 * owner "core". They reach the layers under them as a module's routes do,
 * through the request API, and the core's parts a module has no word for
 * (the metrics, the loader, the backups).
 */
#ifndef HL_ADMIN_H
#define HL_ADMIN_H

#include <stdint.h>

struct db;
struct hl_db;
struct hl_json;
struct hl_req;
struct mod_job;
struct router;

/* GET /api/health. */
int health_register(struct router *r);
/* Signing in and out, sessions, API keys: the caller's own account. */
int accounts_register(struct router *r);
/* The caller's own sessions: listed, signed out. */
int sessions_register(struct router *r);
/* The caller's own notifications (the header's bell). */
int notices_register(struct router *r);
/* The agency's users, for agency admins. */
int users_register(struct router *r);
/* Invitations and password resets by one-time link, and the link's page. */
int links_register(struct router *r);
/* The agency's logo: uploaded by its admins, fetched by anyone by key. */
int logo_register(struct router *r);
/* GET /api/admin/audit, for agency admins. */
int audit_log_register(struct router *r);
/* GET /api/admin/metrics. */
int metrics_register(struct router *r);
/* GET /api/admin/modules. */
int modules_report_register(struct router *r);
/* GET /api/admin/doctor: live checks of the database, disk, backups, modules. */
int doctor_register(struct router *r);

/* A session for `user` started, its cookie on the answer (accounts.c):
 * 0 or HL_EDB. */
int accounts_start_session(struct hl_req *req, int64_t user);

/* A one-time link just made (links.c): its address, in the request's
 * arena, when it ends (Unix seconds), and whether an e-mail carries it. */
struct link_made {
	int64_t id;
	const char *url;
	int64_t expires_at;
	int emailed;
};
/* A new link of `kind` ("invite", "reset") for the agency's user `user`,
 * in w's transaction: the person's earlier links end, and the e-mail
 * waits for the mail job when a module delivers e-mail. 0; HL_EINVAL
 * after a 422 (no address to make it from); HL_EDB. */
int links_make(struct hl_req *req, struct hl_db *w, int64_t user, const char *kind,
	       struct link_made *made);
/* End `user`'s live links (used now, their link text gone, an e-mail still
 * waiting for the mail job never sent), in w's transaction; with `live`
 * not 0, only while link `live` is itself unused. How many ended, or
 * HL_EDB. The one way a link ends. */
int64_t links_end(struct hl_db *w, int64_t user, int64_t live);
/* `made` as a JSON object (id, link, expires_at, emailed, and a sentence
 * for the admin saying whether it is being e-mailed to `email`; how that
 * ends is the person's "link" in the list of users). */
void links_write(struct hl_req *req, struct hl_json *j, const char *email,
		 const struct link_made *made);
/* The core's job that hands the links' e-mails to the channel "email". */
extern struct mod_job links_mail_job;

/* `hyperlevel create-admin`: the agency (made when there is none) and an
 * agency admin. 0, or an HL_E code after logging one line. */
int users_create_admin(struct db *db, const char *email, const char *name, const char *agency,
		       const char *password);

#endif

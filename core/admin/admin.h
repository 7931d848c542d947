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

struct db;
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
/* GET /api/admin/audit, for agency admins. */
int audit_log_register(struct router *r);
/* GET /api/admin/metrics. */
int metrics_register(struct router *r);
/* GET /api/admin/modules. */
int modules_report_register(struct router *r);
/* GET /api/admin/doctor: live checks of the database, disk, backups, modules. */
int doctor_register(struct router *r);

/* `hyperlevel create-admin`: the agency (made when there is none) and an
 * agency admin. 0, or an HL_E code after logging one line. */
int users_create_admin(struct db *db, const char *email, const char *name, const char *agency,
		       const char *password);

#endif

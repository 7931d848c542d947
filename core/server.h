/* SPDX-License-Identifier: MIT */
/*
 * server.h: the running server's parts, owned by main.c and shared with
 * the HTTP layer. Only `inflight` and `draining` change once it listens.
 */
#ifndef HL_SERVER_H
#define HL_SERVER_H

#include "config.h"
#include "db.h"
#include "module.h"
#include "router.h"

struct mg_context;

struct server {
	const struct config *cfg;
	struct router *router;
	struct modules *modules;
	struct db *db;
	struct mg_context *mg;
	char *web_root;  /* realpath of cfg->web_dir, or NULL without one */
	struct pages *pages;  /* the menu of browser pages (pages.h) */
	char *document_csp;   /* the app's document's policy, or NULL (static.c) */
	char *document_map;   /* the pages' map the document carries, or NULL (static.c) */
	unsigned long long document_map_hash; /* of document_map, for the ETag */
	struct styles *styles; /* the sheets a signed-in document carries (styles.h) */
	char *signed_in_head; /* what the document's signed-in template holds, its
	                       * sheets carried inline, or NULL (static.c) */
	struct limiter *api_limit;   /* requests a minute per caller */
	struct limiter *login_limit; /* failed sign-ins per account per 15 minutes */
	struct limiter *login_guess_limit; /* ... per address, and per unknown e-mail */
	struct backup *backup;       /* the daily backup thread, or NULL when off */
	struct cache *cache;         /* the read cache, or NULL when off */
	struct credentials *credentials; /* callers read lately (credentials.h) */
	struct metrics *metrics;
	struct jobs *jobs;           /* the scheduler, or NULL (jobs = no) */
	struct events *events;       /* published events on their way to handlers */
	struct live *live;           /* the live channel (live.h), or NULL when off */
	struct guard *guard;         /* bounds on a worker's slow reads (guard.h) */
	_Atomic int inflight; /* requests inside dispatch */
	_Atomic int large_bodies; /* bodies over max_body_kb being read or held */
	_Atomic int draining; /* stopping: finish what runs, refuse the rest */
};

/* Listen and serve on civetweb's worker threads. 0, or HL_EIO after
 * logging why (e.g. the port is taken). */
int http_start(struct server *s);
/* Stop accepting, let in-flight requests finish, join the workers. */
void http_stop(struct server *s);

struct hl_req;
/* Answer a GET/HEAD for a path no route has from the web folder (a 404
 * when there is no such file). */
void static_serve(struct hl_req *r);
/* Read what static_serve needs from the web folder once, at start: the
 * policy of the app's document (WEB/index.html.csp), and the map of pages
 * (pages_map) the document carries. A policy file that is not one line of
 * script-src and style-src is logged and left out. 0 or HL_ENOMEM. */
int static_load(struct server *s);

/* The core's own routes: health, and signing in with the caller's account. */
int health_register(struct router *r);
int accounts_register(struct router *r);
int users_register(struct router *r);
int metrics_register(struct router *r);
int modules_report_register(struct router *r);
/* GET /api/admin/doctor: live checks of the database, disk, backups, modules. */
int doctor_register(struct router *r);
/* `hyperlevel create-admin`: the agency (made when there is none) and an
 * agency admin. 0, or an HL_E code after logging one line. */
int users_create_admin(struct db *db, const char *email, const char *name, const char *agency,
		       const char *password);

#endif

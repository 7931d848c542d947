/* SPDX-License-Identifier: MIT */
/*
 * server.h: the running server's parts, owned by main.c and reached by
 * every layer through a request (r->srv): a layer uses the parts of its
 * own layer and those under it. Only `inflight` and `draining` change
 * once it listens.
 */
#ifndef HL_SERVER_H
#define HL_SERVER_H

#include "lib/config.h"

struct mg_context;
struct router;
struct modules;
struct db;

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
	struct sender *sender;       /* what sends messages out, or NULL (jobs = no) */
	struct events *events;       /* published events on their way to handlers */
	struct live *live;           /* the live channel (live.h), or NULL when off */
	struct guard *guard;         /* bounds on a worker's slow reads (guard.h) */
	struct audit_kinds *audit_kinds; /* the records the audit log names (audit.h) */
	_Atomic int inflight; /* requests inside dispatch */
	_Atomic int large_bodies; /* bodies over max_body_kb being read or held */
	_Atomic int draining; /* stopping: finish what runs, refuse the rest */
};

#endif

/* SPDX-License-Identifier: MIT */
/*
 * router.h: maps a method and a path to a registered route.
 *
 * Routes live in a tree of path segments: literal children first, then at
 * most one :param child per node, so matching costs one step per segment
 * whatever the number of routes. A literal segment wins over a parameter at
 * the same place ("/api/contacts/export.csv" over "/api/contacts/:id").
 * The tree is built on the main thread before the server listens and only
 * read afterwards, so lookups need no lock.
 */
#ifndef HL_ROUTER_H
#define HL_ROUTER_H

#include <hyperlevel/hyperlevel.h>

#include <stddef.h>

#define ROUTE_MAX_PARAMS 8
#define ROUTE_MAX_DEPTH 32

enum method { M_GET, M_POST, M_PUT, M_PATCH, M_DELETE, M_COUNT };

struct route_entry {
	struct hl_route route;  /* the module's entry, copied */
	const char *owner;      /* name of the module that registered it */
	const void *module;     /* the loader's handle of that module */
	int id;                 /* dense index, for per-route state */
	int nparams;
	char *param_names[ROUTE_MAX_PARAMS];
};

struct route_match {
	const struct route_entry *entry;
	int nparams;
	const char *value[ROUTE_MAX_PARAMS]; /* raw, not yet percent-decoded */
	size_t value_len[ROUTE_MAX_PARAMS];
	unsigned allowed;                    /* methods of the path, for 405 */
};

struct router;

struct router *router_new(void);
void router_free(struct router *r);

/* The method's index, or -1 for a method no route can have. HEAD maps to
 * GET. */
int method_index(const char *method);
const char *method_name(int m);

/* Add a route owned by `owner`. Returns 0; HL_EINVAL (with *why set) for a
 * malformed method or pattern; HL_EEXIST when the method and path shape are
 * taken (*why names the owner). */
int router_add(struct router *r, const struct hl_route *route, const char *owner,
	       const void *module, const char **why);
/* Whether `pattern` has the shape of a route's pattern ("/", literal and
 * :param segments): 0, or HL_EINVAL with *why set; HL_ENOMEM. For other
 * tables that take patterns (pages). */
int router_check_pattern(const char *pattern, const char **why);
/* Add the core's own routes (owner "core"); 0 or the first error. */
int router_add_table(struct router *r, const struct hl_route *t, size_t n, const char *owner);

/* Remove every route of `module` (when its init failed). */
void router_remove_module(struct router *r, const void *module);

/* 0 and *m filled; HL_ENOENT when no route has this path; HL_EINVAL when
 * routes have the path but not the method (m->allowed says which do). */
int router_match(const struct router *r, const char *method, const char *path,
		 size_t len, struct route_match *m);

/* Every route, in registration order, for listings and tests; count in *n.
 * A slot is NULL where router_remove_module removed a route. */
const struct route_entry *const *router_entries(const struct router *r, int *n);

#endif

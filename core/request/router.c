/* SPDX-License-Identifier: MIT */
/*
 * router.c: the segment tree of router.h.
 */
#include "request/router.h"

#include <stdlib.h>
#include <string.h>

struct node {
	char *literal;                 /* NULL for a :param node */
	size_t literal_len;
	struct node **children;        /* literal children */
	int nchildren;
	struct node *param;            /* the :param child */
	struct route_entry *method[M_COUNT];
};

struct router {
	struct node root;
	struct route_entry **entries;  /* by id; NULL once removed */
	int nentries;
};

static const char *const method_names[M_COUNT] = { "GET", "POST", "PUT", "PATCH", "DELETE" };

int method_index(const char *method)
{
	if (!strcmp(method, "HEAD"))
		return M_GET;
	for (int i = 0; i < M_COUNT; i++)
		if (!strcmp(method, method_names[i]))
			return i;
	return -1;
}

const char *method_name(int m)
{
	return m >= 0 && m < M_COUNT ? method_names[m] : "?";
}

struct router *router_new(void)
{
	return calloc(1, sizeof(struct router));
}

static void node_release(struct node *n)
{
	for (int i = 0; i < n->nchildren; i++) {
		node_release(n->children[i]);
		free(n->children[i]);
	}
	free(n->children);
	if (n->param) {
		node_release(n->param);
		free(n->param);
	}
	free(n->literal);
}

static void entry_free(struct route_entry *e)
{
	if (!e)
		return;
	for (int i = 0; i < e->nparams; i++)
		free(e->param_names[i]);
	free(e);
}

void router_free(struct router *r)
{
	if (!r)
		return;
	node_release(&r->root);
	for (int i = 0; i < r->nentries; i++)
		entry_free(r->entries[i]);
	free(r->entries);
	free(r);
}

static int valid_param_name(const char *s, size_t n)
{
	if (!n || !(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z')))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

static struct node *child(struct node *n, const char *seg, size_t len, int create)
{
	if (seg[0] == ':') {
		if (!n->param && create)
			n->param = calloc(1, sizeof(struct node));
		return n->param;
	}
	for (int i = 0; i < n->nchildren; i++)
		if (n->children[i]->literal_len == len && !memcmp(n->children[i]->literal, seg, len))
			return n->children[i];
	if (!create)
		return NULL;
	struct node **grown = realloc(n->children, sizeof(*grown) * (size_t)(n->nchildren + 1));
	if (!grown)
		return NULL;
	n->children = grown;
	struct node *c = calloc(1, sizeof(*c));
	if (!c || !(c->literal = strndup(seg, len))) {
		free(c);
		return NULL;
	}
	c->literal_len = len;
	n->children[n->nchildren++] = c;
	return c;
}

/* Check the pattern and collect its parameter names into e. */
static int parse_pattern(const char *pattern, struct route_entry *e, const char **why)
{
	if (pattern[0] != '/') {
		*why = "pattern must start with '/'";
		return HL_EINVAL;
	}
	if (!strcmp(pattern, "/"))
		return 0;
	const char *p = pattern + 1;
	int depth = 0;
	for (;;) {
		const char *end = strchr(p, '/');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (!len) {
			*why = "pattern has an empty segment";
			return HL_EINVAL;
		}
		if (++depth > ROUTE_MAX_DEPTH) {
			*why = "pattern has too many segments";
			return HL_EINVAL;
		}
		if (p[0] == ':') {
			if (!valid_param_name(p + 1, len - 1)) {
				*why = "parameter names are [a-z_][a-z0-9_]*";
				return HL_EINVAL;
			}
			if (e->nparams == ROUTE_MAX_PARAMS) {
				*why = "pattern has too many parameters";
				return HL_EINVAL;
			}
			for (int i = 0; i < e->nparams; i++)
				if (strlen(e->param_names[i]) == len - 1 &&
				    !memcmp(e->param_names[i], p + 1, len - 1)) {
					*why = "pattern names a parameter twice";
					return HL_EINVAL;
				}
			if (!(e->param_names[e->nparams] = strndup(p + 1, len - 1)))
				return HL_ENOMEM;
			e->nparams++;
		} else if (memchr(p, '%', len) || memchr(p, '?', len)) {
			*why = "literal segments cannot hold '%' or '?'";
			return HL_EINVAL;
		}
		if (!end)
			return 0;
		p = end + 1;
	}
}

int router_check_pattern(const char *pattern, const char **why)
{
	struct route_entry *e = calloc(1, sizeof(*e));
	if (!e)
		return HL_ENOMEM;
	*why = NULL;
	int rc = parse_pattern(pattern, e, why);
	entry_free(e);
	return rc;
}

static struct node *find_or_make(struct router *r, const char *pattern)
{
	struct node *n = &r->root;
	const char *p = pattern + 1;
	while (*p && n) {
		const char *end = strchr(p, '/');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		n = child(n, p, len, 1);
		p = end ? end + 1 : p + len;
	}
	return n;
}

int router_add(struct router *r, const struct hl_route *route, const char *owner,
	       const void *module, const char **why)
{
	int m = route->method ? method_index(route->method) : -1;
	*why = NULL;
	if (m < 0 || !strcmp(route->method, "HEAD")) {
		*why = "method must be GET, POST, PUT, PATCH or DELETE";
		return HL_EINVAL;
	}
	if (!route->pattern || (!route->handler && (m != method_index("GET") ||
						     !route->record || !route->record_sql))) {
		*why = "a route needs a pattern and a handler (a GET: or a record and its SQL)";
		return HL_EINVAL;
	}
	struct route_entry *e = calloc(1, sizeof(*e));
	if (!e)
		return HL_ENOMEM;
	int rc = parse_pattern(route->pattern, e, why);
	if (rc)
		goto out;
	struct node *n = find_or_make(r, route->pattern);
	if (!n) {
		rc = HL_ENOMEM;
		goto out;
	}
	if (n->method[m]) {
		*why = n->method[m]->owner;
		rc = HL_EEXIST;
		goto out;
	}
	struct route_entry **grown = realloc(r->entries, sizeof(*grown) * (size_t)(r->nentries + 1));
	if (!grown) {
		rc = HL_ENOMEM;
		goto out;
	}
	r->entries = grown;
	e->route = *route;
	e->owner = owner;
	e->module = module;
	e->id = r->nentries;
	r->entries[r->nentries++] = e;
	n->method[m] = e;
	e = NULL;
out:
	entry_free(e);
	return rc;
}

int router_add_table(struct router *r, const struct hl_route *t, size_t n, const char *owner)
{
	for (size_t i = 0; i < n; i++) {
		const char *why;
		int rc = router_add(r, &t[i], owner, NULL, &why);
		if (rc)
			return rc;
	}
	return 0;
}

static void unlink_module(struct node *n, const void *module)
{
	for (int m = 0; m < M_COUNT; m++)
		if (n->method[m] && n->method[m]->module == module)
			n->method[m] = NULL;
	for (int i = 0; i < n->nchildren; i++)
		unlink_module(n->children[i], module);
	if (n->param)
		unlink_module(n->param, module);
}

void router_remove_module(struct router *r, const void *module)
{
	unlink_module(&r->root, module);
	for (int i = 0; i < r->nentries; i++)
		if (r->entries[i] && r->entries[i]->module == module) {
			entry_free(r->entries[i]);
			r->entries[i] = NULL;
		}
}

static int has_methods(const struct node *n)
{
	for (int m = 0; m < M_COUNT; m++)
		if (n->method[m])
			return 1;
	return 0;
}

/* Depth-first: literal first, then the parameter, backtracking on a miss. */
static const struct node *walk(const struct node *n, const char *p, const char *end,
			       struct route_match *m)
{
	if (p > end)
		return has_methods(n) ? n : NULL;
	const char *slash = memchr(p, '/', (size_t)(end - p));
	const char *seg_end = slash ? slash : end;
	size_t len = (size_t)(seg_end - p);
	const char *next = slash ? slash + 1 : end + 1;
	for (int i = 0; i < n->nchildren; i++) {
		const struct node *c = n->children[i];
		if (c->literal_len == len && !memcmp(c->literal, p, len)) {
			const struct node *hit = walk(c, next, end, m);
			if (hit)
				return hit;
			break;
		}
	}
	if (n->param && len && m->nparams < ROUTE_MAX_PARAMS) {
		int k = m->nparams++;
		m->value[k] = p;
		m->value_len[k] = len;
		const struct node *hit = walk(n->param, next, end, m);
		if (hit)
			return hit;
		m->nparams--;
	}
	return NULL;
}

int router_match(const struct router *r, const char *method, const char *path,
		 size_t len, struct route_match *m)
{
	memset(m, 0, sizeof(*m));
	if (!len || path[0] != '/')
		return HL_ENOENT;
	const struct node *n = len == 1 ? (has_methods(&r->root) ? &r->root : NULL)
					: walk(&r->root, path + 1, path + len, m);
	if (!n)
		return HL_ENOENT;
	for (int i = 0; i < M_COUNT; i++)
		if (n->method[i])
			m->allowed |= 1u << i;
	int mi = method_index(method);
	if (mi < 0 || !n->method[mi])
		return HL_EINVAL;
	m->entry = n->method[mi];
	return 0;
}

const struct route_entry *const *router_entries(const struct router *r, int *n)
{
	*n = r->nentries;
	return (const struct route_entry *const *)r->entries;
}

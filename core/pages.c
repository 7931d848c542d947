/* SPDX-License-Identifier: MIT */
/*
 * pages.c: the pages of pages.h: the rules an entry must keep, the core's
 * own pages, the menu made at start, and GET /api/pages.
 *
 * Who sees a page is decided with the rule routes are admitted by
 * (auth_role_allows), never a copy of it. /api/pages is a route of no
 * location: a location is only asked for when a location-admin page is
 * there to judge and the caller is not an agency admin, who sees those
 * anyway. The answer is built for each request (a few entries); the read
 * cache is not used, since the location it depends on comes in a header
 * its key does not hold.
 *
 * This file names no module: the modules' pages come from the loader.
 */
#include "pages.h"
#include "auth.h"
#include "log.h"
#include "manifest.h"
#include "module.h"
#include "request.h"
#include "router.h"
#include "server.h"
#include "utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CORE "core"

/* The core's own pages; their scripts are the shell's (the web folder's
 * root). */
static const struct hl_page core_pages[] = {
	{ .path = "/system", .script = "system.js", .label = "System",
	  .access = HL_ACCESS_ADMIN, .order = 90 },
};

/* One entry of the menu. The strings but `script` belong to the page's
 * table or its module, which live as long as the process. */
struct page_entry {
	const char *module;
	const char *path;
	const char *label;
	char *script;       /* its URL, "/modules/NAME/x.HASH.js" */
	enum hl_access access;
	int order;
	int seq;            /* the place it was collected in: ties keep it */
};

struct pages {
	struct page_entry *e;
	int n;
};

/* ---- the rules ----------------------------------------------------------- */

/* A plain file name of [A-Za-z0-9._-] ending in ".js" (something before
 * it), no leading dot, no "..": safe in a URL and inside its folder. */
static int plain_script_name(const char *s)
{
	size_t n = strlen(s);
	if (n < 4 || s[0] == '.' || strcmp(s + n - 3, ".js") || strstr(s, ".."))
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

int page_check(const struct hl_page *p, const char **why)
{
	*why = NULL;
	if (!p->path) {
		*why = "a page needs a path";
		return HL_EINVAL;
	}
	int rc = router_check_pattern(p->path, why);
	if (rc)
		return rc;
	if (!p->script || !plain_script_name(p->script)) {
		*why = "the script must be a file name of A-Z, a-z, 0-9, '.', '_' and '-' ending in"
		       " .js, without a folder or '..'";
		return HL_EINVAL;
	}
	if (p->label && (!*p->label || utf8_check(p->label, strlen(p->label)) != strlen(p->label) ||
			 hl_text_length(p->label) > PAGE_LABEL_MAX)) {
		*why = "the label must be UTF-8 text of 1 to 64 characters, or NULL for no menu entry";
		return HL_EINVAL;
	}
	if ((unsigned)p->access > HL_ACCESS_ADMIN) {
		*why = "the access is not one of enum hl_access";
		return HL_EINVAL;
	}
	return 0;
}

int page_same_path(const char *a, const char *b)
{
	for (;;) {
		size_t na = strcspn(a, "/"), nb = strcspn(b, "/");
		int same = (a[0] == ':' && b[0] == ':') || (na == nb && !memcmp(a, b, na));
		if (!same)
			return 0;
		a += na;
		b += nb;
		if (!*a || !*b)
			return !*a && !*b;
		a++, b++;
	}
}

const struct hl_page *pages_core(size_t *n)
{
	*n = sizeof(core_pages) / sizeof(core_pages[0]);
	return core_pages;
}

/* ---- the menu ------------------------------------------------------------- */

/* Whether `dir`/`name` is a regular file. */
static int file_exists(const char *dir, const char *name)
{
	char *path = NULL;
	struct stat st;
	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return 1; /* out of memory: do not warn for it */
	int ok = !stat(path, &st) && S_ISREG(st.st_mode);
	free(path);
	return ok;
}

/* The URL of `script` in the folder `dir` (NULL: none served) reached at
 * `url_dir` ("/", "/modules/NAME/"), through the folder's manifest. */
static char *script_url(const struct manifest *m, const char *dir, const char *url_dir,
			const struct page_entry *e, const char *script)
{
	const char *built = manifest_lookup(m, script);
	char *url = NULL;
	if (m && !built)
		log_warn("%s/%s does not name %s, the script of page %s of %s: its plain name is"
			 " served", dir, MANIFEST_NAME, script, e->path, e->module);
	else if (built && !plain_script_name(built))
		log_warn("%s/%s: '%s' is not a plain .js file name: %s is served by its plain name",
			 dir, MANIFEST_NAME, built, script);
	else if (built && !file_exists(dir, built))
		log_warn("%s/%s names %s for %s, which the folder lacks: its plain name is served",
			 dir, MANIFEST_NAME, built, script);
	else if (built)
		script = built;
	if (asprintf(&url, "%s%s", url_dir, script) < 0)
		return NULL;
	return url;
}

/* Add a table's pages, their scripts in `dir` (may be NULL) at `url_dir`. */
static int add_table(struct pages *all, const char *module, const struct hl_page *t, size_t n,
		     const char *dir, const char *url_dir)
{
	struct manifest *m = NULL;
	int rc = 0;
	if (!n)
		return 0;
	if (dir && (rc = manifest_read(&m, dir)) && rc != HL_ENOMEM)
		rc = 0; /* logged: plain names */
	if (rc)
		goto out;
	struct page_entry *grown = realloc(all->e, sizeof(*grown) * ((size_t)all->n + n));
	if (!grown) {
		rc = HL_ENOMEM;
		goto out;
	}
	all->e = grown;
	for (size_t i = 0; i < n; i++) {
		struct page_entry *e = &all->e[all->n];
		*e = (struct page_entry){ .module = module, .path = t[i].path, .label = t[i].label,
					  .access = t[i].access, .order = t[i].order, .seq = all->n };
		if (!(e->script = script_url(m, dir, url_dir, e, t[i].script))) {
			rc = HL_ENOMEM;
			goto out;
		}
		all->n++;
	}
out:
	manifest_free(m);
	return rc;
}

static int menu_order(const void *pa, const void *pb)
{
	const struct page_entry *a = pa, *b = pb;
	if (a->order != b->order)
		return a->order < b->order ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

int pages_load(struct pages **out, const struct modules *set, const char *web_root)
{
	struct pages *all = calloc(1, sizeof(*all));
	char *dir = NULL, *url_dir = NULL;
	int rc = 0;
	*out = NULL;
	if (!all)
		return HL_ENOMEM;
	size_t n;
	const struct hl_page *t = pages_core(&n);
	if ((rc = add_table(all, CORE, t, n, web_root, "/")))
		goto out;
	for (int i = 0; i < modules_loaded(set); i++) {
		const char *name;
		int count;
		t = modules_pages(set, i, &name, &count);
		if (!count)
			continue;
		if (web_root && asprintf(&dir, "%s/modules/%s", web_root, name) < 0)
			dir = NULL, rc = HL_ENOMEM;
		if (!rc && asprintf(&url_dir, "/modules/%s/", name) < 0)
			url_dir = NULL, rc = HL_ENOMEM;
		if (rc)
			goto out;
		if ((rc = add_table(all, name, t, (size_t)count, dir, url_dir)))
			goto out;
		free(dir);
		free(url_dir);
		dir = url_dir = NULL;
	}
	if (all->n > 1)
		qsort(all->e, (size_t)all->n, sizeof(*all->e), menu_order);
	*out = all;
	all = NULL;
out:
	free(dir);
	free(url_dir);
	pages_free(all);
	return rc;
}

void pages_free(struct pages *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->n; i++)
		free(p->e[i].script);
	free(p->e);
	free(p);
}

/* ---- GET /api/pages -------------------------------------------------------- */

/* Whether the caller sees a page of `access`; *named caches whether the
 * request names a location the caller may open (-1: not asked yet). */
static int may_see(struct hl_req *r, enum hl_access access, int *named)
{
	if (!auth_role_allows(access, r->who.role))
		return 0;
	if (access != HL_ACCESS_LOCATION_ADMIN || r->who.role == ROLE_AGENCY_ADMIN)
		return 1;
	if (*named < 0)
		*named = auth_named_location(r) > 0;
	return *named;
}

static void write_page(struct hl_json *j, const struct page_entry *e)
{
	hl_json_object(j);
	hl_json_key(j, "module");
	hl_json_string(j, e->module);
	hl_json_key(j, "path");
	hl_json_string(j, e->path);
	hl_json_key(j, "label");
	hl_json_string(j, e->label); /* null for a page of no menu entry */
	hl_json_key(j, "script");
	hl_json_string(j, e->script);
	hl_json_key(j, "order");
	hl_json_int(j, e->order);
	hl_json_object_end(j);
}

static int pages_list(struct hl_req *req)
{
	const struct pages *all = req->srv->pages;
	int named = -1;
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	hl_json_key(j, "data");
	hl_json_array(j);
	for (int i = 0; all && i < all->n; i++)
		if (may_see(req, all->e[i].access, &named))
			write_page(j, &all->e[i]);
	hl_json_array_end(j);
	hl_json_object_end(j);
	return 0;
}

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/pages", .handler = pages_list,
	  .flags = HL_ROUTE_NO_LOCATION },
};

int pages_register(struct router *r)
{
	return router_add_table(r, routes, sizeof(routes) / sizeof(routes[0]), CORE);
}

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
 * The same pages, each with its script and data, are the map the app's
 * document carries (pages_map, put in by static.c).
 *
 * This file names no module: the modules' pages come from the loader.
 */
#include "http/pages.h"
#include "auth/auth.h"
#include "http/manifest.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/utf8.h"
#include "platform/module.h"
#include "platform/page_rules.h"
#include "request/request.h"
#include "request/router.h"
#include "server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CORE "core"

/* One entry of the menu. The strings but `script` belong to the page's
 * table or its module, which live as long as the process. */
struct page_entry {
	const char *module;
	const char *path;
	const char *label;
	char *script;       /* its URL, "/modules/NAME/x.HASH.js" */
	const char *data;   /* the GET it opens with, or NULL */
	char **uses;        /* the URLs of the files it uses, NULL-terminated, or NULL */
	char *search;       /* the URL of its part of the header's search, or NULL */
	enum hl_access access;
	unsigned flags;     /* HL_PAGE_PHONE_HOME, HL_PAGE_ALL_RECORDS */
	int order;
	int seq;            /* the place it was collected in: ties keep it */
};

struct pages {
	struct page_entry *e;
	int n;
};

/* A folder of the web folder that pages' files are named in: its path
 * (NULL: none served), its URL and its manifest (NULL: plain names). */
struct folder {
	const char *dir;
	const char *url;
	struct manifest *m;
};

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

/* The URL of `name` (`what` it is to page e: "the script of") in folder f
 * ("/", "/modules/NAME/"), through the folder's manifest. */
static char *file_url(const struct folder *f, const struct page_entry *e, const char *name,
		      const char *what)
{
	const char *built = manifest_lookup(f->m, name);
	const char *ext = strrchr(name, '.');
	char *url = NULL;
	if (f->m && !built)
		log_warn("%s/%s does not name %s, %s page %s of %s: its plain name is"
			 " served", f->dir, MANIFEST_NAME, name, what, e->path, e->module);
	else if (built && !page_plain_name(built, ext))
		log_warn("%s/%s: '%s' is not a plain %s file name: %s is served by its plain name",
			 f->dir, MANIFEST_NAME, built, ext, name);
	else if (built && !file_exists(f->dir, built))
		log_warn("%s/%s names %s for %s, which the folder lacks: its plain name is served",
			 f->dir, MANIFEST_NAME, built, name);
	else if (built)
		name = built;
	if (asprintf(&url, "%s%s", f->url, name) < 0)
		return NULL;
	return url;
}

static void free_uses(char **uses)
{
	for (int i = 0; uses && uses[i]; i++)
		free(uses[i]);
	free(uses);
}

/* e->uses from `names` (checked by page_check), each in its folder. */
static int add_uses(struct page_entry *e, const char *const *names, const struct folder *own,
		    const struct folder *shell)
{
	int n = 0;
	while (names && names[n])
		n++;
	if (!n)
		return 0;
	if (!(e->uses = calloc((size_t)n + 1, sizeof(*e->uses))))
		return HL_ENOMEM;
	for (int i = 0; i < n; i++) {
		int root = names[i][0] == '/';
		if (!(e->uses[i] = file_url(root ? shell : own, e, names[i] + root, "a file used by")))
			return HL_ENOMEM;
	}
	return 0;
}

/* Read f's manifest, when it has a folder: 0 (a broken one is logged and
 * left out: plain names), or HL_ENOMEM. */
static int folder_read(struct folder *f)
{
	int rc = f->dir ? manifest_read(&f->m, f->dir) : 0;
	return rc == HL_ENOMEM ? rc : 0;
}

/* Add a table's pages, their files in folder `own`, or `shell` for a
 * name of uses that starts with "/". */
static int add_table(struct pages *all, const char *module, const struct hl_page *t, size_t n,
		     const struct folder *own, const struct folder *shell)
{
	if (!n)
		return 0;
	struct page_entry *grown = realloc(all->e, sizeof(*grown) * ((size_t)all->n + n));
	if (!grown)
		return HL_ENOMEM;
	all->e = grown;
	for (size_t i = 0; i < n; i++) {
		struct page_entry *e = &all->e[all->n];
		*e = (struct page_entry){ .module = module, .path = t[i].path, .label = t[i].label,
					  .access = t[i].access, .flags = t[i].flags, .order = t[i].order,
					  .seq = all->n, .data = t[i].data };
		all->n++; /* pages_free frees what it got so far */
		if (!(e->script = file_url(own, e, t[i].script, "the script of")) ||
		    (t[i].search && !(e->search = file_url(own, e, t[i].search, "the search of"))) ||
		    add_uses(e, t[i].uses, own, shell))
			return HL_ENOMEM;
	}
	return 0;
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
	struct folder shell = { .dir = web_root, .url = "/" }, mod = { 0 };
	char *dir = NULL, *url_dir = NULL;
	int rc = 0;
	*out = NULL;
	if (!all)
		return HL_ENOMEM;
	size_t n;
	const struct hl_page *t = pages_core(&n);
	if ((rc = folder_read(&shell)) || (rc = add_table(all, CORE, t, n, &shell, &shell)))
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
		mod = (struct folder){ .dir = dir, .url = url_dir };
		if ((rc = folder_read(&mod)) || (rc = add_table(all, name, t, (size_t)count, &mod, &shell)))
			goto out;
		manifest_free(mod.m);
		mod.m = NULL;
		free(dir);
		free(url_dir);
		dir = url_dir = NULL;
	}
	if (all->n > 1)
		qsort(all->e, (size_t)all->n, sizeof(*all->e), menu_order);
	*out = all;
	all = NULL;
out:
	manifest_free(mod.m);
	manifest_free(shell.m);
	free(dir);
	free(url_dir);
	pages_free(all);
	return rc;
}

void pages_free(struct pages *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->n; i++) {
		free(p->e[i].script);
		free(p->e[i].search);
		free_uses(p->e[i].uses);
	}
	free(p->e);
	free(p);
}

/* ---- the first answer's map ------------------------------------------------ */

/* Every page, whoever may open it (its script is a public file anyway):
 * first.js fetches the script and data of the page it was opened at while
 * /api/auth/me is on its way. The strings are plain by page_check's rules
 * (and a script URL by script_url's), so none needs escaping in JSON or
 * can end the <script> element the map is put in. */
char *pages_map(const struct pages *all)
{
	struct buf b = BUF_INIT;
	buf_putc(&b, '[');
	for (int i = 0; all && i < all->n; i++) {
		const struct page_entry *e = &all->e[i];
		buf_printf(&b, "%s{\"path\":\"%s\",\"script\":\"%s\"", i ? "," : "", e->path,
			   e->script);
		if (e->data)
			buf_printf(&b, ",\"data\":\"%s\"", e->data);
		for (int k = 0; e->uses && e->uses[k]; k++)
			buf_printf(&b, "%s\"%s\"", k ? "," : ",\"uses\":[", e->uses[k]);
		buf_puts(&b, e->uses ? "]}" : "}");
	}
	buf_putc(&b, ']');
	if (b.oom) {
		buf_release(&b);
		return NULL;
	}
	return b.data;
}

/* ---- the page at a path ----------------------------------------------------- */

/* The next segment of [*p, end) (a run without '/'), *p moved past it;
 * 0 at the end. */
static int next_segment(const char **p, const char *end, const char **seg, size_t *n)
{
	while (*p < end && **p == '/')
		(*p)++;
	if (*p >= end)
		return 0;
	*seg = *p;
	while (*p < end && **p != '/')
		(*p)++;
	*n = (size_t)(*p - *seg);
	return 1;
}

/* The number of literal segments of `pattern` when `path` fits it (as
 * many segments, the literal ones equal), else -1. */
static int fit(const char *pattern, const char *path, size_t len)
{
	const char *p = pattern, *pe = pattern + strlen(pattern), *q = path, *qe = path + len;
	const char *a, *b;
	size_t an, bn;
	int literal = 0;
	for (;;) {
		int more = next_segment(&p, pe, &a, &an);
		if (more != next_segment(&q, qe, &b, &bn))
			return -1;
		if (!more)
			return literal;
		if (*a == ':')
			continue;
		if (an != bn || memcmp(a, b, an))
			return -1;
		literal++;
	}
}

/* The segment of `path` that stands where `pattern` has :name (n bytes). */
static int param_value(const char *pattern, const char *name, size_t n, const char *path,
		       size_t len, const char **value, size_t *value_len)
{
	const char *p = pattern, *pe = pattern + strlen(pattern), *q = path, *qe = path + len;
	const char *a;
	size_t an;
	while (next_segment(&p, pe, &a, &an) && next_segment(&q, qe, value, value_len))
		if (*a == ':' && an == n + 1 && !memcmp(a + 1, name, n))
			return 1;
	return 0;
}

static int is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

const struct page_entry *pages_at(const struct pages *all, const char *path, size_t len)
{
	const struct page_entry *best = NULL;
	int most = -1;
	for (int i = 0; all && i < all->n; i++) {
		int literal = fit(all->e[i].path, path, len);
		if (literal > most)
			best = &all->e[i], most = literal;
	}
	return best;
}

int page_data_path(const struct page_entry *e, const char *path, size_t len, struct buf *out)
{
	if (!e->data)
		return 0;
	for (const char *t = e->data; *t;) {
		size_t n = 0;
		const char *value;
		size_t value_len;
		while (*t == ':' && is_name_char(t[1 + n]))
			n++;
		if (n && param_value(e->path, t + 1, n, path, len, &value, &value_len)) {
			buf_append(out, value, value_len);
			t += 1 + n;
		} else {
			buf_append(out, t, n + 1); /* a ':' without a page's :param stays */
			t += n + 1;
		}
	}
	return 1;
}

const char *page_script(const struct page_entry *e)
{
	return e->script;
}

char *const *page_uses(const struct page_entry *e)
{
	return e->uses;
}

const struct page_entry *pages_nth(const struct pages *all, int n)
{
	return all && n >= 0 && n < all->n ? &all->e[n] : NULL;
}

/* ---- GET /api/pages -------------------------------------------------------- */

/* Whether the caller sees a page of `access` and `flags`; *named caches
 * whether the request names a location the caller may open (-1: not
 * asked yet). */
static int may_see(struct hl_req *r, enum hl_access access, unsigned flags, int *named)
{
	if (!auth_role_allows(access, r->who.role) ||
	    (flags & HL_PAGE_ALL_RECORDS && r->who.assigned_only))
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
	if (e->search) {
		hl_json_key(j, "search");
		hl_json_string(j, e->search);
	}
	if (e->flags & HL_PAGE_PHONE_HOME) {
		hl_json_key(j, "phone_home");
		hl_json_bool(j, 1);
	}
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
		if (may_see(req, all->e[i].access, all->e[i].flags, &named))
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

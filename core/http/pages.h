/* SPDX-License-Identifier: MIT */
/*
 * pages.h: the browser pages the core and the loaded modules offer
 * (struct hl_page), their rules, the menu they make, and GET /api/pages,
 * which answers the part of that menu a caller may open.
 *
 * The menu is made once at start, after the modules are loaded: the core's
 * pages (module "core") and then each loaded module's in load order, put
 * in order by `order` (ties keep that sequence), each script resolved to
 * its URL through the web folder's manifests. It is only read afterwards.
 */
#ifndef HL_PAGES_H
#define HL_PAGES_H

#include <hyperlevel/hyperlevel.h>

#include <stddef.h>

struct buf;
struct modules;
struct router;
struct pages;
struct page_entry;

/* Make the menu into *out from the core's pages and every loaded module's,
 * resolving scripts under `web_root` (NULL: serve none; plain names). A
 * manifest that is broken, or lacks a page's script, or names a file the
 * folder lacks, is logged and the plain name used. 0 or HL_ENOMEM. */
int pages_load(struct pages **out, const struct modules *set, const char *web_root);
void pages_free(struct pages *p);
/* The JSON array of every page's path, script URL, data and the URLs of
 * the files it uses (when set),
 * for the app's document: a malloc'ed string, or NULL when out of memory. */
char *pages_map(const struct pages *p);

/* The app's page at `path` (the URL's path after /app, raw:
 * "/contacts/12"), as the shell's router picks it: of as many segments,
 * with the most literal ones; NULL for none. */
const struct page_entry *pages_at(const struct pages *p, const char *path, size_t len);
/* The GET page `e` at `path` opens with (hl_page.data, its :params filled
 * from the path) into `out`: 1, or 0 when it names none. */
int page_data_path(const struct page_entry *e, const char *path, size_t len, struct buf *out);
/* The page's script's URL, and the URLs of the files it uses
 * (NULL-terminated, or NULL). */
const char *page_script(const struct page_entry *e);
char *const *page_uses(const struct page_entry *e);
/* The n-th page of the menu (0 from the first), or NULL past the last. */
const struct page_entry *pages_nth(const struct pages *p, int n);

/* GET /api/pages. */
int pages_register(struct router *r);

#endif

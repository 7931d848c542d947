/* SPDX-License-Identifier: MIT */
/*
 * page_rules.c: the rules a page (struct hl_page) must keep, which the
 * loader checks as a module hands its pages over, and the core's own
 * pages. The menu made of them is http/pages.c's.
 */
#include "platform/page_rules.h"
#include "lib/utf8.h"
#include "request/router.h"

#include <string.h>

#define PLAIN "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"

/* The core's own pages; their scripts are the shell's (the web folder's
 * root). */
static const struct hl_page core_pages[] = {
	{ .path = "/system", .script = "system.js", .label = "System",
	  .access = HL_ACCESS_ADMIN, .order = 90 },
	{ .path = "/settings", .script = "settings.js", .label = "Settings", .order = 95 },
};

/* A plain file name of [A-Za-z0-9._-] ending in `ext` (something before
 * it), no leading dot, no "..": safe in a URL and inside its folder. */
int page_plain_name(const char *s, const char *ext)
{
	size_t n = strlen(s), e = strlen(ext);
	if (n <= e || s[0] == '.' || strcmp(s + n - e, ext) || strstr(s, ".."))
		return 0;
	return strspn(s, PLAIN) == n;
}

static int plain_script_name(const char *s)
{
	return page_plain_name(s, ".js");
}

/* A name of hl_page.uses: a plain .js or .css name, "/" before it for
 * the shell's folder. */
static int plain_use(const char *s)
{
	if (*s == '/')
		s++;
	return page_plain_name(s, ".js") || page_plain_name(s, ".css");
}

static int uses_check(const char *const *uses)
{
	for (int i = 0; uses && uses[i]; i++)
		if (i == PAGE_USES_MAX || !plain_use(uses[i]))
			return HL_EINVAL;
	return 0;
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
	if (p->data && (strncmp(p->data, "/api/", 5) || strstr(p->data, "..") ||
			strspn(p->data, PLAIN "/:") != strlen(p->data))) {
		*why = "the data must be a path under /api/ of A-Z, a-z, 0-9, '/', ':', '.', '_' and"
		       " '-', without '..', or NULL";
		return HL_EINVAL;
	}
	if (uses_check(p->uses)) {
		*why = "uses must list up to 8 plain .js or .css file names (\"/\" before one of the"
		       " shell's), then NULL";
		return HL_EINVAL;
	}
	if (p->search && (!p->label || !plain_script_name(p->search))) {
		*why = "the search must be a plain .js file name like the script's, on a page with a"
		       " label, or NULL";
		return HL_EINVAL;
	}
	if ((unsigned)p->access > HL_ACCESS_ADMIN) {
		*why = "the access is not one of enum hl_access";
		return HL_EINVAL;
	}
	if (p->flags & ~(HL_PAGE_PHONE_HOME | HL_PAGE_ALL_RECORDS)) {
		*why = "the flags are HL_PAGE_PHONE_HOME, HL_PAGE_ALL_RECORDS or 0";
		return HL_EINVAL;
	}
	if ((p->flags & HL_PAGE_PHONE_HOME) && (!p->label || strchr(p->path, ':'))) {
		*why = "the phone's home page needs a menu entry and a path without :params";
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

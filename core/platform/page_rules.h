/* SPDX-License-Identifier: MIT */
/*
 * page_rules.h: the rules of struct hl_page (page_rules.c), shared by the
 * loader (module.c) and the menu (http/pages.c).
 */
#ifndef HL_PAGE_RULES_H
#define HL_PAGE_RULES_H

#include <hyperlevel/hyperlevel.h>

#include <stddef.h>

#define PAGE_LABEL_MAX 64 /* characters */
#define PAGE_USES_MAX 8     /* files in hl_page.uses */

/* Whether `p` keeps the rules of struct hl_page: 0, or HL_EINVAL with
 * *why set (a sentence naming the field); HL_ENOMEM. */
int page_check(const struct hl_page *p, const char **why);
/* Whether two page paths are the same place: equal segment by segment,
 * where any :param equals any other. */
int page_same_path(const char *a, const char *b);
/* The core's own pages; count in *n. */
const struct hl_page *pages_core(size_t *n);

/* Whether `s` is a plain file name of [A-Za-z0-9._-] ending in `ext`
 * (something before it), no leading dot, no "..": safe in a URL and
 * inside its folder. */
int page_plain_name(const char *s, const char *ext);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * styles.h: the style sheets a signed-in document of the app carries
 * inline (styles.c).
 */
#ifndef HL_STYLES_H
#define HL_STYLES_H

struct buf;
struct pages;
struct styles;

/* Read the style sheets named by `urls` (NULL-terminated) and by the
 * pages' uses from the web folder into *out, and add the CSP source of
 * each ('sha256-...', space first) to `sources`. One that cannot be read
 * or could end its element is left out (logged): it is then fetched as
 * a file. 0 or HL_ENOMEM. */
int styles_load(struct styles **out, const char *web_root, const char *const *urls,
		const struct pages *pages, struct buf *sources);
void styles_free(struct styles *s);
/* The element carrying the sheet at `url` inline, or NULL: <style
 * media="not all" data-href="URL">...</style>, inert until the page that
 * wants it sets its media (webui/ui.js, stylesheet). */
const char *styles_element(const struct styles *s, const char *url);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * early.c: the answers a signed-in page of the app asks for first,
 * carried in the app's document.
 *
 * On a slow link every request made after the document costs a round
 * trip, and a browser opens at most six connections to a server: the
 * shell's files, /api/auth/me, /api/pages, the page's files and its data
 * make two rounds or more. So the document of an address under /app,
 * asked for with a session cookie, carries the answers first.js would
 * ask for next (webui/first.js): GET /api/auth/me and, when the address
 * names a location (?location=N), GET /api/pages and the GET the page at
 * that address opens with (hl_page.data), with the address's query less
 * `location`. Each is answered inside the document's request
 * (dispatch_inside), as it would be on its own: the same session, the
 * same rules, the same cache. Only a 200 is carried; anything else the
 * browser asks for itself and handles as it always does. Without a 200
 * from /api/auth/me nothing is carried. With them go links to the
 * page's script and the files it uses (page_links), put beside the
 * shell's in the document's head, so that all of them are on their way
 * while the document is still read.
 *
 * Each answer is an element
 *   <script type="application/json" class="hl-answer" data-path="P"
 *           data-where="N">JSON</script>
 * (data-where for those asked with a location), the JSON with every '<'
 * written \u003c so that no text in it can end the element. An address
 * whose path or query holds anything but letters, digits and "._-" (and
 * the query's '=' and '&') gets no page data: the path carried must be
 * the very one first.js makes of the address, and those need no
 * escaping anywhere.
 */
#include "http/early.h"
#include "http/dispatch.h"
#include "http/pages.h"
#include "http/styles.h"
#include "lib/buf.h"
#include "request/request.h"
#include "server.h"

#include <string.h>

#define APP "/app"
#define LOCATION "location"
#define JSON "application/json"

static int plain_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-';
}

/* Whether s[0..n) holds only plain characters and those of `also`. */
static int plain(const char *s, size_t n, const char *also)
{
	for (size_t i = 0; i < n; i++)
		if (!plain_char(s[i]) && !strchr(also, s[i]))
			return 0;
	return 1;
}

/* The query less its `location` pairs into `rest`, and the first
 * location's value into `where` (empty: none). 0 when a pair is not
 * plain name=value (then nothing is known of the page's query). */
static int split_query(const char *q, struct buf *rest, char *where, size_t cap)
{
	*where = '\0';
	for (const char *p = q; p && *p;) {
		size_t n = strcspn(p, "&");
		const char *eq = memchr(p, '=', n);
		if (n && (!eq || !plain(p, n, "=")))
			return 0;
		if (n && (size_t)(eq - p) == strlen(LOCATION) && !memcmp(p, LOCATION, eq - p)) {
			size_t v = n - (size_t)(eq + 1 - p);
			if (!*where && v && v < cap && eq[1] != '0' && strspn(eq + 1, "0123456789") >= v) {
				memcpy(where, eq + 1, v);
				where[v] = '\0';
			}
		} else if (n) {
			if (rest->len)
				buf_putc(rest, '&');
			buf_append(rest, p, n);
		}
		p += n + (p[n] == '&');
	}
	return 1;
}

/* Links that have the browser fetch page e's script and the files it
 * uses, and the elements carrying the style sheets it uses (styles.h):
 * the scripts first, so that they are asked for before the sheets are
 * read. */
static void page_links(const struct styles *st, const struct page_entry *e, struct buf *out)
{
	char *const *uses = page_uses(e);
	buf_printf(out, "<link rel=\"modulepreload\" href=\"%s\">", page_script(e));
	for (int k = 0; uses && uses[k]; k++) {
		const char *ext = strrchr(uses[k], '.');
		if (!ext || strcmp(ext, ".css"))
			buf_printf(out, "<link rel=\"modulepreload\" href=\"%s\">", uses[k]);
	}
	for (int k = 0; uses && uses[k]; k++) {
		const char *ext = strrchr(uses[k], '.'), *el = styles_element(st, uses[k]);
		if (!ext || strcmp(ext, ".css"))
			continue;
		if (el)
			buf_puts(out, el);
		else
			buf_printf(out, "<link rel=\"preload\" as=\"style\" href=\"%s\">", uses[k]);
	}
}

/* Answer GET path?query inside r and, on a 200, add its element to out. */
static int carry(struct hl_req *r, struct buf *out, const char *path, const char *query,
		 const char *where)
{
	const char *body;
	size_t len;
	if (dispatch_inside(r, path, query, where, &body, &len) != 200 ||
	    strncmp(r->nested->content_type ? r->nested->content_type : "", JSON, strlen(JSON)))
		return 0;
	buf_printf(out, "<script type=\"application/json\" class=\"hl-answer\" data-path=\"%s%s",
		   path, query ? "?" : "");
	for (const char *q = query; q && *q; q++) /* plain characters, and '&' */
		if (*q == '&')
			buf_puts(out, "&amp;");
		else
			buf_putc(out, *q);
	buf_putc(out, '"');
	if (where)
		buf_printf(out, " data-where=\"%s\"", where);
	buf_putc(out, '>');
	for (const char *p = body, *end = body + len; p < end;) {
		const char *lt = memchr(p, '<', (size_t)(end - p));
		buf_append(out, p, (size_t)((lt ? lt : end) - p));
		if (lt)
			buf_puts(out, "\\u003c");
		p = lt ? lt + 1 : end;
	}
	buf_puts(out, "</script>");
	return 1;
}

int early_answers(struct hl_req *r, struct buf *links, struct buf *answers)
{
	const char *path = r->path;
	size_t n = r->path_len, app = strlen(APP);
	if (strcmp(r->method, "GET") || n < app || memcmp(path, APP, app) ||
	    (n > app && path[app] != '/') || !carry(r, answers, "/api/auth/me", NULL, NULL))
		return 0;
	const struct page_entry *page = n > app + 1 ? pages_at(r->srv->pages, path + app, n - app)
						    : NULL;
	if (page)
		page_links(r->srv->styles, page, links);
	char where[24];
	struct buf rest = BUF_INIT, data = BUF_INIT;
	int known = split_query(r->query_string, &rest, where, sizeof(where));
	if (*where)
		carry(r, answers, "/api/pages", NULL, where);
	if (*where && page && known && plain(path + app, n - app, "/") &&
	    page_data_path(page, path + app, n - app, &data) && !data.oom && !rest.oom)
		carry(r, answers, data.data, rest.len ? rest.data : NULL, where);
	buf_release(&rest);
	buf_release(&data);
	request_end(r->nested); /* its answers are copied: a big one is not kept */
	return 1;
}

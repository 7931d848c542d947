/* SPDX-License-Identifier: MIT */
/*
 * styles.c: the style sheets a signed-in document of the app carries
 * inline.
 *
 * A browser opens at most six connections to a server. A signed-in page
 * needs the shell's scripts, its own and the style sheets of both (early.c
 * puts links to them in its document): more than six, so the last ones
 * would wait a round trip for a free connection. The sheets are small, so
 * the document carries them instead, each in an element that applies to
 * no medium until the page that wants it says so (webui/ui.js): a sheet
 * carried for a page never styles another.
 *
 * The sheets are read once at start: those the document's signed-in
 * template links to and those the pages use. The document's policy
 * allows each element by the hash of its text (static.c), as it allows
 * the first page's inline style.
 */
#include "http/styles.h"
#include "http/pages.h"
#include "lib/buf.h"
#include "lib/log.h"

#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHEET_MAX (64 * 1024)

struct sheet {
	char *url;
	char *element;
};

struct styles {
	struct sheet *s;
	int n;
};

/* A URL of [A-Za-z0-9/._-] without a ".." segment: a file of the folder. */
static int plain_url(const char *url)
{
	if (url[0] != '/' || strstr(url, "/..") || strspn(url, "abcdefghijklmnopqrstuvwxyz"
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-") != strlen(url))
		return 0;
	const char *ext = strrchr(url, '.');
	return ext && !strcmp(ext, ".css");
}

/* The file's text into `b`: 0, or -1 (logged) when it cannot be carried. */
static int read_sheet(const char *web_root, const char *url, struct buf *b)
{
	char *path = NULL;
	if (asprintf(&path, "%s%s", web_root, url) < 0)
		return -1;
	int rc = buf_read_file(b, path, SHEET_MAX);
	const char *why = b->oom ? NULL : rc && errno == EFBIG ? "it is over 64 KB"
		: rc ? "it cannot be read" : b->len && memmem(b->data, b->len, "</", 2) ? "it holds \"</\"" : NULL;
	rc = rc || why ? -1 : 0;
	if (why)
		log_warn("%s: %s; it is fetched, not carried in the document", path, why);
	free(path);
	return rc;
}

/* Add the sheet at `url`, unless it is there already. */
static int add(struct styles *st, const char *web_root, const char *url, struct buf *sources)
{
	for (int i = 0; i < st->n; i++)
		if (!strcmp(st->s[i].url, url))
			return 0;
	struct buf text = BUF_INIT, el = BUF_INIT;
	if (!plain_url(url) || read_sheet(web_root, url, &text)) {
		int oom = text.oom;
		buf_release(&text);
		return oom ? HL_ENOMEM : 0;
	}
	unsigned char digest[crypto_hash_sha256_BYTES];
	char b64[sodium_base64_ENCODED_LEN(crypto_hash_sha256_BYTES, sodium_base64_VARIANT_ORIGINAL)];
	crypto_hash_sha256(digest, (const unsigned char *)text.data, text.len);
	sodium_bin2base64(b64, sizeof(b64), digest, sizeof(digest), sodium_base64_VARIANT_ORIGINAL);
	buf_printf(sources, " 'sha256-%s'", b64);
	buf_printf(&el, "<style media=\"not all\" data-href=\"%s\">", url);
	buf_append(&el, text.data, text.len);
	buf_puts(&el, "</style>");
	buf_release(&text);
	struct sheet *grown = el.oom ? NULL : realloc(st->s, sizeof(*st->s) * (size_t)(st->n + 1));
	char *copy = grown ? strdup(url) : NULL;
	if (grown)
		st->s = grown;
	if (!copy) {
		buf_release(&el);
		return HL_ENOMEM;
	}
	st->s[st->n].url = copy;
	st->s[st->n++].element = el.data;
	return 0;
}

int styles_load(struct styles **out, const char *web_root, const char *const *urls,
		const struct pages *pages, struct buf *sources)
{
	struct styles *st = calloc(1, sizeof(*st));
	int rc = st ? 0 : HL_ENOMEM;
	for (int i = 0; !rc && urls && urls[i]; i++)
		rc = add(st, web_root, urls[i], sources);
	const struct page_entry *e;
	for (int i = 0; !rc && (e = pages_nth(pages, i)); i++)
		for (char *const *u = page_uses(e); !rc && u && *u; u++)
			rc = add(st, web_root, *u, sources);
	if (rc || sources->oom) {
		styles_free(st);
		return HL_ENOMEM;
	}
	*out = st;
	return 0;
}

void styles_free(struct styles *st)
{
	for (int i = 0; st && i < st->n; i++) {
		free(st->s[i].url);
		free(st->s[i].element);
	}
	if (st)
		free(st->s);
	free(st);
}

const char *styles_element(const struct styles *st, const char *url)
{
	for (int i = 0; st && i < st->n; i++)
		if (!strcmp(st->s[i].url, url))
			return st->s[i].element;
	return NULL;
}

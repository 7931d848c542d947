/* SPDX-License-Identifier: MIT */
/*
 * static.c: the browser app's files, from the web folder, with the caching
 * and precompressed codings the build step prepares them for.
 *
 * Only files inside the folder can be reached: the path is decoded, a
 * segment that starts with a dot ("..", ".env", ".git": hidden files, as
 * nginx and Apache keep them) and backslashes are refused, and the file's
 * real path (symlinks resolved) must still lie inside the folder's real
 * path with no hidden segment either. A path whose last segment has no extension and names no file
 * is a page of the app and gets index.html, as does any path under /app/
 * that names no file; anything else missing (app.3f9a1c2b.js included) is
 * a real JSON 404.
 *
 * The app's document (the folder's index.html, however it was reached)
 * inlines its first script and style; WEB/index.html.csp, written by the
 * build, holds the script-src and style-src that allow them by hash. It is
 * read once at start (static_load) into a policy that is the default one
 * (answer_csp) with those two directives replaced, and only that document is
 * sent with it.
 *
 * The document also carries the map of the pages (pages_map): built once
 * at start into an element, it takes the place of the marker comment
 * MAP_MARK in the file as it is sent (a document without the mark is
 * served as any file). Such a document is never sent from its .br or .gz
 * (they lack the map): the HTTP layer compresses it, and its ETag names
 * the map too, so a server whose pages changed never answers 304 to a
 * copy with the old map.
 *
 * A visitor who carries a session cookie is most likely signed in, and
 * the shell is what their page needs next: for them the document's
 * <template id="hl-signed-in"> loses its two tags, so that the links to
 * the shell's files in it are live and fetched while the document is
 * still read, not once its script has run and heard from the server
 * (on a slow link that is one round trip or more), and its script hides
 * the login form before it is first drawn. A signed-out visitor
 * gets the template as it is: inert, nothing fetched. The cookie is not
 * checked for that (it would cost a database read for a guess): a stale
 * one costs five files the browser keeps, and the login form shows only
 * once the server has said so (first.js). The ETag says which of the two
 * was sent, and the document varies by Cookie.
 *
 * For an address under /app the cookie is put to use: the document
 * carries the first answers of the page (early.c) after the map and the
 * links to its files after the template's, the template's style sheets
 * and the page's inline (styles.c; the policy allows them by hash). That
 * document is the caller's own: "no-store", no ETag, no 304. When the
 * session is not valid it carries nothing and is the shared one.
 *
 * Caching: a file named name.HASH.ext (HASH: 8 or more hex digits) is named
 * by its content, so it is "public, max-age=31536000, immutable"; anything
 * else (index.html above all) is "no-cache". Both carry a strong ETag made
 * of the size and the mtime in ns of the bytes sent, with "-br" or "-gz"
 * appended for an encoded answer, and Last-Modified. If-None-Match (a list,
 * "*", weak comparison) or, without it, If-Modified-Since at or after the
 * mtime's second (and not in the future) answers 304: ETag, Cache-Control
 * and Vary, no body.
 *
 * Codings: for text types, file.br or file.gz lying beside the file is sent
 * instead when the client takes that coding (br first, else gz), with
 * r->encoded set so the HTTP layer does not compress it again (it still
 * adds Vary to the body; a 304 gets Vary here). A variant is opened
 * beside the file's real path with O_NOFOLLOW, so it cannot lead outside
 * either. Without a variant the HTTP layer may compress the file itself;
 * the ETag then names the coding it will choose (the same rule, in
 * compress.h), since one strong ETag must never stand for two bodies.
 *
 * Each candidate is opened once and stat'ed once (fstat); everything else
 * lives in the request arena.
 */
#include "auth/auth.h"
#include "http/early.h"
#include "http/http.h"
#include "http/pages.h"
#include "http/styles.h"
#include "lib/compress.h"
#include "lib/hash.h"
#include "lib/log.h"
#include "request/answer.h"
#include "request/request.h"
#include "server.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define IMMUTABLE "public, max-age=31536000, immutable"
#define DOCUMENT "index.html"
#define DOCUMENT_CSP "index.html.csp"
#define MAP_MARK "<!--hl-pages-->"
#define SIGNED_IN_OPEN "<template id=\"hl-signed-in\">"
#define SIGNED_IN_CLOSE "</template>"
#define CSP_MAX 2048
#define HTTP_DATE "%a, %d %b %Y %H:%M:%S GMT"

struct media {
	const char *ext, *type;
};

static const struct media media[] = {
	{ ".html", "text/html; charset=utf-8" },
	{ ".js", "text/javascript; charset=utf-8" },
	{ ".mjs", "text/javascript; charset=utf-8" },
	{ ".css", "text/css; charset=utf-8" },
	{ ".json", "application/json; charset=utf-8" },
	{ ".webmanifest", "application/manifest+json" },
	{ ".svg", "image/svg+xml" },
	{ ".png", "image/png" },
	{ ".ico", "image/x-icon" },
	{ ".woff2", "font/woff2" },
	{ ".txt", "text/plain; charset=utf-8" },
};

/* The file an answer is made from: open, and stat'ed once. */
struct file {
	int fd;             /* -1: none */
	struct stat st;
	const char *path;   /* its real path, in the arena */
	enum coding coding; /* of the bytes behind fd */
};

static const char *media_type(const char *path)
{
	const char *dot = strrchr(path, '.');
	for (size_t i = 0; dot && i < sizeof(media) / sizeof(media[0]); i++)
		if (!strcmp(dot, media[i].ext))
			return media[i].type;
	return "application/octet-stream";
}

/* name.HASH.ext with 8 or more hex digits and a name before them. */
static int is_hashed(const char *name)
{
	const char *ext = strrchr(name, '.'), *p = ext;
	size_t digits = 0;
	while (p && p > name && isxdigit((unsigned char)p[-1]))
		p--, digits++;
	return digits >= 8 && p > name + 1 && p[-1] == '.';
}

/* Whether a segment of the decoded path `p` starts with a dot. */
static int has_hidden_segment(const char *p)
{
	if (*p == '.')
		return 1;
	for (const char *slash = strchr(p, '/'); slash; slash = strchr(slash + 1, '/'))
		if (slash[1] == '.')
			return 1;
	return 0;
}

/* The decoded path relative to the web folder, or NULL when unsafe. */
static char *safe_relative(struct hl_req *r)
{
	char *rel = request_decode(r, r->path + 1, r->path_len - 1, 0);
	if (!rel || strchr(rel, '\\'))
		return NULL;
	return has_hidden_segment(rel) ? NULL : rel;
}

static void file_close(struct file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
}

/* Open `path` into f. O_NOFOLLOW: the path is real already, so a symlink
 * met here is a variant's or was swapped in since, and is not followed.
 * O_NONBLOCK: a FIFO in the folder must not hang the worker. */
static int file_open(struct file *f, const char *path, enum coding coding)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return HL_ENOENT;
	if (fstat(fd, &f->st)) {
		close(fd);
		return HL_EIO;
	}
	f->fd = fd;
	f->path = path;
	f->coding = coding;
	return 0;
}

/* Open web_root/rel when its real path lies inside web_root. */
static int open_inside(struct hl_req *r, struct file *f, const char *rel)
{
	const char *root = r->srv->web_root;
	size_t n = strlen(root);
	char real[PATH_MAX];
	if (!realpath(hl_sprintf(r, "%s/%s", root, rel), real) || strncmp(real, root, n) ||
	    real[n] != '/' || has_hidden_segment(real + n))
		return HL_ENOENT;
	return file_open(f, hl_strndup(r, real, strlen(real)), CODING_IDENTITY);
}

/* Like open_inside, for a regular file only. */
static int open_regular(struct hl_req *r, struct file *f, const char *rel)
{
	int rc = open_inside(r, f, rel);
	if (!rc && !S_ISREG(f->st.st_mode)) {
		file_close(f);
		rc = HL_ENOENT;
	}
	return rc;
}

/* Whether the decoded path is /app or under it: the app's own pages. */
static int in_app(const char *rel)
{
	return !strncmp(rel, "app", 3) && (!rel[3] || rel[3] == '/');
}

/* Find and open the file that answers the path; *hashed says whether its
 * name is content-hashed, *document whether it is the app's document. */
static int locate(struct hl_req *r, struct file *f, int *hashed, int *document)
{
	char *rel = safe_relative(r);
	if (!rel)
		return HL_ENOENT;
	const char *last = strrchr(rel, '/');
	last = last ? last + 1 : rel;
	if (*rel && !open_inside(r, f, rel)) {
		if (S_ISREG(f->st.st_mode)) {
			*hashed = is_hashed(last);
			*document = !strcmp(rel, DOCUMENT);
			return 0;
		}
		int dir = S_ISDIR(f->st.st_mode);
		file_close(f);
		return dir ? open_regular(r, f, hl_sprintf(r, "%s/" DOCUMENT, rel)) : HL_ENOENT;
	}
	if (strchr(last, '.') && !in_app(rel))
		return HL_ENOENT; /* a missing file, never a page */
	*document = 1;
	return open_regular(r, f, DOCUMENT); /* a page of the app */
}

/* Swap f for file.br or file.gz when it is there, a regular file. */
static int take_variant(struct hl_req *r, struct file *f, enum coding c)
{
	struct file v = { .fd = -1 };
	const char *path = hl_sprintf(r, "%s.%s", f->path, c == CODING_BR ? "br" : "gz");
	if (file_open(&v, path, c))
		return HL_ENOENT;
	if (!S_ISREG(v.st.st_mode)) {
		file_close(&v);
		return HL_ENOENT;
	}
	file_close(f);
	*f = v;
	return 0;
}

/* The coding the client will get: a precompressed variant's, or the one
 * the HTTP layer's maybe_compress will choose for the plain file. */
static enum coding pick_coding(struct hl_req *r, struct file *f, const char *type)
{
	const char *accept = hl_header(r, "Accept-Encoding");
	enum coding c = compress_choose(accept);
	if (c == CODING_IDENTITY || !compress_worth(type))
		return CODING_IDENTITY;
	if (c == CODING_BR && !take_variant(r, f, CODING_BR))
		return CODING_BR;
	if (compress_accepts(accept, CODING_GZIP) && !take_variant(r, f, CODING_GZIP))
		return CODING_GZIP;
	return f->st.st_size >= COMPRESS_MIN_BYTES ? c : CODING_IDENTITY;
}

/* The document's coding, when it carries the map: the HTTP layer's own
 * choice, never a variant's. */
static enum coding document_coding(struct hl_req *r, const struct file *f, const char *type)
{
	enum coding c = compress_choose(hl_header(r, "Accept-Encoding"));
	return compress_worth(type) && f->st.st_size >= COMPRESS_MIN_BYTES ? c : CODING_IDENTITY;
}

/* `mapped`: 0 for a file as it is; 1 for the document with its map; 2
 * for that with its signed-in links live. */
static char *make_etag(struct hl_req *r, const struct file *f, enum coding c, int mapped)
{
	unsigned long long ns = (unsigned long long)f->st.st_mtim.tv_sec * 1000000000ULL +
				(unsigned long long)f->st.st_mtim.tv_nsec;
	const char *map = mapped ? hl_sprintf(r, "-m%llx%s", r->srv->document_map_hash,
					      mapped > 1 ? "-s" : "") : "";
	return hl_sprintf(r, "\"%llx-%llx%s%s\"", (unsigned long long)f->st.st_size, ns, map,
			  c == CODING_BR ? "-br" : c == CODING_GZIP ? "-gz" : "");
}

/* Whether If-None-Match lists `etag` (weak comparison: W/ is ignored). */
static int etag_listed(const char *list, const char *etag)
{
	size_t n = strlen(etag);
	for (const char *p = list; *p;) {
		p += strspn(p, " \t,");
		if (*p == '*')
			return 1;
		if (!strncmp(p, "W/", 2))
			p += 2;
		if (!strncmp(p, etag, n) && (!p[n] || strchr(" \t,", p[n])))
			return 1;
		/* A quoted tag may hold a comma: step over the quotes first. */
		const char *close = *p == '"' ? strchr(p + 1, '"') : NULL;
		if (close)
			p = close + 1;
		p += strcspn(p, ",");
	}
	return 0;
}

/* Whether the client's copy is still the file's (RFC 9110 section 13.2.2:
 * If-Modified-Since counts only without If-None-Match). */
static int not_modified(struct hl_req *r, const struct file *f, const char *etag)
{
	const char *match = hl_header(r, "If-None-Match");
	if (match)
		return etag_listed(match, etag);
	const char *since = hl_header(r, "If-Modified-Since");
	struct tm tm = { 0 };
	if (!since || !strptime(since, HTTP_DATE, &tm))
		return 0;
	time_t t = timegm(&tm);
	/* A date from the future is no date the client had from us. */
	return t != (time_t)-1 && t <= time(NULL) && f->st.st_mtim.tv_sec <= t;
}

/* The file's bytes become the answer's body. */
static int read_body(struct hl_req *r, const struct file *f)
{
	size_t size = (size_t)f->st.st_size, got = 0;
	request_reset_answer(r);
	buf_reserve(&r->out, size);
	while (!r->out.oom && got < size) {
		/* pread: the document may be read twice (put_map) */
		ssize_t n = pread(f->fd, r->out.data + r->out.len + got, size - got, (off_t)got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (r->out.oom || got != size)
		return HL_EIO;
	r->out.len += got;
	return 0;
}

/* The document's body, read into the answer, gets the map and then
 * `answers` in place of MAP_MARK: 1, or 0 (and the answer emptied) when
 * it has no mark. */
static int put_map(struct hl_req *r, const char *answers)
{
	char *body = r->out.data + HEAD_ROOM;
	char *at = memmem(body, r->out.len - HEAD_ROOM, MAP_MARK, sizeof(MAP_MARK) - 1);
	if (!at) {
		request_reset_answer(r);
		return 0;
	}
	size_t head = (size_t)(at - r->out.data), skip = head + sizeof(MAP_MARK) - 1;
	char *tail = hl_strndup(r, r->out.data + skip, r->out.len - skip);
	size_t tail_len = r->out.len - skip;
	r->out.len = head;
	buf_puts(&r->out, r->srv->document_map);
	buf_puts(&r->out, answers);
	buf_append(&r->out, tail, tail_len);
	return 1;
}

/* Takes the signed-in template's two tags out of the document in the
 * answer, what they held replaced by `held` unless it is NULL, `links`
 * after it: 1, or 0 when it has none. */
static int unwrap_signed_in(struct hl_req *r, const char *held, const char *links)
{
	char *body = r->out.data + HEAD_ROOM, *end = r->out.data + r->out.len;
	char *open = memmem(body, (size_t)(end - body), SIGNED_IN_OPEN, sizeof(SIGNED_IN_OPEN) - 1);
	char *inside = open ? open + sizeof(SIGNED_IN_OPEN) - 1 : NULL;
	char *close = inside ? memmem(inside, (size_t)(end - inside), SIGNED_IN_CLOSE,
				      sizeof(SIGNED_IN_CLOSE) - 1) : NULL;
	if (!close)
		return 0;
	const char *after = close + sizeof(SIGNED_IN_CLOSE) - 1;
	size_t tail_len = (size_t)(end - after), inside_len = (size_t)(close - inside);
	char *tail = hl_strndup(r, after, tail_len);
	if (!held)
		held = hl_strndup(r, inside, inside_len);
	r->out.len = (size_t)(open - r->out.data);
	buf_puts(&r->out, held);
	buf_puts(&r->out, links);
	buf_append(&r->out, tail, tail_len);
	return 1;
}

static void add_last_modified(struct hl_req *r, const struct file *f)
{
	char date[40];
	struct tm tm;
	strftime(date, sizeof(date), HTTP_DATE, gmtime_r(&f->st.st_mtim.tv_sec, &tm));
	request_add_header(r, "Last-Modified: %s", date);
}

/* A 304 or a 200 from the open file (`mapped`: the document with its
 * map, read already; see make_etag). The headers come last: the answer
 * keeps them even when an error replaces it. A `personal` document (it
 * carries the caller's answers, early.c) is neither kept nor compared. */
static int answer(struct hl_req *r, const struct file *f, const char *type, enum coding c,
		  int hashed, int mapped, int personal)
{
	const char *etag = personal ? NULL : make_etag(r, f, c, mapped);
	int fresh = etag && not_modified(r, f, etag);
	if (fresh)
		request_reset_answer(r);
	else if (!mapped && read_body(r, f))
		return HL_EIO;
	r->status = fresh ? 304 : 200;
	r->content_type = type;
	r->cache_control = personal ? NULL : hashed ? IMMUTABLE : "no-cache";
	r->encoded = f->coding != CODING_IDENTITY;
	r->replied = 1;
	if (etag)
		request_add_header(r, "ETag: %s", etag);
	if (mapped)
		request_add_header(r, "Vary: Cookie");
	if (fresh) {
		/* maybe_compress adds Vary to bodies only; a 304 needs it too. */
		if (compress_worth(type))
			request_add_header(r, "Vary: Accept-Encoding");
		return 0;
	}
	if (!personal)
		add_last_modified(r, f);
	if (r->encoded)
		request_add_header(r, "Content-Encoding: %s", coding_name(f->coding));
	return 0;
}

/* The document, read into the answer, with its map and, for a visitor
 * with a session cookie, its signed-in links live and the answers it
 * carries (*personal). `mapped` as make_etag has it, or 0 for a
 * document without the map's mark. */
static int put_document(struct hl_req *r, const struct file *f, int *mapped, int *personal)
{
	int rc = read_body(r, f);
	if (rc)
		return rc;
	struct buf links = BUF_INIT, answers = BUF_INIT;
	int session = auth_carries_session(r);
	/* Once answers were made inside it, the document is personal even
	 * if they cannot go in: a session renewal's cookie may be on it. */
	*personal = session && early_answers(r, &links, &answers);
	int carried = *personal && !links.oom && !answers.oom;
	*mapped = put_map(r, carried && answers.data ? answers.data : "");
	if (*mapped && session)
		*mapped += carried ? unwrap_signed_in(r, r->srv->signed_in_head, links.data ? links.data : "")
				   : unwrap_signed_in(r, NULL, "");
	buf_release(&links);
	buf_release(&answers);
	return 0;
}

void static_serve(struct hl_req *r)
{
	struct file f = { .fd = -1 };
	int hashed = 0, document = 0;
	int rc = locate(r, &f, &hashed, &document);
	if (!rc) {
		const char *type = media_type(f.path);
		int mapped = 0, personal = 0;
		if (document && r->srv->document_map)
			rc = put_document(r, &f, &mapped, &personal);
		if (!rc) {
			enum coding c = mapped ? document_coding(r, &f, type) : pick_coding(r, &f, type);
			rc = answer(r, &f, type, c, hashed, mapped, personal);
		}
	}
	file_close(&f);
	if (rc)
		hl_reply_error(r, 404, "not_found", "nothing here");
	else if (document)
		r->csp = r->srv->document_csp;
}

/* ---- the document's policy ------------------------------------------------ */

/* The directive's name: its first word, lowercased into `name`. */
static void directive_name(const char *d, size_t n, char name[32])
{
	size_t k = 0;
	while (k < n && k < 31 && d[k] != ' ')
		name[k] = (char)tolower((unsigned char)d[k]), k++;
	name[k] = '\0';
}

static int is_replaced(const char *name)
{
	return !strcmp(name, "script-src") || !strcmp(name, "style-src");
}

/* Copy into `out` the directives of `policy` (';'-separated), trimmed and
 * joined with "; ". Only script-src and style-src may be set: any other is
 * refused, HL_EINVAL with *bad pointing at it. */
static int take_directives(char *out, size_t cap, const char *policy, const char **bad)
{
	for (const char *p = policy; *p;) {
		size_t n = strcspn(p, ";");
		const char *d = p;
		p += n + (p[n] == ';');
		while (n && *d == ' ')
			d++, n--;
		while (n && d[n - 1] == ' ')
			n--;
		if (!n)
			continue;
		char name[32];
		directive_name(d, n, name);
		if (!is_replaced(name)) {
			*bad = d;
			return HL_EINVAL;
		}
		size_t len = strlen(out);
		snprintf(out + len, cap - len, "%s%.*s", len ? "; " : "", (int)n, d);
	}
	return 0;
}

/* The first line of `path` into line[CSP_MAX], trailing spaces cut.
 * HL_ENOENT when there is no such file, HL_ETOOBIG when the line (or the
 * file, over 16 lines' worth) is too long. */
static int read_line(const char *path, char line[CSP_MAX])
{
	struct buf text = BUF_INIT;
	int rc = 0;
	if (buf_read_file(&text, path, CSP_MAX * 16))
		rc = errno == ENOENT ? HL_ENOENT : errno == EFBIG ? HL_ETOOBIG
			: errno == ENOMEM ? HL_ENOMEM : HL_EIO;
	else if (!text.len)
		rc = HL_EIO;
	size_t n = rc ? 0 : strcspn(text.data, "\r\n");
	if (!rc && n >= CSP_MAX - 1)
		rc = HL_ETOOBIG;
	if (!rc) {
		while (n && (text.data[n - 1] == ' ' || text.data[n - 1] == '\t'))
			n--;
		memcpy(line, text.data, n);
		line[n] = '\0';
	}
	buf_release(&text);
	return rc;
}

/* Whether the policy text holds only printable ASCII: nothing that could
 * end the header or start another. */
static int printable(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return 0;
	return 1;
}

/* The map's element, and its hash (FNV-1a) for the ETag. A data block,
 * not a script: the policy has nothing to allow. */
static int load_map(struct server *s)
{
	char *map = pages_map(s->pages);
	if (!map)
		return HL_ENOMEM;
	free(s->document_map);
	s->document_map = NULL;
	int n = asprintf(&s->document_map, "<script type=\"application/json\" id=\"hl-pages\">%s"
			 "</script>", map);
	free(map);
	if (n < 0) {
		s->document_map = NULL;
		return HL_ENOMEM;
	}
	s->document_map_hash = hash_fnv1a(s->document_map, (size_t)n);
	return 0;
}

/* The value of attribute `name` in the tag [tag, end): a malloc'ed
 * copy, or NULL. */
static char *tag_attr(const char *tag, const char *end, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = tag; (p = memmem(p, (size_t)(end - p), name, n)); p += n)
		if (p[-1] == ' ' && p[n] == '=' && p[n + 1] == '"') {
			const char *v = p + n + 2, *q = memchr(v, '"', (size_t)(end - v));
			return q ? strndup(v, (size_t)(q - v)) : NULL;
		}
	return NULL;
}

/* The sheets the signed-in template links to go inline: s->styles and
 * s->signed_in_head from the template's text [in, end) (its first 15
 * links are looked at), their sources for the policy added to
 * `sources`. */
static int carry_sheets(struct server *s, const char *in, const char *end, struct buf *sources)
{
	const char *urls[16];
	char *hrefs[16];
	int n = 0, rc;
	for (const char *p = in; n < 15 && (p = memmem(p, (size_t)(end - p), "<link ", 6)); p++) {
		const char *close = memchr(p, '>', (size_t)(end - p));
		if (close && (hrefs[n] = tag_attr(p, close, "href")))
			urls[n] = hrefs[n], n++;
	}
	urls[n] = NULL;
	struct buf head = BUF_INIT;
	if (!(rc = styles_load(&s->styles, s->web_root, urls, s->pages, sources))) {
		for (const char *p = in; p < end;) {
			const char *tag = memmem(p, (size_t)(end - p), "<link ", 6);
			const char *close = tag ? memchr(tag, '>', (size_t)(end - tag)) : NULL;
			char *href = close ? tag_attr(tag, close, "href") : NULL;
			const char *el = href ? styles_element(s->styles, href) : NULL;
			free(href);
			buf_append(&head, p, (size_t)((el ? tag : close ? close + 1 : end) - p));
			if (el)
				buf_puts(&head, el);
			p = close ? close + 1 : end;
		}
		rc = head.oom ? HL_ENOMEM : 0;
	}
	for (int i = 0; i < n; i++)
		free(hrefs[i]);
	free(s->signed_in_head);
	s->signed_in_head = rc ? NULL : head.data;
	if (rc)
		buf_release(&head);
	return rc;
}

/* The document's template, its sheets carried (carry_sheets); nothing
 * when it has none. */
static int load_sheets(struct server *s, struct buf *sources)
{
	char *path = NULL;
	struct buf doc = BUF_INIT;
	if (asprintf(&path, "%s/" DOCUMENT, s->web_root) < 0)
		return HL_ENOMEM;
	int rc = buf_read_file(&doc, path, SIZE_MAX);
	free(path);
	if (rc && !doc.oom) { /* no document: nothing carried */
		buf_release(&doc);
		return 0;
	}
	rc = doc.oom ? HL_ENOMEM : 0;
	const char *open = rc ? NULL : memmem(doc.data, doc.len, SIGNED_IN_OPEN, sizeof(SIGNED_IN_OPEN) - 1);
	const char *in = open ? open + sizeof(SIGNED_IN_OPEN) - 1 : NULL;
	const char *close = in ? memmem(in, doc.len - (size_t)(in - doc.data), SIGNED_IN_CLOSE,
					 sizeof(SIGNED_IN_CLOSE) - 1) : NULL;
	if (close)
		rc = carry_sheets(s, in, close, sources);
	buf_release(&doc);
	return rc;
}

/* The document's policy: the default with `policy`'s directives, and
 * `sources` added to its style-src (made of 'self' and them, when it has
 * none). NULL when out of memory. */
static char *document_policy(const char *policy, const char *sources)
{
	char *merged = NULL;
	const char *d = strcasestr(policy, "style-src");
	int n = d ? asprintf(&merged, "%s; %.*s%s%s", answer_csp, (int)(d - policy + strcspn(d, ";")),
			     policy, sources, d + strcspn(d, ";"))
		  : asprintf(&merged, "%s; %s; style-src 'self'%s", answer_csp, policy, sources);
	return n < 0 ? NULL : merged;
}

int static_load(struct server *s)
{
	char line[CSP_MAX], policy[CSP_MAX] = "";
	const char *bad = NULL, *why = NULL;
	char *path = NULL, *merged = NULL;
	struct buf sources = BUF_INIT;
	if (!s->web_root)
		return 0;
	int rc = load_map(s);
	if (rc || (rc = load_sheets(s, &sources)))
		goto out;
	if (asprintf(&path, "%s/" DOCUMENT_CSP, s->web_root) < 0) {
		rc = HL_ENOMEM;
		goto out;
	}
	rc = read_line(path, line);
	if (rc == HL_ENOENT) { /* an unbuilt folder: nothing inline to allow */
		rc = 0;
		goto out;
	}
	if (rc == HL_ETOOBIG)
		why = "the line is too long";
	else if (rc)
		why = "it cannot be read";
	else if (!printable(line))
		why = "it holds more than printable ASCII";
	else if (take_directives(policy, sizeof(policy), line, &bad))
		why = "only script-src and style-src may be set, not";
	else if (!*policy)
		why = "it sets no script-src or style-src";
	rc = 0;
	if (why) {
		log_warn("%s: %s%s%.*s; the app's document keeps the default policy", path, why,
			 bad ? " " : "", bad ? (int)strcspn(bad, ";") : 0, bad ? bad : "");
		goto out;
	}
	/* The default sets neither directive (default-src covers them), so the
	 * file's are added to it, not put in place of any. */
	if (!(merged = document_policy(policy, sources.data ? sources.data : ""))) {
		rc = HL_ENOMEM;
		goto out;
	}
	free(s->document_csp);
	s->document_csp = merged;
out:
	if (!s->document_csp) { /* nothing inline is allowed: no sheet carried */
		free(s->signed_in_head);
		s->signed_in_head = NULL;
		styles_free(s->styles);
		s->styles = NULL;
	}
	buf_release(&sources);
	free(path);
	return rc;
}

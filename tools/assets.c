/* SPDX-License-Identifier: MIT */
/*
 * hl-assets: turns a folder of plain ES modules, CSS and HTML into the web
 * folder the server serves:
 *
 *   hl-assets --out DIR [--base /PATH/] SRC
 *
 * It reads every file under SRC (dotfiles skipped), leaves out the comments
 * and indentation of JS and CSS (keeping every line), rewrites the references
 * between them, names each file by its content (name.HASH.ext, HASH = the
 * first 10 hex digits of the SHA-256 of its final bytes) and writes it to
 * DIR with .br (brotli 11) and .gz (libdeflate 12) beside each text file
 * when they are smaller. index.html and sw.js at SRC's root keep their
 * names; manifest.json maps each source name to its output name, and
 * index.html.csp holds the CSP sources of index.html's inline blocks.
 *
 * References: JS import/export-from/import()/new URL(x, import.meta.url)
 * with a string literal, CSS url() and @import, HTML src= and href=. One
 * is rewritten when it names a file of SRC, relatively or absolutely under
 * --base (the URL DIR is served at, "/" by default); anything else is left
 * alone, and one that should name a file but names none is an error. In
 * HTML every reference becomes absolute (index.html is served for /app/...
 * too), and so does everything in what it inlines: the stylesheet <link>
 * and module <script> marked data-inline become <style> and <script>.
 *
 * A file is named after the files it references, so references must not
 * form a cycle. The JS reader is a tokenizer, not a parser: it knows
 * comments, strings, template literals and regular expressions well enough
 * to find specifiers and to drop what lies between tokens, and no more.
 *
 * The tool owns DIR: whatever it did not write there is removed, except a
 * top-level modules/ (the modules' folders, each written by its own run).
 * Files are written through a temporary name and a rename, and left
 * untouched when their bytes are the same, so the output is deterministic
 * and an unchanged file keeps its ETag.
 */
#define _XOPEN_SOURCE 700

#include <brotli/encode.h>
#include <libdeflate.h>
#include <sodium.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define HASH_HEX 10
#define MAX_ATTRS 64
#define MAX_NEST 256

/* ---- buffers and errors ------------------------------------------------- */

struct buf {
	char *p;
	size_t len, cap;
};

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fputs("hl-assets: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

static void buf_add(struct buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void buf_str(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

static void buf_free(struct buf *b)
{
	free(b->p);
	*b = (struct buf){ 0 };
}

static char *xstrcat3(const char *a, const char *b, const char *c)
{
	struct buf s = { 0 };
	buf_str(&s, a);
	buf_str(&s, b);
	buf_str(&s, c);
	return s.p;
}

static int fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("hl-assets: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return -1;
}

/* The first `needle` in p[0..n), or NULL. */
static const char *find(const char *p, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (!memcmp(p + i, needle, k))
			return p + i;
	return NULL;
}

/* The last '/' in p[0..n), or NULL. */
static const char *last_slash(const char *p, size_t n)
{
	while (n--)
		if (p[n] == '/')
			return p + n;
	return NULL;
}

/* ---- the site: the files of SRC and what refers to what ------------------ */

enum how {
	R_MODULE,     /* a JS module specifier: only ./, ../ or absolute count */
	R_URL,        /* a URL (CSS, new URL()): any relative path counts */
	R_RESOURCE,   /* an HTML attribute that loads something: must exist */
	R_LINK,       /* an HTML link (<a href>): rewritten only if it exists */
	R_INLINE_CSS, /* <link rel=stylesheet href data-inline>: the whole tag */
	R_INLINE_JS,  /* <script type=module src data-inline></script> */
};

struct ref {
	size_t start, end;    /* the bytes it replaces */
	size_t spec, len;     /* the reference's text, as written */
	size_t keep, tail;    /* spec + keep: its last segment; + tail: ?query#frag */
	enum how how;
	int target;           /* index of the file it names; -1: left alone */
};

struct file {
	char *path;           /* relative to SRC, '/'-separated */
	char *where;          /* SRC/path, for messages */
	char *out;            /* relative to DIR */
	struct buf data;      /* its bytes as read */
	struct buf final;     /* its bytes as written */
	struct ref *refs;
	size_t nrefs, cap;
	int state;            /* 0: not built, 1: being built, 2: built */
};

struct site {
	const char *src, *dir, *base;
	struct file *files;
	size_t nfiles, cap;
	char **made;          /* what this run wrote under DIR */
	size_t nmade, madecap;
	int *stack;           /* the files being built, for a cycle's message */
	size_t depth;
	struct libdeflate_compressor *gz;
};

static const char *ext_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(slash ? slash + 1 : path, '.');
	return dot ? dot : path + strlen(path);
}

static int is_text(const char *path)
{
	static const char *const exts[] = { ".html", ".js", ".mjs", ".css", ".svg",
		".json", ".webmanifest", ".txt" };
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++)
		if (!strcmp(ext_of(path), exts[i]))
			return 1;
	return 0;
}

static int is_js(const char *path)
{
	return !strcmp(ext_of(path), ".js") || !strcmp(ext_of(path), ".mjs");
}

/* Names that stay as they are: the page, and the service worker whose URL
 * must not change between versions. */
static int keeps_name(const char *path)
{
	return !strcmp(path, "index.html") || !strcmp(path, "sw.js");
}

static int line_at(const struct file *f, size_t off)
{
	int line = 1;
	for (size_t i = 0; i < off && i < f->data.len; i++)
		line += f->data.p[i] == '\n';
	return line;
}

static struct ref *add_ref(struct file *f, enum how how, size_t spec, size_t len)
{
	if (f->nrefs == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 16;
		f->refs = xrealloc(f->refs, f->cap * sizeof(*f->refs));
	}
	struct ref *r = &f->refs[f->nrefs++];
	*r = (struct ref){ .start = spec, .end = spec + len, .spec = spec, .len = len,
		.how = how, .target = -1 };
	return r;
}

static int find_file(const struct site *s, const char *path)
{
	size_t lo = 0, hi = s->nfiles;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(s->files[mid].path, path);
		if (!c)
			return (int)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* ---- reading JS ----------------------------------------------------------- */

enum tt { T_NAME, T_NUM, T_STR, T_TPL, T_THEAD, T_TTAIL, T_REGEX, T_PUNCT };

struct tok {
	enum tt type;
	size_t start, end;
};

/* The tokenizer's state. `nest` tells, for each open brace, whether it
 * closes a template's ${ (1) or a block or object (0). */
struct lexer {
	const struct file *f;
	const char *s;
	size_t i, end;
	struct tok *t;
	size_t n, cap;
	char nest[MAX_NEST];
	int depth;
};

static int lex_fail(struct lexer *x, size_t at, const char *what)
{
	return fail("%s:%d: %s", x->f->where, line_at(x->f, at), what);
}

static void push_tok(struct lexer *x, enum tt type, size_t start, size_t end)
{
	if (x->n == x->cap) {
		x->cap = x->cap ? x->cap * 2 : 256;
		x->t = xrealloc(x->t, x->cap * sizeof(*x->t));
	}
	x->t[x->n++] = (struct tok){ type, start, end };
}

static int is_ident(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '$' || c == '\\' || c >= 0x80;
}

static int tok_is(const struct lexer *x, size_t k, enum tt type, const char *text)
{
	if (k >= x->n || x->t[k].type != type)
		return 0;
	size_t n = x->t[k].end - x->t[k].start;
	return strlen(text) == n && !memcmp(x->s + x->t[k].start, text, n);
}

static int punct(const struct lexer *x, size_t k, const char *text)
{
	return tok_is(x, k, T_PUNCT, text);
}

/* After these words an expression starts, so a slash opens a regex. */
static int regex_after_word(const struct lexer *x, size_t k)
{
	static const char *const words[] = { "await", "case", "default", "delete", "do", "else",
		"export", "extends", "in", "instanceof", "new", "of", "return", "throw",
		"typeof", "void", "yield" };
	if (k > 0 && punct(x, k - 1, "."))
		return 0; /* a property: a.return / 2 */
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (tok_is(x, k, T_NAME, words[i]))
			return 1;
	return 0;
}

/* Whether a slash here starts a regex rather than dividing: it does where
 * an expression may start, i.e. not after an operand. */
static int regex_allowed(const struct lexer *x)
{
	if (!x->n)
		return 1;
	const struct tok *p = &x->t[x->n - 1];
	switch (p->type) {
	case T_NAME:
		return regex_after_word(x, x->n - 1);
	case T_PUNCT:
		return !(punct(x, x->n - 1, ")") || punct(x, x->n - 1, "]") ||
			 punct(x, x->n - 1, "}") || punct(x, x->n - 1, "++") ||
			 punct(x, x->n - 1, "--"));
	case T_THEAD:
		return 1;
	default:
		return 0;
	}
}

static int lex_string(struct lexer *x)
{
	size_t start = x->i;
	char q = x->s[x->i++];
	while (x->i < x->end && x->s[x->i] != q) {
		if (x->s[x->i] == '\n')
			break;
		x->i += x->s[x->i] == '\\' ? 2 : 1;
	}
	if (x->i >= x->end || x->s[x->i] != q)
		return lex_fail(x, start, "a string is not closed on its line");
	x->i++;
	push_tok(x, T_STR, start, x->i);
	return 0;
}

/* A template from its ` (or from the } that ends a substitution) up to its
 * closing ` or its next ${, which opens a nesting level. */
static int lex_template(struct lexer *x, int head)
{
	size_t start = x->i++;
	while (x->i < x->end) {
		char c = x->s[x->i];
		if (c == '\\') {
			x->i += 2;
		} else if (c == '`') {
			x->i++;
			push_tok(x, head ? T_TPL : T_TTAIL, start, x->i);
			return 0;
		} else if (c == '$' && x->i + 1 < x->end && x->s[x->i + 1] == '{') {
			x->i += 2;
			if (x->depth == MAX_NEST)
				return lex_fail(x, start, "templates nest too deep");
			x->nest[x->depth++] = 1;
			push_tok(x, T_THEAD, start, x->i);
			return 0;
		} else {
			x->i++;
		}
	}
	return lex_fail(x, start, "a template literal is not closed");
}

/* A regex from its slash: classes may hold a slash. Without a closing slash
 * on its line the slash was a division after all. */
static void lex_regex(struct lexer *x)
{
	size_t start = x->i, i = x->i + 1;
	int cls = 0;
	for (; i < x->end && x->s[i] != '\n'; i++) {
		char c = x->s[i];
		if (c == '\\')
			i++;
		else if (c == '[')
			cls = 1;
		else if (c == ']')
			cls = 0;
		else if (c == '/' && !cls)
			break;
	}
	if (i >= x->end || x->s[i] != '/') {
		x->i++;
		push_tok(x, T_PUNCT, start, x->i);
		return;
	}
	for (i++; i < x->end && is_ident((unsigned char)x->s[i]); i++)
		;
	x->i = i;
	push_tok(x, T_REGEX, start, i);
}

/* The length of the line terminator at s[i] (\n, \r, U+2028, U+2029), or 0. */
static size_t line_end_at(const char *s, size_t i, size_t end)
{
	if (s[i] == '\n' || s[i] == '\r')
		return 1;
	if (i + 2 < end && (unsigned char)s[i] == 0xe2 && (unsigned char)s[i + 1] == 0x80 &&
	    ((unsigned char)s[i + 2] == 0xa8 || (unsigned char)s[i + 2] == 0xa9))
		return 3;
	return 0;
}

static int lex_comment(struct lexer *x)
{
	size_t start = x->i;
	if (x->s[x->i + 1] == '/') {
		while (x->i < x->end && !line_end_at(x->s, x->i, x->end))
			x->i++;
		return 0;
	}
	for (x->i += 2; x->i + 1 < x->end; x->i++)
		if (x->s[x->i] == '*' && x->s[x->i + 1] == '/') {
			x->i += 2;
			return 0;
		}
	return lex_fail(x, start, "a comment is not closed");
}

/* Words, numbers and punctuation. Braces track the nesting so that the }
 * closing a ${ resumes its template. */
static int lex_other(struct lexer *x)
{
	size_t start = x->i;
	char c = x->s[x->i];
	if (is_ident((unsigned char)c) || c == '#') {
		enum tt type = isdigit((unsigned char)c) ? T_NUM : T_NAME;
		for (x->i++; x->i < x->end && is_ident((unsigned char)x->s[x->i]); x->i++)
			;
		push_tok(x, type, start, x->i);
		return 0;
	}
	if (c == '.' && x->i + 1 < x->end && isdigit((unsigned char)x->s[x->i + 1])) {
		for (x->i++; x->i < x->end && is_ident((unsigned char)x->s[x->i]); x->i++)
			;
		push_tok(x, T_NUM, start, x->i);
		return 0;
	}
	if (c == '{') {
		if (x->depth == MAX_NEST)
			return lex_fail(x, start, "braces nest too deep");
		x->nest[x->depth++] = 0;
	} else if (c == '}' && x->depth) {
		if (x->nest[--x->depth])
			return lex_template(x, 0);
	}
	size_t n = 1;
	if ((c == '+' || c == '-') && x->i + 1 < x->end && x->s[x->i + 1] == c)
		n = 2;
	else if (c == '.' && x->i + 2 < x->end && !memcmp(x->s + x->i, "...", 3))
		n = 3;
	x->i += n;
	push_tok(x, T_PUNCT, start, x->i);
	return 0;
}

static int lex_js(struct lexer *x)
{
	if (x->i + 1 < x->end && x->s[x->i] == '#' && x->s[x->i + 1] == '!')
		while (x->i < x->end && x->s[x->i] != '\n')
			x->i++;
	while (x->i < x->end) {
		char c = x->s[x->i];
		int next = x->i + 1 < x->end ? x->s[x->i + 1] : 0;
		int rc = 0;
		if (isspace((unsigned char)c))
			x->i++;
		else if (c == '/' && (next == '/' || next == '*'))
			rc = lex_comment(x);
		else if (c == '\'' || c == '"')
			rc = lex_string(x);
		else if (c == '`')
			rc = lex_template(x, 1);
		else if (c == '/' && regex_allowed(x))
			lex_regex(x);
		else
			rc = lex_other(x);
		if (rc)
			return rc;
	}
	return 0;
}

/* A specifier: a string, or a template without substitutions. One written
 * with escapes is left alone rather than decoded. */
static int spec_tok(const struct lexer *x, size_t k)
{
	if (k >= x->n || (x->t[k].type != T_STR && x->t[k].type != T_TPL))
		return 0;
	return !memchr(x->s + x->t[k].start, '\\', x->t[k].end - x->t[k].start);
}

static void js_ref(struct file *f, const struct lexer *x, size_t k, enum how how)
{
	add_ref(f, how, x->t[k].start + 1, x->t[k].end - x->t[k].start - 2);
}

/* From the token after `import` or `export`: the bindings ({...}, * as x,
 * names), then `from` and the specifier. `import from from "x"` is valid. */
static void js_from(struct file *f, const struct lexer *x, size_t k)
{
	int braces = 0;
	for (; k < x->n; k++) {
		if (punct(x, k, "{"))
			braces++;
		else if (punct(x, k, "}") && braces)
			braces--;
		else if (braces && (x->t[k].type == T_NAME || x->t[k].type == T_STR ||
				    punct(x, k, ",")))
			continue;
		else if (braces)
			return;
		else if (tok_is(x, k, T_NAME, "from") && spec_tok(x, k + 1))
			return js_ref(f, x, k + 1, R_MODULE);
		else if (!(x->t[k].type == T_NAME || punct(x, k, ",") || punct(x, k, "*")))
			return;
	}
}

/* new URL("./x", import.meta.url) */
static void js_new_url(struct file *f, const struct lexer *x, size_t k)
{
	if (tok_is(x, k + 1, T_NAME, "URL") && punct(x, k + 2, "(") && spec_tok(x, k + 3) &&
	    punct(x, k + 4, ",") && tok_is(x, k + 5, T_NAME, "import") && punct(x, k + 6, ".") &&
	    tok_is(x, k + 7, T_NAME, "meta") && punct(x, k + 8, ".") &&
	    tok_is(x, k + 9, T_NAME, "url") && (punct(x, k + 10, ")") || punct(x, k + 10, ",")))
		js_ref(f, x, k + 3, R_URL);
}

static void js_import(struct file *f, const struct lexer *x, size_t k)
{
	if (punct(x, k + 1, "(")) {
		if (spec_tok(x, k + 2) && (punct(x, k + 3, ")") || punct(x, k + 3, ",")))
			js_ref(f, x, k + 2, R_MODULE);
	} else if (spec_tok(x, k + 1) && x->t[k + 1].type == T_STR) {
		js_ref(f, x, k + 1, R_MODULE);
	} else if ((k + 1 < x->n && x->t[k + 1].type == T_NAME) || punct(x, k + 1, "{") ||
		   punct(x, k + 1, "*")) {
		js_from(f, x, k + 1);
	}
}

/* Finds the specifiers in f's bytes from..to (a file, or a <script>). */
static int scan_js(struct file *f, size_t from, size_t to)
{
	struct lexer x = { .f = f, .s = f->data.p, .i = from, .end = to };
	int rc = lex_js(&x);
	for (size_t k = 0; !rc && k < x.n; k++) {
		if (x.t[k].type != T_NAME || (k > 0 && punct(&x, k - 1, ".")))
			continue; /* not a keyword but a property: a.import(), a?.new */
		if (tok_is(&x, k, T_NAME, "import"))
			js_import(f, &x, k);
		else if (tok_is(&x, k, T_NAME, "export") &&
			 (punct(&x, k + 1, "{") || punct(&x, k + 1, "*")))
			js_from(f, &x, k + 1);
		else if (tok_is(&x, k, T_NAME, "new"))
			js_new_url(f, &x, k);
	}
	free(x.t);
	return rc;
}

/* ---- reading CSS and HTML ------------------------------------------------- */

static int css_string_end(const struct file *f, size_t i, size_t to, size_t *end)
{
	char q = f->data.p[i];
	for (i++; i < to && f->data.p[i] != q && f->data.p[i] != '\n'; i++)
		if (f->data.p[i] == '\\')
			i++;
	if (i >= to || f->data.p[i] != q)
		return -1;
	*end = i + 1;
	return 0;
}

/* url( ... ) from just after its parenthesis: quoted or bare. */
static int css_url(struct file *f, size_t *i, size_t to)
{
	const char *s = f->data.p;
	size_t a = *i, b;
	while (a < to && isspace((unsigned char)s[a]))
		a++;
	if (a < to && (s[a] == '"' || s[a] == '\'')) {
		if (css_string_end(f, a, to, &b))
			return fail("%s:%d: a string is not closed", f->where, line_at(f, a));
		add_ref(f, R_URL, a + 1, b - a - 2);
		*i = b;
		return 0;
	}
	for (b = a; b < to && s[b] != ')' && !isspace((unsigned char)s[b]); b++)
		;
	if (b > a)
		add_ref(f, R_URL, a, b - a);
	*i = b;
	return 0;
}

static int css_word(const char *s, size_t i, size_t to, const char *w)
{
	size_t n = strlen(w);
	return i + n <= to && !strncasecmp(s + i, w, n) &&
		(i == 0 || !(is_ident((unsigned char)s[i - 1]) || s[i - 1] == '-'));
}

/* Finds url() and @import "x" in f's bytes from..to (a file, or a <style>). */
static int scan_css(struct file *f, size_t from, size_t to)
{
	const char *s = f->data.p;
	int at_import = 0;
	for (size_t i = from, end; i < to;) {
		if (s[i] == '/' && i + 1 < to && s[i + 1] == '*') {
			const char *close = find(s + i + 2, to - i - 2, "*/");
			if (!close)
				return fail("%s:%d: a comment is not closed", f->where, line_at(f, i));
			i = (size_t)(close - s) + 2;
		} else if (s[i] == '"' || s[i] == '\'') {
			if (css_string_end(f, i, to, &end))
				return fail("%s:%d: a string is not closed", f->where, line_at(f, i));
			if (at_import)
				add_ref(f, R_URL, i + 1, end - i - 2);
			at_import = 0;
			i = end;
		} else if (css_word(s, i, to, "url(")) {
			i += 4;
			if (css_url(f, &i, to))
				return -1;
			at_import = 0;
		} else if (css_word(s, i, to, "@import")) {
			at_import = 1;
			i += 7;
		} else {
			at_import = at_import && isspace((unsigned char)s[i]);
			i += s[i] == '\\' ? 2 : 1;
		}
	}
	return 0;
}

/* ---- compacting JS and CSS -------------------------------------------------- */

/* Comments and the spaces that indent and align are for people, and were
 * a quarter of our scripts' compressed bytes. Each run of them between two
 * tokens becomes its line ends, as written, or one space where it held
 * none, so tokens stay apart, every line keeps its number (for messages,
 * and for JS's automatic semicolons), and strings, templates and regexes
 * are copied as written. */
static void put_gap(struct buf *out, const char *s, size_t from, size_t to, int space)
{
	int ends = 0;
	for (size_t i = from, n; i < to; i += n ? n : 1)
		if ((n = line_end_at(s, i, to)) != 0) {
			buf_add(out, s + i, n);
			ends = 1;
		}
	if (!ends && space && out->len)
		buf_add(out, " ", 1);
}

/* The tokenizer guesses where a slash after ")" or "}" divides; when it
 * is a regex after all (if (x) /a  b/.test(s)), what lies between its
 * "tokens" is the regex's own text. Such a line is copied as written,
 * with any comment that starts on it; only a template starting after the
 * slash could carry the guess to later lines, and that is refused. */
static int unsure_lines(const struct file *f, const struct lexer *x, unsigned char *unsure)
{
	for (size_t k = 1, line = 0, at = 0; k < x->n; k++) {
		if (!punct(x, k, "/") || !(punct(x, k - 1, ")") || punct(x, k - 1, "}")))
			continue;
		for (; at < x->t[k].start; at++)
			line += x->s[at] == '\n';
		unsure[line] = 1;
		for (size_t m = k + 1; m < x->n && !memchr(x->s + x->t[k].end, '\n',
							   x->t[m].start - x->t[k].end); m++)
			if (x->t[m].type == T_TPL || x->t[m].type == T_THEAD)
				return fail("%s:%d: a '/' after ')' or '}' is taken for a division, and a "
					    "template follows it on its line; if it opens a regex, put the "
					    "regex in parentheses", f->where, line_at(f, x->t[k].start));
	}
	return 0;
}

static int compact_js(const struct file *f, struct buf *out)
{
	struct lexer x = { .f = f, .s = f->data.p, .end = f->data.len };
	size_t lines = 1, at = 0, line = 0;
	for (size_t i = 0; i < f->data.len; i++)
		lines += f->data.p[i] == '\n';
	unsigned char *unsure = memset(xrealloc(NULL, lines), 0, lines);
	int rc = lex_js(&x);
	if (!rc)
		rc = unsure_lines(f, &x, unsure);
	if (f->data.len > 1 && !memcmp(f->data.p, "#!", 2)) {
		while (at < f->data.len && f->data.p[at] != '\n')
			at++;
		buf_add(out, f->data.p, at); /* a hashbang is no comment */
	}
	for (size_t k = 0; !rc && k <= x.n; k++) {
		size_t to = k < x.n ? x.t[k].start : f->data.len;
		int verbatim = unsure[line];
		for (size_t i = at; i < to; i++)
			if (f->data.p[i] == '\n')
				verbatim |= unsure[++line];
		if (verbatim)
			buf_add(out, x.s + at, to - at);
		else
			put_gap(out, x.s, at, to, k < x.n && to > at);
		if (k < x.n)
			buf_add(out, x.s + x.t[k].start, x.t[k].end - x.t[k].start);
		at = k < x.n ? x.t[k].end : to;
		for (size_t i = to; i < at; i++) /* a template may span lines */
			line += f->data.p[i] == '\n';
	}
	free(unsure);
	free(x.t);
	return rc;
}

/* A CSS escape from its backslash: a hex one takes the one space after it. */
static size_t css_escape_end(const char *s, size_t i, size_t n)
{
	size_t j = i + 1;
	while (j < n && j < i + 7 && isxdigit((unsigned char)s[j]))
		j++;
	if (j == i + 1)
		return i + 2 <= n ? i + 2 : n;
	if (j + 1 < n && s[j] == '\r' && s[j + 1] == '\n')
		return j + 2;
	return j < n && isspace((unsigned char)s[j]) ? j + 1 : j;
}

/* In CSS a comment alone keeps two tokens apart (1px/ * * /2px), so a run
 * of comments without a space is kept as written; and a bare url(...)
 * may hold a slash and a star, so it is copied whole. */
static int compact_css(const struct file *f, struct buf *out)
{
	const char *s = f->data.p;
	size_t n = f->data.len, i = 0, end;
	while (i < n) {
		size_t from = i;
		int space = 0;
		for (;;) {
			if (i < n && isspace((unsigned char)s[i])) {
				space = 1;
				i++;
			} else if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
				const char *close = find(s + i + 2, n - i - 2, "*/");
				if (!close)
					return fail("%s:%d: a comment is not closed", f->where, line_at(f, i));
				i = (size_t)(close - s) + 2;
			} else {
				break;
			}
		}
		if (space)
			put_gap(out, s, from, i, i < n);
		else
			buf_add(out, s + from, i - from);
		if (i >= n)
			break;
		end = i + 1;
		if (s[i] == '"' || s[i] == '\'') {
			if (css_string_end(f, i, n, &end))
				return fail("%s:%d: a string is not closed", f->where, line_at(f, i));
		} else if (s[i] == '\\') {
			end = css_escape_end(s, i, n);
		} else if (css_word(s, i, n, "url(")) {
			size_t j = i + 4;
			while (j < n && isspace((unsigned char)s[j]))
				j++;
			if (j < n && s[j] != '"' && s[j] != '\'') {
				while (j < n && s[j] != ')')
					j++;
				end = j < n ? j + 1 : n;
			}
		}
		buf_add(out, s + i, end - i);
		i = end;
	}
	return 0;
}

/* Replaces f's bytes by their compact form, for JS and CSS. */
static int compact(struct file *f)
{
	int js = is_js(f->path);
	if (!js && strcmp(ext_of(f->path), ".css"))
		return 0;
	struct buf out = { 0 };
	buf_add(&out, "", 0);
	int rc = js ? compact_js(f, &out) : compact_css(f, &out);
	if (!rc) {
		buf_free(&f->data);
		f->data = out;
	} else {
		buf_free(&out);
	}
	return rc;
}

struct attr {
	size_t name, nlen, val, vlen;
	int has_val;
};

/* A start tag, with its attributes; for <script> and <style> the text up
 * to the end tag too. */
struct tag {
	size_t start, end, body, body_end, close_end;
	size_t name, nlen;
	struct attr a[MAX_ATTRS];
	int n;
};

static int tag_is(const char *s, const struct tag *t, const char *name)
{
	return t->nlen == strlen(name) && !strncasecmp(s + t->name, name, t->nlen);
}

static const struct attr *attr_of(const char *s, const struct tag *t, const char *name)
{
	for (int i = 0; i < t->n; i++)
		if (t->a[i].nlen == strlen(name) && !strncasecmp(s + t->a[i].name, name, t->a[i].nlen))
			return &t->a[i];
	return NULL;
}

/* Whether a space-separated attribute value holds `word`. */
static int attr_has(const char *s, const struct attr *a, const char *word)
{
	size_t n = strlen(word);
	for (size_t i = 0; a && i + n <= a->vlen; i++)
		if (!strncasecmp(s + a->val + i, word, n) &&
		    (i == 0 || isspace((unsigned char)s[a->val + i - 1])) &&
		    (i + n == a->vlen || isspace((unsigned char)s[a->val + i + n])))
			return 1;
	return 0;
}

static size_t skip_space(const char *s, size_t i, size_t len)
{
	while (i < len && isspace((unsigned char)s[i]))
		i++;
	return i;
}

static int html_attr(const char *s, size_t *i, size_t len, struct attr *a)
{
	size_t j = *i;
	a->name = j;
	while (j < len && !isspace((unsigned char)s[j]) && !strchr("/>=", s[j]))
		j++;
	a->nlen = j - a->name + (j == a->name); /* a stray '=' is a name */
	j = skip_space(s, j + (j == a->name), len);
	a->has_val = j < len && s[j] == '=';
	if (a->has_val) {
		j = skip_space(s, j + 1, len);
		char q = j < len && (s[j] == '"' || s[j] == '\'') ? s[j] : 0;
		a->val = j + (q != 0);
		for (j = a->val; j < len && (q ? s[j] != q : !isspace((unsigned char)s[j]) &&
					     s[j] != '>'); j++)
			;
		if (q && j >= len)
			return -1;
		a->vlen = j - a->val;
		j += q != 0;
	}
	*i = j;
	return 0;
}

/* The raw text of <script>/<style> (and <title>/<textarea>, where no tag
 * counts) ends only at its end tag. */
static int html_body(const char *s, size_t len, struct tag *t)
{
	t->body = t->body_end = t->close_end = t->end;
	if (!tag_is(s, t, "script") && !tag_is(s, t, "style") && !tag_is(s, t, "title") &&
	    !tag_is(s, t, "textarea"))
		return 0;
	for (size_t i = t->end; i + 2 + t->nlen <= len; i++)
		if (s[i] == '<' && s[i + 1] == '/' && !strncasecmp(s + i + 2, s + t->name, t->nlen)) {
			const char *gt = memchr(s + i, '>', len - i);
			if (!gt)
				return -1;
			t->body_end = i;
			t->close_end = (size_t)(gt - s) + 1;
			return 0;
		}
	return -1;
}

/* The next start tag from *pos, skipping text, comments, doctypes and end
 * tags. 1: a tag; 0: the end; -1: a broken tag (its offset in *pos). */
static int html_next(const char *s, size_t len, size_t *pos, struct tag *t)
{
	for (size_t i = *pos; i < len; i++) {
		if (s[i] != '<')
			continue;
		*pos = i;
		if (!strncmp(s + i, "<!--", 4)) {
			const char *close = find(s + i + 4, len - i - 4, "-->");
			if (!close)
				return -1;
			i = (size_t)(close - s) + 2;
			continue;
		}
		if (i + 1 >= len || !isalpha((unsigned char)s[i + 1]))
			continue;
		*t = (struct tag){ .start = i, .name = i + 1 };
		for (i++; i < len && !isspace((unsigned char)s[i]) && !strchr("/>", s[i]); i++)
			;
		t->nlen = i - t->name;
		for (i = skip_space(s, i, len); i < len && s[i] != '>'; i = skip_space(s, i, len)) {
			if (s[i] == '/')
				i++;
			else if (t->n == MAX_ATTRS || html_attr(s, &i, len, &t->a[t->n++]))
				return -1;
		}
		if (i >= len)
			return -1;
		t->end = i + 1;
		if (html_body(s, len, t))
			return -1;
		*pos = t->close_end;
		return 1;
	}
	*pos = len;
	return 0;
}

/* Whether a <script> holds JS (not JSON, an import map or a template). */
static int script_is_js(const char *s, const struct tag *t)
{
	const struct attr *type = attr_of(s, t, "type");
	if (!type || !type->vlen)
		return 1;
	return (type->vlen == 6 && !strncasecmp(s + type->val, "module", 6)) ||
		(type->vlen == 15 && !strncasecmp(s + type->val, "text/javascript", 15));
}

/* What a reference in an attribute must do: src and the <link>s that load
 * something must name a file; <a href> and other links need not. */
static enum how html_how(const char *s, const struct tag *t, const struct attr *a)
{
	static const char *const loads[] = { "stylesheet", "icon", "manifest",
		"modulepreload", "preload", "prefetch", "apple-touch-icon", "mask-icon" };
	if (a->nlen == 3)
		return R_RESOURCE;
	if (!tag_is(s, t, "link"))
		return R_LINK;
	for (size_t i = 0; i < sizeof(loads) / sizeof(loads[0]); i++)
		if (attr_has(s, attr_of(s, t, "rel"), loads[i]))
			return R_RESOURCE;
	return R_LINK;
}

static int html_inline(struct file *f, const struct tag *t)
{
	const char *s = f->data.p;
	const struct attr *href = attr_of(s, t, "href"), *src = attr_of(s, t, "src");
	struct ref *r;
	if (tag_is(s, t, "link") && href && attr_has(s, attr_of(s, t, "rel"), "stylesheet")) {
		r = add_ref(f, R_INLINE_CSS, href->val, href->vlen);
		r->start = t->start, r->end = t->end;
	} else if (tag_is(s, t, "script") && src && script_is_js(s, t)) {
		r = add_ref(f, R_INLINE_JS, src->val, src->vlen);
		r->start = t->start, r->end = t->close_end;
	} else {
		return fail("%s:%d: data-inline is for <link rel=\"stylesheet\" href> and "
			    "<script type=\"module\" src>", f->where, line_at(f, t->start));
	}
	return 0;
}

/* One tag's references, in the order of their bytes. */
static int html_tag(struct file *f, const struct tag *t, int may_inline)
{
	const char *s = f->data.p;
	if (may_inline && attr_of(s, t, "data-inline"))
		return html_inline(f, t);
	for (int i = 0; i < t->n; i++) {
		const struct attr *a = &t->a[i];
		if (a->has_val && ((a->nlen == 3 && !strncasecmp(s + a->name, "src", 3)) ||
				   (a->nlen == 4 && !strncasecmp(s + a->name, "href", 4))))
			add_ref(f, html_how(s, t, a), a->val, a->vlen);
	}
	if (tag_is(s, t, "style"))
		return scan_css(f, t->body, t->body_end);
	if (tag_is(s, t, "script") && !attr_of(s, t, "src") && script_is_js(s, t))
		return scan_js(f, t->body, t->body_end);
	return 0;
}

static int scan_html(struct file *f)
{
	struct tag t;
	size_t pos = 0;
	int rc;
	while ((rc = html_next(f->data.p, f->data.len, &pos, &t)) > 0)
		if (html_tag(f, &t, !strcmp(f->path, "index.html")))
			return -1;
	if (rc < 0)
		return fail("%s:%d: a tag, comment or <script> is not closed", f->where,
			    line_at(f, pos));
	return 0;
}

/* ---- resolving references ------------------------------------------------- */

static int has_scheme(const char *p, size_t n)
{
	size_t i = 0;
	if (!n || !isalpha((unsigned char)p[0]))
		return 0;
	while (i < n && (isalnum((unsigned char)p[i]) || strchr("+-.", p[i])))
		i++;
	return i < n && p[i] == ':';
}

/* Joins `path` (n bytes) to the folder `dir` (ending in '/' or empty) and
 * removes "." and ".." segments. -1 when it leaves SRC. */
static int join_path(const char *dir, const char *path, size_t n, struct buf *out)
{
	struct buf all = { 0 };
	buf_str(&all, dir);
	buf_add(&all, path, n);
	out->len = 0;
	buf_add(out, "", 0);
	int rc = 0;
	for (char *seg = all.p, *next; seg && !rc; seg = next) {
		next = strchr(seg, '/');
		size_t len = next ? (size_t)(next - seg) : strlen(seg);
		next = next ? next + 1 : NULL;
		if ((len == 0 && next) || (len == 1 && seg[0] == '.'))
			continue;
		if (len == 2 && !strncmp(seg, "..", 2)) {
			const char *slash = out->len ? last_slash(out->p, out->len - 1) : NULL;
			rc = out->len ? 0 : -1;
			out->len = slash ? (size_t)(slash - out->p) + 1 : 0;
			out->p[out->len] = '\0';
			continue;
		}
		buf_add(out, seg, len);
		if (next)
			buf_add(out, "/", 1);
	}
	buf_free(&all);
	return rc;
}

/* Where the reference leads inside SRC, in `path`; 0 when it leads outside
 * (another site, a bare module name, another folder of the server). */
static int ref_path(const struct site *s, const struct file *f, struct ref *r, struct buf *path)
{
	const char *p = f->data.p + r->spec;
	size_t n = 0;
	while (n < r->len && p[n] != '?' && p[n] != '#')
		n++;
	r->tail = n;
	if (!n || has_scheme(p, n) || (n > 1 && p[0] == '/' && p[1] == '/'))
		return 0;
	if (p[0] == '/') {
		size_t b = strlen(s->base);
		if (n < b || strncmp(p, s->base, b))
			return 0;
		return join_path("", p + b, n - b, path) == 0;
	}
	if (r->how == R_MODULE && strncmp(p, "./", 2) && strncmp(p, "../", 3))
		return 0;
	const char *slash = strrchr(f->path, '/');
	char *dir = strndup(f->path, slash ? (size_t)(slash - f->path) + 1 : 0);
	int in = join_path(dir, p, n, path) == 0;
	free(dir);
	return in;
}

static int resolve(struct site *s, struct file *f, struct ref *r)
{
	struct buf path = { 0 };
	int in = ref_path(s, f, r, &path), rc = 0;
	const char *p = f->data.p + r->spec;
	r->target = in ? find_file(s, path.p) : -1;
	if (in && r->target < 0 && r->how != R_LINK)
		rc = fail("%s:%d: \"%.*s\" names no file of %s", f->where, line_at(f, r->spec),
			  (int)r->len, p, s->src);
	else if (r->how >= R_INLINE_CSS && r->target < 0)
		rc = fail("%s:%d: data-inline: \"%.*s\" is not a file of %s", f->where,
			  line_at(f, r->spec), (int)r->len, p, s->src);
	else if ((r->how == R_INLINE_CSS && strcmp(ext_of(path.p), ".css")) ||
		 (r->how == R_INLINE_JS && !is_js(path.p)))
		rc = fail("%s:%d: data-inline: \"%.*s\" is not a %s file", f->where,
			  line_at(f, r->spec), (int)r->len, p, r->how == R_INLINE_CSS ? "CSS" : "JS");
	const char *slash = last_slash(p, r->tail);
	r->keep = slash ? (size_t)(slash - p) + 1 : 0;
	buf_free(&path);
	return rc;
}

static int scan_file(struct site *s, struct file *f)
{
	const char *ext = ext_of(f->path);
	int rc = 0;
	if (is_js(f->path))
		rc = scan_js(f, 0, f->data.len);
	else if (!strcmp(ext, ".css"))
		rc = scan_css(f, 0, f->data.len);
	else if (!strcmp(ext, ".html"))
		rc = scan_html(f);
	for (size_t i = 0; !rc && i < f->nrefs; i++)
		rc = resolve(s, f, &f->refs[i]);
	return rc;
}

/* ---- building: each file after those it names ----------------------------- */

static int render(const struct site *s, const struct file *f, int abs, struct buf *out);

static int render_inline(const struct site *s, const struct file *f, const struct ref *r,
			 struct buf *out)
{
	const struct file *t = &s->files[r->target];
	const char *open = r->how == R_INLINE_CSS ? "<style>" : "<script type=\"module\">";
	const char *close = r->how == R_INLINE_CSS ? "</style" : "</script";
	size_t from = out->len;
	buf_str(out, open);
	if (render(s, t, 1, out))
		return -1;
	for (size_t i = from + strlen(open); i + strlen(close) <= out->len; i++)
		if (!strncasecmp(out->p + i, close, strlen(close)) ||
		    (r->how == R_INLINE_JS && !strncmp(out->p + i, "<!--", 4)))
			return fail("%s:%d: %s holds \"%s\" or \"<!--\", which would end or "
				    "break the inline block", f->where, line_at(f, r->start), t->path,
				    close);
	buf_str(out, close);
	buf_str(out, ">");
	return 0;
}

static void render_ref(const struct site *s, const struct file *f, const struct ref *r,
		       int abs, struct buf *out)
{
	const char *p = f->data.p + r->spec;
	const char *name = s->files[r->target].out;
	if (abs) {
		buf_str(out, s->base);
		buf_str(out, name);
	} else {
		const char *slash = strrchr(name, '/');
		buf_add(out, p, r->keep);
		buf_str(out, slash ? slash + 1 : name);
	}
	buf_add(out, p + r->tail, r->len - r->tail);
}

/* f's bytes with each reference replaced; `abs` makes every one absolute
 * (for HTML, and for what is inlined into it, which has no URL of its own). */
static int render(const struct site *s, const struct file *f, int abs, struct buf *out)
{
	size_t at = 0;
	abs = abs || !strcmp(ext_of(f->path), ".html");
	for (size_t i = 0; i < f->nrefs; i++) {
		const struct ref *r = &f->refs[i];
		buf_add(out, f->data.p + at, r->start - at);
		at = r->end;
		if (r->target < 0)
			buf_add(out, f->data.p + r->start, r->end - r->start);
		else if (r->how >= R_INLINE_CSS && render_inline(s, f, r, out))
			return -1;
		else if (r->how < R_INLINE_CSS)
			render_ref(s, f, r, abs, out);
	}
	buf_add(out, f->data.p + at, f->data.len - at);
	return 0;
}

static void name_file(struct file *f)
{
	unsigned char digest[crypto_hash_sha256_BYTES];
	char hex[2 * sizeof(digest) + 1];
	crypto_hash_sha256(digest, (const unsigned char *)f->final.p, f->final.len);
	sodium_bin2hex(hex, sizeof(hex), digest, sizeof(digest));
	hex[HASH_HEX] = '\0';
	const char *ext = ext_of(f->path);
	struct buf out = { 0 };
	buf_add(&out, f->path, (size_t)(ext - f->path));
	buf_str(&out, ".");
	buf_str(&out, hex);
	buf_str(&out, ext);
	free(f->out);
	f->out = out.p;
}

static int cycle(const struct site *s, int i)
{
	struct buf msg = { 0 };
	size_t from = 0;
	while (s->stack[from] != i)
		from++;
	for (size_t k = from; k < s->depth; k++) {
		buf_str(&msg, s->files[s->stack[k]].path);
		buf_str(&msg, " -> ");
	}
	buf_str(&msg, s->files[i].path);
	fail("%s: a cycle of references (a file is named after those it names): %s",
	     s->src, msg.p);
	buf_free(&msg);
	return -1;
}

/* Builds file i after every file its name depends on: those it names,
 * unless they keep their names, and those it inlines. */
static int build(struct site *s, int i)
{
	struct file *f = &s->files[i];
	if (f->state == 2)
		return 0;
	if (f->state == 1)
		return cycle(s, i);
	f->state = 1;
	s->stack[s->depth++] = i;
	for (size_t k = 0; k < f->nrefs; k++) {
		const struct ref *r = &f->refs[k];
		if (r->target >= 0 && (r->how >= R_INLINE_CSS || !keeps_name(s->files[r->target].path)))
			if (build(s, r->target))
				return -1;
	}
	if (render(s, f, 0, &f->final))
		return -1;
	if (!keeps_name(f->path))
		name_file(f);
	s->depth--;
	f->state = 2;
	return 0;
}

/* ---- reading SRC ----------------------------------------------------------- */

static int read_all(const char *path, struct buf *b)
{
	FILE *in = fopen(path, "rb");
	if (!in)
		return fail("%s: %s", path, strerror(errno));
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), in)) > 0)
		buf_add(b, chunk, n);
	buf_add(b, "", 0);
	int rc = ferror(in) ? fail("%s: %s", path, strerror(errno)) : 0;
	fclose(in);
	return rc;
}

static void add_file(struct site *s, const char *rel)
{
	if (s->nfiles == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->files = xrealloc(s->files, s->cap * sizeof(*s->files));
	}
	s->files[s->nfiles++] = (struct file){ .path = strdup(rel), .out = strdup(rel),
		.where = xstrcat3(s->src, "/", rel) };
}

/* Every file under SRC/rel (rel: "" or ending in '/'), dotfiles skipped. */
static int walk(struct site *s, const char *rel)
{
	char *dir = xstrcat3(s->src, "/", rel);
	DIR *d = opendir(dir);
	int rc = d ? 0 : fail("%s: %s", dir, strerror(errno));
	for (struct dirent *e; !rc && (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char *path = xstrcat3(dir, "/", e->d_name);
		char *sub = xstrcat3(rel, e->d_name, "");
		struct stat st;
		if (stat(path, &st))
			rc = fail("%s: %s", path, strerror(errno));
		else if (S_ISDIR(st.st_mode))
			free(sub), sub = xstrcat3(rel, e->d_name, "/"), rc = walk(s, sub);
		else if (S_ISREG(st.st_mode))
			add_file(s, sub);
		free(path);
		free(sub);
	}
	if (d)
		closedir(d);
	free(dir);
	return rc;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct file *)a)->path, ((const struct file *)b)->path);
}

/* Names the tool writes itself, and modules/, which the modules' runs own. */
static int reserved(const char *path)
{
	return !strcmp(path, "manifest.json") || !strcmp(path, "index.html.csp") ||
		!strncmp(path, "modules/", 8);
}

static int read_src(struct site *s)
{
	if (walk(s, ""))
		return -1;
	qsort(s->files, s->nfiles, sizeof(*s->files), by_path);
	for (size_t i = 0; i < s->nfiles; i++) {
		struct file *f = &s->files[i];
		if (reserved(f->path))
			return fail("%s: this name is the tool's own in the output", f->where);
		if (read_all(f->where, &f->data) || compact(f))
			return -1;
	}
	return 0;
}

/* ---- writing DIR ----------------------------------------------------------- */

static int mkdirs(const char *dir, const char *rel)
{
	char *path = xstrcat3(dir, "/", rel);
	int rc = 0;
	for (char *p = path + strlen(dir) + 1; !rc && (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			rc = fail("%s: %s", path, strerror(errno));
		*p = '/';
	}
	free(path);
	return rc;
}

static int same_bytes(const char *path, const void *p, size_t n)
{
	struct buf old = { 0 };
	FILE *in = fopen(path, "rb");
	if (!in)
		return 0;
	char chunk[65536];
	size_t k;
	while ((k = fread(chunk, 1, sizeof(chunk), in)) > 0 && old.len <= n)
		buf_add(&old, chunk, k);
	fclose(in);
	int same = old.len == n && (!n || !memcmp(old.p, p, n));
	buf_free(&old);
	return same;
}

/* Writes DIR/rel, through a temporary file and a rename, unless it already
 * holds these bytes; either way it is this run's. */
static int put(struct site *s, const char *rel, const void *p, size_t n)
{
	char *path = xstrcat3(s->dir, "/", rel), *tmp = xstrcat3(path, ".tmp", "");
	int rc = mkdirs(s->dir, rel);
	if (!rc && !same_bytes(path, p, n)) {
		FILE *out = fopen(tmp, "wb");
		int bad = !out || fwrite(p, 1, n, out) != n;
		if ((out && fclose(out)) || bad)
			rc = fail("%s: %s", tmp, strerror(errno));
		else if (rename(tmp, path))
			rc = fail("%s: %s", path, strerror(errno));
		if (rc && out)
			remove(tmp);
	}
	free(path);
	free(tmp);
	if (s->nmade == s->madecap) {
		s->madecap = s->madecap ? s->madecap * 2 : 64;
		s->made = xrealloc(s->made, s->madecap * sizeof(*s->made));
	}
	s->made[s->nmade++] = strdup(rel);
	return rc;
}

static int put_br(struct site *s, const char *rel, const void *p, size_t n)
{
	size_t len = BrotliEncoderMaxCompressedSize(n);
	if (!len || !n)
		return 0;
	uint8_t *out = xrealloc(NULL, len);
	int rc = 0;
	if (!BrotliEncoderCompress(BROTLI_MAX_QUALITY, BROTLI_MAX_WINDOW_BITS, BROTLI_MODE_TEXT,
				   n, p, &len, out))
		rc = fail("%s: brotli failed", rel);
	else if (len < n)
		rc = put(s, rel, out, len);
	free(out);
	return rc;
}

static int put_gz(struct site *s, const char *rel, const void *p, size_t n)
{
	size_t len = libdeflate_gzip_compress_bound(s->gz, n);
	void *out = xrealloc(NULL, len);
	len = libdeflate_gzip_compress(s->gz, p, n, out, len);
	int rc = len && len < n ? put(s, rel, out, len) : 0;
	free(out);
	return rc;
}

/* A file, and its .br and .gz when it is text and they are smaller. */
static int put_all(struct site *s, const char *rel, const void *p, size_t n)
{
	if (put(s, rel, p, n))
		return -1;
	if (!is_text(rel))
		return 0;
	char *br = xstrcat3(rel, ".br", ""), *gz = xstrcat3(rel, ".gz", "");
	int rc = put_br(s, br, p, n) || put_gz(s, gz, p, n) ? -1 : 0;
	free(br);
	free(gz);
	return rc;
}

static void json_string(struct buf *b, const char *s)
{
	buf_str(b, "\"");
	for (; *s; s++) {
		char esc[8];
		if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", (unsigned char)*s);
			buf_str(b, esc);
		} else {
			buf_add(b, s, 1);
		}
	}
	buf_str(b, "\"");
}

static int put_manifest(struct site *s)
{
	struct buf b = { 0 };
	buf_str(&b, "{");
	for (size_t i = 0; i < s->nfiles; i++) {
		buf_str(&b, i ? ",\n" : "\n");
		json_string(&b, s->files[i].path);
		buf_str(&b, ": ");
		json_string(&b, s->files[i].out);
	}
	buf_str(&b, "\n}\n");
	int rc = put_all(s, "manifest.json", b.p, b.len);
	buf_free(&b);
	return rc;
}

/* Adds " 'sha256-...'" for the block's text unless the list holds it. */
static void csp_hash(struct buf *list, const char *p, size_t n)
{
	unsigned char digest[crypto_hash_sha256_BYTES];
	char b64[sodium_base64_ENCODED_LEN(sizeof(digest), sodium_base64_VARIANT_ORIGINAL)];
	crypto_hash_sha256(digest, (const unsigned char *)p, n);
	sodium_bin2base64(b64, sizeof(b64), digest, sizeof(digest), sodium_base64_VARIANT_ORIGINAL);
	char *src = xstrcat3(" 'sha256-", b64, "'");
	if (!list->p || !strstr(list->p, src))
		buf_str(list, src);
	free(src);
}

/* index.html.csp: one line (no newline) with the sources the page's inline
 * <script> and <style> blocks need, by hash of their exact text. */
static int put_csp(struct site *s, const struct file *index)
{
	struct buf scripts = { 0 }, styles = { 0 }, line = { 0 };
	const char *p = index->final.p;
	struct tag t;
	size_t pos = 0;
	while (html_next(p, index->final.len, &pos, &t) > 0) {
		if (tag_is(p, &t, "script") && !attr_of(p, &t, "src"))
			csp_hash(&scripts, p + t.body, t.body_end - t.body);
		else if (tag_is(p, &t, "style"))
			csp_hash(&styles, p + t.body, t.body_end - t.body);
	}
	buf_str(&line, "script-src 'self'");
	buf_str(&line, scripts.p ? scripts.p : "");
	buf_str(&line, "; style-src 'self'");
	buf_str(&line, styles.p ? styles.p : "");
	int rc = put(s, "index.html.csp", line.p, line.len);
	buf_free(&scripts);
	buf_free(&styles);
	buf_free(&line);
	return rc;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Removes what this run did not write under DIR/rel, and folders left empty. */
static int prune(struct site *s, const char *rel)
{
	char *dir = xstrcat3(s->dir, "/", rel);
	DIR *d = opendir(dir);
	int rc = d ? 0 : fail("%s: %s", dir, strerror(errno));
	for (struct dirent *e; !rc && (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    (!*rel && !strcmp(e->d_name, "modules")))
			continue;
		char *sub = xstrcat3(rel, e->d_name, ""), *path = xstrcat3(dir, "/", e->d_name);
		char *key = sub;
		struct stat st;
		if (lstat(path, &st))
			rc = fail("%s: %s", path, strerror(errno));
		else if (S_ISDIR(st.st_mode)) {
			free(sub), sub = xstrcat3(rel, e->d_name, "/");
			rc = prune(s, sub);
			rmdir(path); /* fails, rightly, when something is left in it */
		} else if (!bsearch(&key, s->made, s->nmade, sizeof(*s->made), by_string) &&
			   unlink(path))
			rc = fail("%s: %s", path, strerror(errno));
		free(sub);
		free(path);
	}
	if (d)
		closedir(d);
	free(dir);
	return rc;
}

static int write_out(struct site *s)
{
	int index = find_file(s, "index.html");
	for (size_t i = 0; i < s->nfiles; i++)
		if (put_all(s, s->files[i].out, s->files[i].final.p, s->files[i].final.len))
			return -1;
	if (put_manifest(s) || (index >= 0 && put_csp(s, &s->files[index])))
		return -1;
	qsort(s->made, s->nmade, sizeof(*s->made), by_string);
	return prune(s, "");
}

/* ---- the command ------------------------------------------------------------- */

/* Whether DIR looks like ours: empty, or holding our manifest.json (or only
 * modules/, which the modules' runs fill first). */
static int ours(const char *dir)
{
	DIR *d = opendir(dir);
	int empty = 1;
	for (struct dirent *e; d && (e = readdir(d));)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "modules"))
			empty = 0;
	if (d)
		closedir(d);
	char *manifest = xstrcat3(dir, "/manifest.json", "");
	int made = !access(manifest, F_OK);
	free(manifest);
	return empty || made;
}

/* DIR is emptied of what the run did not write, so it must neither hold
 * SRC nor lie inside it, and must be ours. */
static int check_dir(const struct site *s)
{
	char src[PATH_MAX], dir[PATH_MAX];
	if (!realpath(s->src, src))
		return fail("%s: %s", s->src, strerror(errno));
	int created = !mkdir(s->dir, 0755);
	if (!created && errno != EEXIST)
		return fail("%s: %s", s->dir, strerror(errno));
	if (!realpath(s->dir, dir))
		return fail("%s: %s", s->dir, strerror(errno));
	size_t n = strlen(dir), m = strlen(src);
	int rc = 0;
	if (!strncmp(src, dir, n) && (src[n] == '/' || !src[n] || n == 1))
		rc = fail("--out %s holds %s, and it would be emptied", s->dir, s->src);
	else if (!strncmp(src, dir, m) && dir[m] == '/')
		rc = fail("--out %s lies inside %s, which it would be read from", s->dir, s->src);
	else if (!ours(dir))
		rc = fail("--out %s holds files but no manifest.json: not a folder hl-assets "
			  "made, so it is left alone", s->dir);
	if (rc && created)
		rmdir(dir);
	return rc;
}

static void site_free(struct site *s)
{
	for (size_t i = 0; i < s->nfiles; i++) {
		free(s->files[i].path);
		free(s->files[i].out);
		free(s->files[i].where);
		buf_free(&s->files[i].data);
		buf_free(&s->files[i].final);
		free(s->files[i].refs);
	}
	for (size_t i = 0; i < s->nmade; i++)
		free(s->made[i]);
	free(s->files);
	free(s->made);
	free(s->stack);
	libdeflate_free_compressor(s->gz);
}

static int usage(void)
{
	fputs("usage: hl-assets --out DIR [--base /PATH/] SRC\n"
	      "  builds the web folder DIR from SRC: hashed names, rewritten references,\n"
	      "  inlined parts of index.html, .br/.gz copies, manifest.json, index.html.csp;\n"
	      "  --base: the URL DIR is served at (default /, a module's /modules/NAME/)\n",
	      stderr);
	return 2;
}

static int run(struct site *s)
{
	if (sodium_init() < 0 || !(s->gz = libdeflate_alloc_compressor(12)))
		return fail("cannot set up libsodium or libdeflate");
	if (check_dir(s) || read_src(s))
		return -1;
	s->stack = xrealloc(NULL, (s->nfiles + 1) * sizeof(*s->stack));
	for (size_t i = 0; i < s->nfiles; i++)
		if (scan_file(s, &s->files[i]))
			return -1;
	for (size_t i = 0; i < s->nfiles; i++)
		if (build(s, (int)i))
			return -1;
	return write_out(s);
}

int main(int argc, char **argv)
{
	struct site s = { .base = "/" };
	char *src = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--out") && i + 1 < argc)
			s.dir = argv[++i];
		else if (!strcmp(argv[i], "--base") && i + 1 < argc)
			s.base = argv[++i];
		else if (argv[i][0] == '-' || src)
			return usage();
		else
			src = argv[i];
	}
	for (size_t n = src ? strlen(src) : 0; n > 1 && src[n - 1] == '/'; n--)
		src[n - 1] = '\0'; /* "webui/" names files as "webui/x.js" too */
	size_t b = strlen(s.base);
	if (!s.dir || !src || s.base[0] != '/' || s.base[b - 1] != '/')
		return usage();
	s.src = src;
	int rc = run(&s);
	site_free(&s);
	return rc ? 1 : 0;
}

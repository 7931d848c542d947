/* SPDX-License-Identifier: MIT */
/*
 * request.c: the public request API (hl_param, hl_query, hl_body_*,
 * hl_reply_*, hl_read, hl_write_begin ...) and the request's lifecycle
 * (request.h).
 */
#include "request/request.h"
#include "auth/audit.h"
#include "db/db.h"
#include "http/live.h"
#include "lib/conf.h"
#include "lib/log.h"
#include "lib/utf8.h"
#include "server.h"

#include <civetweb.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void request_init(struct hl_req *r, struct server *srv)
{
	memset(r, 0, sizeof(*r));
	r->srv = srv;
}

void request_release(struct hl_req *r)
{
	arena_release(&r->arena);
	buf_release(&r->body);
	buf_release(&r->out);
	buf_release(&r->packed);
	buf_release(&r->headers);
	if (r->nested) {
		request_release(r->nested);
		free(r->nested);
		r->nested = NULL;
	}
}

void request_reset_answer(struct hl_req *r)
{
	buf_reset(&r->out);
	buf_reserve(&r->out, HEAD_ROOM);
	r->out.len = HEAD_ROOM;
	r->status = 0;
	r->content_type = NULL;
	r->cache_control = NULL;
	r->csp = NULL;
	r->encoded = 0;
	r->replied = 0;
}

void request_begin(struct hl_req *r, struct mg_connection *conn, const char *method,
		   const char *path, size_t path_len, const char *query)
{
	r->conn = conn;
	r->method = method;
	r->path = path;
	r->path_len = path_len;
	r->query_string = query;
	memset(&r->match, 0, sizeof(r->match));
	memset(r->params, 0, sizeof(r->params));
	r->query = NULL;
	r->nquery = 0;
	buf_reset(&r->body);
	r->body_read = 0;
	r->large_body = 0;
	r->sent = 0;
	r->cut = 0;
	r->has_json = 0;
	memset(&r->who, 0, sizeof(r->who));
	r->location_id = 0;
	r->zone[0] = 0;
	r->country[0] = 0;
	r->reader = r->writer = NULL;
	r->no_reader = 0;
	r->cache_entry = NULL;
	r->plain_len = 0;
	r->streamed = 0;
	r->stream_sent = 0;
	r->asked_user = 0;
	r->uncached = 0;
	memset(&r->rights, 0, sizeof(r->rights));
	r->statements = 0;
	buf_reset(&r->headers);
	request_reset_answer(r);
}

void request_end(struct hl_req *r)
{
	arena_reset(&r->arena);
	/* A big answer or body should not pin its memory to the thread. */
	if (r->out.cap > REQUEST_BUFFER_KEPT)
		buf_release(&r->out);
	if (r->packed.cap > REQUEST_BUFFER_KEPT)
		buf_release(&r->packed);
	if (r->body.cap > REQUEST_BUFFER_KEPT)
		buf_release(&r->body);
}

void request_add_header(struct hl_req *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&r->headers, fmt, ap);
	va_end(ap);
	buf_append(&r->headers, "\r\n", 2);
}

/* ---- memory ----------------------------------------------------------- */

HL_API void *hl_alloc(struct hl_req *r, size_t n)
{
	return arena_alloc(&r->arena, n);
}

HL_API char *hl_strndup(struct hl_req *r, const char *s, size_t n)
{
	return arena_strndup(&r->arena, s, n);
}

HL_API const char *hl_html_text(struct hl_req *r, const char *s)
{
	size_t n = 0;
	for (const char *c = s ? s : ""; *c; c++)
		n += strchr("&<>\"'", *c) ? 6 : 1;
	char *out = arena_alloc(&r->arena, n + 1), *o = out;
	for (const char *c = s ? s : ""; *c; c++) {
		const char *e = *c == '&' ? "&amp;" : *c == '<' ? "&lt;" : *c == '>' ? "&gt;"
			: *c == '"' ? "&quot;" : *c == '\'' ? "&#39;" : NULL;
		if (e)
			o = stpcpy(o, e);
		else
			*o++ = *c;
	}
	*o = '\0';
	return out;
}

HL_API char *hl_sprintf(struct hl_req *r, const char *fmt, ...)
{
	va_list ap;
	char small[256];
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	char *out = arena_alloc(&r->arena, (size_t)n + 1);
	if ((size_t)n < sizeof(small)) {
		memcpy(out, small, (size_t)n + 1);
	} else {
		va_start(ap, fmt);
		vsnprintf(out, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	return out;
}

/* ---- what was asked --------------------------------------------------- */

static int hexdigit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

char *request_decode(struct hl_req *r, const char *s, size_t n, int plus)
{
	char *out = arena_alloc(&r->arena, n + 1), *o = out;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '%') {
			int hi = i + 1 < n ? hexdigit(s[i + 1]) : -1;
			int lo = i + 2 < n ? hexdigit(s[i + 2]) : -1;
			if (hi < 0 || lo < 0)
				return NULL;
			c = (char)(hi * 16 + lo);
			i += 2;
			if (!c)
				return NULL;
		} else if (c == '+' && plus) {
			c = ' ';
		}
		*o++ = c;
	}
	*o = '\0';
	/* Handlers store and compare what they are given as text. */
	return utf8_check(out, (size_t)(o - out)) == (size_t)(o - out) ? out : NULL;
}

HL_API const char *hl_method(const struct hl_req *r)
{
	return r->method;
}

HL_API const char *hl_path(const struct hl_req *r)
{
	return r->path;
}

HL_API const char *hl_param(struct hl_req *r, const char *name)
{
	const struct route_entry *e = r->match.entry;
	for (int i = 0; e && i < e->nparams; i++) {
		if (strcmp(e->param_names[i], name))
			continue;
		if (!r->params[i])
			r->params[i] = request_decode(r, r->match.value[i], r->match.value_len[i], 0);
		return r->params[i];
	}
	return NULL;
}

int request_parse_query(struct hl_req *r)
{
	int bad = 0;
	r->nquery = 0;
	const char *q = r->query_string;
	if (!q || !*q)
		return 0;
	int cap = 1;
	for (const char *p = q; *p; p++)
		cap += *p == '&';
	r->query = arena_alloc(&r->arena, sizeof(*r->query) * (size_t)cap);
	while (*q) {
		const char *amp = strchr(q, '&');
		size_t len = amp ? (size_t)(amp - q) : strlen(q);
		const char *eq = memchr(q, '=', len);
		size_t nlen = eq ? (size_t)(eq - q) : len;
		char *name = len ? request_decode(r, q, nlen, 1) : NULL;
		char *value = eq ? request_decode(r, eq + 1, len - nlen - 1, 1) : (char *)"";
		if (len && (!name || !value))
			bad = 1;
		else if (name && *name) {
			r->query[r->nquery].name = name;
			r->query[r->nquery].value = value;
			r->nquery++;
		}
		q += len + (amp ? 1 : 0);
	}
	return bad ? HL_EINVAL : 0;
}

HL_API const char *hl_query(struct hl_req *r, const char *name)
{
	for (int i = 0; i < r->nquery; i++)
		if (!strcmp(r->query[i].name, name))
			return r->query[i].value;
	return NULL;
}

HL_API int hl_query_all(struct hl_req *r, const char *name, const char ***values)
{
	const char **out = arena_alloc(&r->arena, sizeof(char *) * (size_t)(r->nquery + 1));
	int n = 0;
	for (int i = 0; i < r->nquery; i++)
		if (!strcmp(r->query[i].name, name))
			out[n++] = r->query[i].value;
	out[n] = NULL;
	*values = out;
	return n;
}

HL_API const char *hl_header(const struct hl_req *r, const char *name)
{
	for (const char *const *h = r->headers_set; h && *h; h += 2)
		if (!strcasecmp(*h, name))
			return h[1];
	return mg_get_header(r->conn, name);
}

/* Integers in paths and queries follow the settings' rule (conf_int):
 * plain decimal, no spaces, no '+'. */
static int parse_int64(const char *s, int64_t min, int64_t max, int64_t *out)
{
	long long v;
	if (conf_int(s, min, max, &v))
		return HL_EINVAL;
	*out = v;
	return 0;
}

HL_API int hl_param_id(struct hl_req *r, const char *name, int64_t *out)
{
	const char *v = hl_param(r, name);
	if (!v || parse_int64(v, 1, INT64_MAX, out)) {
		hl_reply_error(r, 404, "not_found", "no such %s", name);
		return HL_EINVAL;
	}
	return 0;
}

HL_API int hl_query_int(struct hl_req *r, const char *name, int64_t def, int64_t min,
			int64_t max, int64_t *out)
{
	const char *v = hl_query(r, name);
	*out = def;
	if (!v)
		return 0;
	if (parse_int64(v, min, max, out)) {
		hl_reply_error(r, 400, "bad_request", "%s must be an integer from %lld to %lld",
			       name, (long long)min, (long long)max);
		return HL_EINVAL;
	}
	return 0;
}

HL_API int hl_query_user(struct hl_req *r, const char *name, int64_t *out)
{
	const char *v = hl_query(r, name);
	if (v && !strcmp(v, "me")) {
		*out = hl_user_id(r);
		return 0;
	}
	*out = 0;
	if (!v)
		return 0;
	if (parse_int64(v, 1, INT64_MAX, out)) {
		hl_reply_error(r, 400, "bad_request", "%s must be a user's id or me", name);
		return HL_EINVAL;
	}
	return 0;
}

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10
	     : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* More members than any list's sort key and id need. */
#define KEYSET_MAX 8

/* Whether the cursor's member at `tok` is what `kind` of hl_query_keyset
 * asks for. Booleans, arrays and objects are never a sort key. */
static int member_fits(struct json_doc *d, int tok, char kind)
{
	enum hl_json_type t = json_type(d, tok);
	int64_t id;
	switch (kind) {
	case 'i':
		return !json_int(d, tok, &id) && id > 0;
	case 'n':
		return t == HL_JSON_NULL || !json_int(d, tok, &id);
	case 's':
		return t == HL_JSON_STRING || t == HL_JSON_NULL;
	default:
		return t == HL_JSON_NUMBER || t == HL_JSON_STRING || t == HL_JSON_NULL;
	}
}

/* Whether text[0..n) is a JSON array the core reads, of scalars shaped as
 * `shape` says (any 1..KEYSET_MAX of them when NULL), as the core writes
 * it: '[' first, no space before. SQLite's
 * json_extract raises an error on malformed JSON, which would fail the
 * list's statement: only what passes here reaches it. */
static int keyset_fits(struct hl_req *r, const char *text, size_t n, const char *shape)
{
	struct json_doc d;
	size_t err_at;
	int want = shape ? (int)strlen(shape) : 0;
	if (strlen(text) != n || text[0] != '[' || json_parse(&d, &r->arena, text, n, KEYSET_MAX + 1, &err_at) ||
	    json_type(&d, 0) != HL_JSON_ARRAY)
		return 0;
	int count = json_count(&d, 0);
	if (count < 1 || count > KEYSET_MAX || (want && count != want))
		return 0;
	for (int i = 0; i < count; i++)
		if (!member_fits(&d, json_index(&d, 0, i), shape ? shape[i] : '*'))
			return 0;
	return 1;
}

HL_API int hl_query_keyset(struct hl_req *r, const char *name, const char *shape,
			   const char **out)
{
	const char *hex = hl_query(r, name);
	size_t n = hex ? strlen(hex) : 0;
	char *text = n && n % 2 == 0 ? hl_alloc(r, n / 2 + 1) : NULL;
	*out = NULL;
	if (!hex)
		return 0;
	for (size_t i = 0; text && i < n; i += 2) {
		int hi = hex_digit(hex[i]), lo = hex_digit(hex[i + 1]);
		if (hi < 0 || lo < 0)
			text = NULL;
		else
			text[i / 2] = (char)(hi * 16 + lo);
	}
	if (!text || (text[n / 2] = '\0', !keyset_fits(r, text, n / 2, shape))) {
		hl_reply_error(r, 400, "bad_request", "the %s is not one this list gave", name);
		return HL_EINVAL;
	}
	*out = text;
	return 0;
}

HL_API int hl_query_cursor(struct hl_req *r, const char *name, const char **out)
{
	return hl_query_keyset(r, name, NULL, out);
}

HL_API const char *hl_body(const struct hl_req *r, size_t *len)
{
	*len = r->body.len;
	return r->body.len ? r->body.data : "";
}

HL_API int64_t hl_user_id(const struct hl_req *r)
{
	((struct hl_req *)r)->asked_user = 1; /* the read cache must know */
	return r->who.user_id;
}

HL_API int hl_assigned_only(const struct hl_req *r)
{
	return r->who.assigned_only;
}

HL_API int64_t hl_assigned_user(struct hl_req *r)
{
	return hl_assigned_only(r) ? hl_user_id(r) : 0;
}

HL_API void hl_answer_uncached(struct hl_req *r)
{
	r->uncached = 1;
}

HL_API int64_t hl_location_id(const struct hl_req *r)
{
	return r->location_id;
}

/* ---- the JSON body ---------------------------------------------------- */

static const struct json_doc *doc(const struct hl_req *r)
{
	static const struct json_doc empty = { .src = "" };
	return r->has_json ? &r->json : &empty;
}

HL_API enum hl_json_type hl_body_type(struct hl_req *r, int tok)
{
	return json_type(doc(r), tok);
}

HL_API int hl_body_find(struct hl_req *r, int obj, const char *key)
{
	return json_find(doc(r), obj, key);
}

HL_API int hl_body_count(struct hl_req *r, int tok)
{
	return json_count(doc(r), tok);
}

HL_API int hl_body_index(struct hl_req *r, int arr, int i)
{
	return r->has_json ? json_index(&r->json, arr, i) : -1;
}

HL_API const char *hl_body_string(struct hl_req *r, int tok)
{
	return json_string(doc(r), tok, &r->arena);
}

HL_API int hl_body_int(struct hl_req *r, int tok, int64_t *out)
{
	return json_int(doc(r), tok, out);
}

HL_API int hl_body_decimal(struct hl_req *r, int tok, int places, int64_t *out)
{
	return json_decimal(doc(r), tok, places, out);
}

HL_API int hl_body_bool(struct hl_req *r, int tok, int *out)
{
	return json_bool(doc(r), tok, out);
}

/* ---- answers ---------------------------------------------------------- */

HL_API struct hl_json *hl_reply_json(struct hl_req *r, int status)
{
	request_reset_answer(r);
	r->status = status;
	r->content_type = "application/json; charset=utf-8";
	r->replied = 1;
	json_writer_init(&r->writer_json, &r->out);
	return &r->writer_json;
}

HL_API int hl_reply_error(struct hl_req *r, int status, const char *code, const char *fmt, ...)
{
	char message[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	/* "Unavailable for now": say when to come back, unless already said */
	if (status == 503 && !(r->headers.len && memmem(r->headers.data, r->headers.len,
							 "Retry-After:", 12)))
		request_add_header(r, "Retry-After: 1");
	struct hl_json *j = hl_reply_json(r, status);
	hl_json_object(j);
	hl_json_key(j, "error");
	hl_json_object(j);
	hl_json_key(j, "code");
	hl_json_string(j, code);
	hl_json_key(j, "message");
	hl_json_string(j, message);
	hl_json_object_end(j);
	hl_json_object_end(j);
	return 0;
}

HL_API int hl_reply_invalid(struct hl_req *r, const char *member, const char *fmt, ...)
{
	char what[480];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	hl_reply_error(r, 422, "validation", "%s: %s", member, what);
	return HL_EINVAL;
}

HL_API int hl_reply_empty(struct hl_req *r)
{
	return hl_reply_raw(r, 204, "application/json", "", 0);
}

HL_API int hl_reply_raw(struct hl_req *r, int status, const char *content_type,
			const void *body, size_t len)
{
	request_reset_answer(r);
	r->status = status;
	r->content_type = content_type;
	r->replied = 1;
	buf_append(&r->out, body, len);
	return r->out.oom ? HL_ENOMEM : 0;
}

HL_API int hl_reply_download(struct hl_req *r, const char *name)
{
	size_t n = name ? strlen(name) : 0;
	if (!r->replied || !n || n > 100 || name[0] == '.' ||
	    strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") != n) {
		log_error("hl_reply_download: no answer yet, or a name that is not plain");
		return HL_EINVAL;
	}
	request_add_header(r, "Content-Disposition: attachment; filename=\"%s\"", name);
	return 0;
}

HL_API int hl_reply_csp(struct hl_req *r, const char *csp)
{
	if (!r->replied || !csp || strpbrk(csp, "\r\n")) {
		log_error("hl_reply_csp: no answer yet, or a policy with a line break");
		return HL_EINVAL;
	}
	r->csp = csp;
	return 0;
}

HL_API int hl_reply_page(struct hl_req *r, sqlite3_stmt *st, int64_t limit, int cursor_col)
{
	return hl_reply_page_total(r, st, limit, cursor_col, -1);
}

HL_API int hl_reply_page_total(struct hl_req *r, sqlite3_stmt *st, int64_t limit, int cursor_col,
			       int64_t total)
{
	if (!st)
		return HL_EDB;
	struct hl_json *j = hl_reply_json(r, 200);
	hl_json_object(j);
	if (hl_json_page(r, j, st, limit, cursor_col))
		return HL_EDB;
	if (total >= 0) {
		hl_json_key(j, "total");
		hl_json_int(j, total);
	}
	hl_json_object_end(j);
	return 0;
}

HL_API int hl_json_page(struct hl_req *r, struct hl_json *j, sqlite3_stmt *st, int64_t limit,
			int cursor_col)
{
	if (!st)
		return HL_EDB;
	hl_json_key(j, "data");
	hl_json_array(j);
	int64_t n = 0;
	char *cursor = NULL;
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == limit)
			break; /* a further row: there is a next page */
		hl_json_row(j, st);
		if (++n == limit) /* the cursor names the last row written */
			cursor = hl_strndup(r, (const char *)sqlite3_column_text(st, cursor_col),
					    (size_t)sqlite3_column_bytes(st, cursor_col));
	}
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return HL_EDB;
	hl_json_array_end(j);
	hl_json_key(j, "next_cursor");
	hl_json_string(j, step == SQLITE_ROW ? cursor : NULL);
	return 0;
}

HL_API int hl_reply_row(struct hl_req *r, int status, sqlite3_stmt *st, const char *what)
{
	if (!st)
		return HL_EDB;
	int step = sqlite3_step(st);
	if (step == SQLITE_DONE)
		return hl_reply_error(r, 404, "not_found", "no such %s", what);
	if (step != SQLITE_ROW)
		return HL_EDB;
	hl_json_row(hl_reply_json(r, status), st);
	return 0;
}

HL_API int hl_reply_record(struct hl_req *r, int status, int64_t id, const char *what,
			   const char *sql)
{
	sqlite3_stmt *st = hl_scoped_read(r, sql);
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":id", id);
	hl_bind_int(st, ":me", hl_assigned_user(r));
	return hl_reply_row(r, status, st, what);
}

HL_API int hl_reply_path_record(struct hl_req *r, const char *what, const char *sql)
{
	int64_t id;
	if (hl_param_id(r, "id", &id))
		return 0;
	return hl_reply_record(r, 200, id, what, sql);
}

HL_API int hl_delete_if_empty(struct hl_req *r, int64_t id, const char *what,
			      const char *count_sql, const char *held,
			      const char *const *deletes)
{
	if (count_sql) {
		sqlite3_stmt *st = hl_scoped_write(r, count_sql);
		int64_t holds;
		hl_bind_int(st, ":id", id);
		int rc = hl_step_int(st, &holds);
		if (rc <= 0)
			return rc ? rc : hl_reply_error(r, 404, "not_found", "no such %s", what);
		if (holds)
			return hl_reply_error(r, 409, "conflict", "the %s holds %lld %s%s: move or"
					      " delete them first", what, (long long)holds, held,
					      holds == 1 ? "" : "s");
	}
	int64_t changed = 0;
	for (int i = 0; deletes[i]; i++) {
		sqlite3_stmt *st = hl_scoped_write(r, deletes[i]);
		hl_bind_int(st, ":id", id);
		if ((changed = hl_step_changes(st)) < 0)
			return HL_EDB;
	}
	return changed ? 1 : hl_reply_error(r, 404, "not_found", "no such %s", what);
}

/* Whether `s` is a table or space-separated column names, the only text
 * hl_move_to_position puts into its SQL. */
static int plain_names(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' || *s == ' '))
			return 0;
	return 1;
}

/* " AND a.c IS b.c" for each column c of `scope`. */
static const char *same_scope(struct hl_req *r, const char *scope, const char *a, const char *b)
{
	const char *sql = "";
	for (const char *c = scope; c && *c;) {
		size_t n = strcspn(c, " ");
		if (n)
			sql = hl_sprintf(r, "%s AND %s.%.*s IS %s.%.*s", sql, a, (int)n, c, b, (int)n, c);
		c += n + strspn(c + n, " ");
	}
	return sql;
}

HL_API int hl_move_to_position(struct hl_req *r, const char *table, const char *scope, int64_t id,
			       int64_t position, unsigned flags)
{
	if (!table || !*table || !plain_names(table) || (scope && !plain_names(scope))) {
		log_error("hl_move_to_position: \"%.40s\", \"%.60s\": not plain names",
			  table ? table : "(null)", scope ? scope : "");
		return HL_EINVAL;
	}
	/* One statement: the row (r) takes the position, or the end of its
	 * scope; with room made, the others of the scope from the position on
	 * go down by one. Its text depends only on the table and the scope,
	 * so the connection's cache prepares it once. */
	const char *in_scope = same_scope(r, scope, "o", "r");
	sqlite3_stmt *st = hl_scoped_write(r, hl_sprintf(r,
		"UPDATE %s AS o SET position = CASE WHEN o.id <> r.id THEN o.position + 1"
		" WHEN :position >= 0 THEN :position"
		" ELSE (SELECT ifnull(max(s.position) + 1, 0) FROM %s AS s"
		" WHERE s.location_id = :location AND s.id <> r.id%s) END"
		" FROM (SELECT * FROM %s WHERE id = :id AND location_id = :location) AS r"
		" WHERE o.location_id = :location%s"
		" AND (o.id = r.id OR (:room AND :position >= 0 AND o.position >= :position))",
		table, table, same_scope(r, scope, "s", "r"), table, in_scope));
	hl_bind_int(st, ":id", id);
	hl_bind_int(st, ":position", position < 0 ? HL_POSITION_LAST : position);
	hl_bind_int(st, ":room", !!(flags & HL_POSITION_MAKE_ROOM));
	int64_t changed = hl_step_changes(st);
	return changed < 0 ? HL_EDB : changed > 0;
}

/* ---- the database ----------------------------------------------------- */

/* When a connection lent now must have finished its work (0: never). */
static long long statement_deadline(const struct hl_req *r)
{
	long long ms = CONFIG_LIVE(r->srv->cfg, query_timeout_ms);
	return ms ? now_us() + ms * 1000 : 0;
}

HL_API struct hl_db *hl_read(struct hl_req *r)
{
	if (r->writer)
		return r->writer;
	if (r->reader || r->no_reader)
		return r->reader; /* after a wait in vain, do not wait again */
	if (!(r->reader = db_lend(r->srv->db)))
		r->no_reader = 1;
	else
		db_set_deadline(r->reader, statement_deadline(r));
	return r->reader;
}

void request_return_reader(struct hl_req *r)
{
	if (r->reader)
		r->statements += db_conn_reset(r->reader);
	db_return(r->srv->db, r->reader);
	r->reader = NULL;
}

void request_reply_unavailable(struct hl_req *r)
{
	if (r->no_reader)
		request_add_header(r, "Retry-After: 1");
	hl_reply_error(r, 503, "unavailable", r->no_reader ? "the server is busy; try again"
						 : "the database is not available");
}

HL_API struct hl_db *hl_write_begin(struct hl_req *r)
{
	if (r->writer)
		return r->writer;
	if (!strcmp(r->method, "GET") || !strcmp(r->method, "HEAD")) {
		/* A GET may come from a link on any site, with the cookie. */
		log_error("GET %s: a GET may not write", r->match.entry->route.pattern);
		return NULL;
	}
	struct hl_db *w = db_write_lock(r->srv->db);
	if (db_begin(w)) {
		db_write_unlock(r->srv->db, w);
		return NULL;
	}
	db_record_changes(w, 1);
	db_set_deadline(w, statement_deadline(r));
	r->writer = w;
	return w;
}

/* hl_stmt_scoped with the request's location; a route without one (an
 * agency route) asking for it is named in the log. */
static sqlite3_stmt *scoped(struct hl_req *r, struct hl_db *db, const char *sql)
{
	if (db && !r->location_id) {
		log_error("%s %s: no current location for a scoped statement", r->method,
			  r->match.entry ? r->match.entry->route.pattern : "?");
		return NULL;
	}
	return hl_stmt_scoped(db, r->location_id, sql);
}

HL_API sqlite3_stmt *hl_scoped_read(struct hl_req *r, const char *sql)
{
	return scoped(r, hl_read(r), sql);
}

HL_API sqlite3_stmt *hl_agency_read(struct hl_req *r, const char *sql)
{
	int staff = role_is_agency(r->who.role) && !r->who.assigned_only;
	sqlite3_stmt *st = staff ? hl_stmt(hl_read(r), sql) : NULL;
	int idx = st ? sqlite3_bind_parameter_index(st, ":agency") : 0;
	if (staff && !st)
		return NULL; /* hl_stmt has said why */
	if (!idx) {
		log_error("%s %s: %s", r->method, r->match.entry ? r->match.entry->route.pattern : "?",
			  !staff ? "an agency statement for a caller who is not agency staff seeing every record"
			  : "an agency statement needs an :agency parameter");
		return NULL;
	}
	sqlite3_bind_int64(st, idx, r->who.agency_id);
	return st;
}

HL_API sqlite3_stmt *hl_scoped_write(struct hl_req *r, const char *sql)
{
	return scoped(r, hl_write_begin(r), sql);
}

/* The first row's integer of `st`, with :id bound to `id`: 0 for no row,
 * HL_EDB. */
static int64_t first_int(sqlite3_stmt *st, int64_t id)
{
	if (!st)
		return HL_EDB;
	int idx = sqlite3_bind_parameter_index(st, ":id"); /* ?1 before ABI 1.9 */
	sqlite3_bind_int64(st, idx ? idx : 1, id);
	int64_t value;
	return hl_step_int(st, &value) < 0 ? HL_EDB : value;
}

HL_API int64_t hl_scoped_write_int(struct hl_req *r, const char *sql, int64_t id)
{
	return first_int(hl_scoped_write(r, sql), id);
}

HL_API int64_t hl_scoped_read_int(struct hl_req *r, const char *sql, int64_t id)
{
	sqlite3_stmt *st = hl_scoped_read(r, sql);
	hl_bind_int(st, ":me", hl_assigned_user(r));
	return first_int(st, id);
}

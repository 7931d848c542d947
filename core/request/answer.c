/* SPDX-License-Identifier: MIT */
/*
 * answer.c: an answer on the wire: its status line and headers, written
 * into the room kept in front of the body (HEAD_ROOM) so that head and
 * body leave in one mg_write, in pieces a slow reader cannot stretch
 * (see answer.h); and a text answer compressed when the client takes it.
 */
#include "request/answer.h"
#include "lib/compress.h"
#include "lib/log.h"
#include "request/request.h"
#include "server.h"

#include <civetweb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char security_headers[] =
	"X-Content-Type-Options: nosniff\r\n"
	"X-Frame-Options: DENY\r\n"
	"Referrer-Policy: same-origin\r\n"
	"Cross-Origin-Opener-Policy: same-origin\r\n";

const char answer_csp[] = "default-src 'self'; img-src 'self' data:; object-src 'none';"
	" base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

static const char *status_text(int status)
{
	switch (status) {
	case 200: return "OK";
	case 201: return "Created";
	case 202: return "Accepted";
	case 204: return "No Content";
	case 304: return "Not Modified";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 409: return "Conflict";
	case 411: return "Length Required";
	case 413: return "Content Too Large";
	case 415: return "Unsupported Media Type";
	case 417: return "Expectation Failed";
	case 422: return "Unprocessable Content";
	case 429: return "Too Many Requests";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 503: return "Service Unavailable";
	}
	return status < 300 ? "OK" : status < 500 ? "Client Error" : "Server Error";
}

/* The Date header, formatted once a second per thread. */
static const char *http_date(void)
{
	static __thread char text[40];
	static __thread time_t when;
	time_t now = time(NULL);
	if (now != when) {
		struct tm tm;
		gmtime_r(&now, &tm);
		strftime(text, sizeof(text), "%a, %d %b %Y %H:%M:%S GMT", &tm);
		when = now;
	}
	return text;
}

/* 1xx, 204 and 304 answers have no body, so no Content-Type or -Length. */
int answer_has_body(int status)
{
	return status >= 200 && status != 204 && status != 304;
}

int answer_head(const struct hl_req *r, char *dst, size_t cap)
{
	char type_and_length[256] = "";
	const char *type = r->content_type ? r->content_type : "application/octet-stream";
	if (r->stream) /* the connection closes after a stream, whatever happens */
		snprintf(type_and_length, sizeof(type_and_length),
			 "Content-Type: %s\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n",
			 type);
	else if (answer_has_body(r->status))
		snprintf(type_and_length, sizeof(type_and_length),
			 "Content-Type: %s\r\nContent-Length: %zu\r\n", type, r->out.len - HEAD_ROOM);
	return snprintf(dst, cap, "HTTP/1.1 %d %s\r\nDate: %s\r\n%sCache-Control: %s\r\n%s"
			"Content-Security-Policy: %s\r\n%s\r\n",
			r->status, status_text(r->status), http_date(), type_and_length,
			r->cache_control ? r->cache_control : "no-store", security_headers,
			r->csp ? r->csp : answer_csp, r->headers.len ? r->headers.data : "");
}

int answer_write(struct hl_req *r, const void *data, size_t len)
{
	const struct config *cfg = r->srv->cfg;
	for (size_t at = 0; at < len; at += SEND_PIECE) {
		size_t n = len - at < SEND_PIECE ? len - at : SEND_PIECE;
		if (mg_write(r->conn, (const char *)data + at, n) <= 0)
			return r->cut = 1, -1;
		r->sent += n;
		long long allowed = cfg->body_timeout_s * 1000000LL +
				    (long long)r->sent * 1000000 / (cfg->min_rate_kb * 1024);
		if (at + n < len && now_us() - r->started_us > allowed)
			return r->cut = 1, -1;
	}
	return 0;
}

void answer_send(struct hl_req *r, int head_only)
{
	char head[HEAD_ROOM], *big = NULL;
	const char *body = r->out.data + HEAD_ROOM;
	size_t body_len = answer_has_body(r->status) ? r->out.len - HEAD_ROOM : 0;
	int n = answer_head(r, head, sizeof(head));
	if (n < 0)
		return;
	if ((size_t)n < sizeof(head) && !head_only) {
		/* The usual case: headers and body in one write (or a few
		 * pieces for a big one), no copy. */
		char *start = r->out.data + HEAD_ROOM - n;
		memcpy(start, head, (size_t)n);
		answer_write(r, start, (size_t)n + body_len);
		return;
	}
	const char *h = head;
	if ((size_t)n >= sizeof(head)) { /* huge extra headers */
		if (!(big = malloc((size_t)n + 1)))
			return;
		answer_head(r, big, (size_t)n + 1);
		h = big;
	}
	if (!answer_write(r, h, (size_t)n) && !head_only && body_len)
		answer_write(r, body, body_len);
	free(big);
}

/* Compress a text answer of 1 KB or more for a client that accepts it;
 * the compressed copy takes the place of the body. */
void answer_compress(struct hl_req *r)
{
	size_t n = r->out.len - HEAD_ROOM;
	if (!answer_has_body(r->status) || !compress_worth(r->content_type))
		return;
	request_add_header(r, "Vary: Accept-Encoding");
	if (r->encoded)
		return;
	enum coding c = compress_choose(hl_header(r, "Accept-Encoding"));
	if (n < COMPRESS_MIN_BYTES || c == CODING_IDENTITY)
		return;
	buf_reset(&r->packed);
	if (buf_reserve(&r->packed, HEAD_ROOM))
		return;
	r->packed.len = HEAD_ROOM;
	if (compress_into(c, r->out.data + HEAD_ROOM, n, &r->packed))
		return;
	struct buf plain = r->out;
	r->out = r->packed;
	r->packed = plain;
	request_add_header(r, "Content-Encoding: %s", coding_name(c));
}

/* SPDX-License-Identifier: MIT */
/*
 * framing.c: a request's head checked for how it frames its body, and the
 * connection closed when that is in doubt.
 *
 * A proxy in front of us and the server must agree on where a body ends,
 * or what one takes for a body the other runs as the next request: behind
 * a proxy that reuses connections, another client's request. So a head
 * that says it two ways (two lengths, a length and a transfer coding, a
 * length that is not plain digits) is refused, and so is one civetweb did
 * not read whole: it keeps MG_MAX_HEADERS headers and drops the rest
 * unseen, a Content-Length among them. A refused head, and any error
 * answered before the body was read, closes the connection (http.c).
 */
#include "http/framing.h"

#include <hyperlevel/hyperlevel.h>

#include <civetweb.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

_Static_assert(MG_MAX_HEADERS == 64, "the 431 answer names the limit");

/* A Content-Length's value, or -1 when it is not plain digits (spaces may
 * follow, as civetweb leaves them). */
static long long length_value(const char *v)
{
	size_t digits = strspn(v, "0123456789");
	if (!digits || digits > 18 || v[digits + strspn(v + digits, " \t")])
		return -1;
	return strtoll(v, NULL, 10);
}

static int refuse(struct framing_refusal *no, int status, const char *code, const char *why)
{
	*no = (struct framing_refusal){ status, code, why };
	return HL_EINVAL;
}

int framing_check(const struct mg_request_info *ri, long long *length,
		  struct framing_refusal *no)
{
	int coded = 0;
	*length = -1;
	if (ri->num_headers >= MG_MAX_HEADERS)
		return refuse(no, 431, "too_many_headers", "a request may carry at most 63 headers");
	for (int i = 0; i < ri->num_headers; i++) {
		const struct mg_header *h = &ri->http_headers[i];
		if (!strcasecmp(h->name, "Transfer-Encoding")) {
			coded = 1;
		} else if (!strcasecmp(h->name, "Content-Length")) {
			long long n = length_value(h->value);
			if (n < 0 || (*length >= 0 && n != *length))
				return refuse(no, 400, "bad_request", "the Content-Length is not one number");
			*length = n;
		}
	}
	if (*length >= 0 && coded)
		return refuse(no, 400, "bad_request",
			      "send either Content-Length or Transfer-Encoding, not both");
	/* civetweb gives up a chunked body for good on the first interrupted
	 * read, which the guard's signals make possible: bodies have a length. */
	if (coded)
		return refuse(no, 411, "length_required", "send the body with a Content-Length");
	return 0;
}

/* civetweb decides after the answer whether to read another request on
 * the connection, from the request's own Connection header (or HTTP/1.1's
 * default); it has no call to say "close". The headers are laid out in
 * public in mg_request_info, so naming "close" there is how we say it. */
void framing_close(struct mg_request_info *ri)
{
	int i = 0;
	while (i < ri->num_headers && strcasecmp(ri->http_headers[i].name, "Connection"))
		i++;
	if (i >= MG_MAX_HEADERS) /* full: such a head is refused anyway */
		i = MG_MAX_HEADERS - 1;
	else if (i == ri->num_headers)
		ri->num_headers++;
	ri->http_headers[i].name = "Connection";
	ri->http_headers[i].value = "close";
}

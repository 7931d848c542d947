/* SPDX-License-Identifier: MIT */
/*
 * head: a request's head as framing.c reads it. The input is the header
 * lines of a head ("Name: value", one a line), split into civetweb's
 * mg_request_info the way civetweb does (at most MG_MAX_HEADERS kept, the
 * rest dropped unseen, which the check must notice). framing_check must
 * refuse with 400, 411 or 431, or accept a head with no transfer coding
 * whose every Content-Length is the length it reports; framing_close must
 * leave the first Connection header saying "close" and keep the list in
 * bounds.
 */
#include "http/framing.h"

#include <hyperlevel/hyperlevel.h>

#include <civetweb.h>
#include <strings.h>

#include "fuzz.h"

/* Lines of `text` into info's headers, as civetweb's parser cuts them:
 * the name runs to ':' over visible ASCII, spaces and tabs open the value.
 * Returns the lines seen, which may be more than were kept. */
static int split(char *text, struct mg_request_info *info)
{
	int seen = 0;
	for (char *line = text; line && *line;) {
		char *next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *colon = line;
		while (*colon > 32 && *colon < 127 && *colon != ':')
			colon++;
		if (*colon == ':' && colon > line) {
			*colon = '\0';
			char *value = colon + 1;
			value += strspn(value, " \t");
			if (info->num_headers < MG_MAX_HEADERS) {
				info->http_headers[info->num_headers].name = line;
				info->http_headers[info->num_headers].value = value;
				info->num_headers++;
			}
			seen++;
		}
		line = next;
	}
	return seen;
}

static void check_accepted(const struct mg_request_info *info, long long length)
{
	int lengths = 0;
	FUZZ_CHECK(info->num_headers < MG_MAX_HEADERS);
	for (int i = 0; i < info->num_headers; i++) {
		const struct mg_header *h = &info->http_headers[i];
		FUZZ_CHECK(strcasecmp(h->name, "Transfer-Encoding"));
		if (!strcasecmp(h->name, "Content-Length")) {
			FUZZ_CHECK(h->value[0] >= '0' && h->value[0] <= '9');
			FUZZ_CHECK(strtoll(h->value, NULL, 10) == length);
			lengths++;
		}
	}
	FUZZ_CHECK(lengths ? length >= 0 : length == -1);
}

static void check_closed(const struct mg_request_info *info)
{
	FUZZ_CHECK(info->num_headers >= 1 && info->num_headers <= MG_MAX_HEADERS);
	for (int i = 0; i < info->num_headers; i++)
		if (!strcasecmp(info->http_headers[i].name, "Connection")) {
			FUZZ_CHECK(!strcmp(info->http_headers[i].value, "close"));
			return;
		}
	FUZZ_CHECK(!"no Connection header after framing_close");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstring(data, size);
	struct mg_request_info info;
	memset(&info, 0, sizeof(info));
	int seen = split(text, &info);
	long long length;
	struct framing_refusal no = { 0, NULL, NULL };
	int rc = framing_check(&info, &length, &no);
	if (rc)
		FUZZ_CHECK(rc == HL_EINVAL && (no.status == 400 || no.status == 411 ||
					       no.status == 431) && no.code && no.why);
	else
		check_accepted(&info, length);
	if (seen > MG_MAX_HEADERS - 1)
		FUZZ_CHECK(rc && no.status == 431);
	framing_close(&info);
	check_closed(&info);
	free(text);
	return 0;
}

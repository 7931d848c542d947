/* SPDX-License-Identifier: MIT */
/*
 * query: the query string as core/request/request.c reads it: request_parse_query
 * and request_decode, then what handlers ask of it: hl_query, hl_query_all,
 * hl_query_int (limits), hl_query_user (owner=me) and hl_query_cursor (the
 * hex cursors of the paged lists). Each answer is checked against the
 * parsed pairs; a refusal must be a 400 with the JSON error, never more.
 */
#include "request/request.h"

#include "fuzz.h"

static struct hl_req req;
static int ready;

static void check_pairs(struct hl_req *r)
{
	for (int i = 0; i < r->nquery; i++) {
		const char *name = r->query[i].name, *value = r->query[i].value;
		FUZZ_CHECK(name && *name && value);
		/* hl_query answers the first pair of a name. */
		const char *first = hl_query(r, name);
		FUZZ_CHECK(first);
		const char **all;
		int n = hl_query_all(r, name, &all);
		FUZZ_CHECK(n >= 1 && all[0] == first && !all[n]);
	}
}

/* A refusal is a 400 JSON error; success leaves the answer alone. */
static void check_refusal(struct hl_req *r, int rc)
{
	if (rc) {
		FUZZ_CHECK(rc == HL_EINVAL && r->status == 400 && r->replied);
		FUZZ_CHECK(r->out.len > HEAD_ROOM && r->out.data[HEAD_ROOM] == '{');
	} else {
		FUZZ_CHECK(!r->replied);
	}
	request_reset_answer(r);
}

static void ask(struct hl_req *r)
{
	int64_t v;
	const char *cursor;
	int rc = hl_query_int(r, "limit", 50, 1, 500, &v);
	check_refusal(r, rc);
	FUZZ_CHECK(rc || (v >= 1 && v <= 500));
	check_refusal(r, hl_query_int(r, "location_id", 0, 1, INT64_MAX, &v));
	rc = hl_query_user(r, "owner", &v);
	check_refusal(r, rc);
	FUZZ_CHECK(rc || v >= 0);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	rc = hl_query_cursor(r, "cursor", &cursor); /* deprecated, and still served */
#pragma GCC diagnostic pop
	check_refusal(r, rc);
	if (!rc && cursor) /* what SQLite's json_each gets: an array's text */
		FUZZ_CHECK(cursor[0] == '[' && strlen(cursor) <= strlen(hl_query(r, "cursor")) / 2);
	FUZZ_CHECK(rc || cursor || !hl_query(r, "cursor"));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!ready) {
		request_init(&req, NULL);
		ready = 1;
	}
	char *q = fuzz_cstring(data, size);
	request_begin(&req, NULL, "GET", "/api/contacts", 13, q);
	int rc = request_parse_query(&req);
	FUZZ_CHECK(rc == 0 || rc == HL_EINVAL);
	check_pairs(&req);
	ask(&req);
	/* The decoder alone, as hl_param uses it (no '+' for a space). */
	size_t n = strlen(q);
	for (int plus = 0; plus < 2; plus++) {
		char *d = request_decode(&req, q, n, plus);
		FUZZ_CHECK(!d || strlen(d) <= n);
		FUZZ_CHECK(!d || plus || !memchr(q, '%', n) || strlen(d) < n);
	}
	request_end(&req);
	free(q);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * json: the JSON reader (core/lib/json_read.c). Any bytes go to json_parse
 * with the token limit the HTTP layer uses for a body; a document it
 * accepts is then walked through every accessor the way handlers call
 * them, wrong types and missing tokens (-1) included, and what they answer
 * is checked against the document's shape.
 */
#include "lib/json.h"

#include "fuzz.h"

static struct arena arena;

static void walk(struct json_doc *d, int tok, int depth);

static void walk_object(struct json_doc *d, int obj, int depth)
{
	int n = 0;
	for (int key = json_next_key(d, obj, -1); key >= 0; key = json_next_key(d, obj, key)) {
		char *name = json_string(d, key, &arena);
		FUZZ_CHECK(name);
		/* The first member of that name: the value found is a member's. */
		int found = json_find(d, obj, name);
		FUZZ_CHECK(found > obj && json_type(d, found) != HL_JSON_NONE);
		walk(d, key + 1, depth + 1);
		n++;
	}
	FUZZ_CHECK(n == json_count(d, obj));
	FUZZ_CHECK(json_index(d, obj, 0) == -1);
}

static void walk_array(struct json_doc *d, int arr, int depth)
{
	int n = json_count(d, arr);
	for (int i = 0; i < n; i++) {
		int t = json_index(d, arr, i);
		FUZZ_CHECK(t > arr && t < d->ntok);
		walk(d, t, depth + 1);
	}
	FUZZ_CHECK(json_index(d, arr, n) == -1);
	FUZZ_CHECK(json_index(d, arr, -1) == -1);
	if (n) /* backwards, which the index cache must not get wrong */
		FUZZ_CHECK(json_index(d, arr, 0) == arr + 1);
	FUZZ_CHECK(json_next_key(d, arr, -1) == -1 && json_find(d, arr, "id") == -1);
}

static void walk(struct json_doc *d, int tok, int depth)
{
	int64_t i;
	int b;
	FUZZ_CHECK(depth <= 64);
	switch (json_type(d, tok)) {
	case HL_JSON_OBJECT: walk_object(d, tok, depth); break;
	case HL_JSON_ARRAY: walk_array(d, tok, depth); break;
	case HL_JSON_STRING:
		FUZZ_CHECK(json_string(d, tok, &arena) && json_int(d, tok, &i));
		break;
	case HL_JSON_NUMBER:
		json_int(d, tok, &i);
		FUZZ_CHECK(!json_string(d, tok, &arena) && json_bool(d, tok, &b));
		break;
	case HL_JSON_BOOL: FUZZ_CHECK(!json_bool(d, tok, &b)); break;
	case HL_JSON_NULL: FUZZ_CHECK(json_bool(d, tok, &b) && json_int(d, tok, &i)); break;
	case HL_JSON_NONE: FUZZ_CHECK(0);
	}
}

/* What a handler gets for a member that is not there. */
static void missing(struct json_doc *d)
{
	int64_t i;
	int b;
	for (int tok = -1; tok <= d->ntok; tok += d->ntok + 1) {
		FUZZ_CHECK(json_type(d, tok) == HL_JSON_NONE);
		FUZZ_CHECK(!json_string(d, tok, &arena) && json_int(d, tok, &i) &&
			   json_bool(d, tok, &b));
		FUZZ_CHECK(json_find(d, tok, "name") == -1 && json_index(d, tok, 0) == -1 &&
			   json_count(d, tok) == 0 && json_next_key(d, tok, -1) == -1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An allocation of its own, so a read past the body is seen. */
	char *src = fuzz_cstring(data, size);
	struct json_doc d;
	size_t err_at;
	int rc = json_parse(&d, &arena, src, size, (int)(size / 2 + 2), &err_at);
	if (!rc) {
		FUZZ_CHECK(d.ntok > 0);
		walk(&d, 0, 0);
		missing(&d);
	} else {
		FUZZ_CHECK(rc == HL_EINVAL || rc == HL_ETOOBIG);
		/* A root primitive is parsed with a space appended, and an error
		 * at that space is reported there, one past the end. */
		FUZZ_CHECK(err_at <= size + 1);
	}
	arena_reset(&arena);
	free(src);
	return 0;
}

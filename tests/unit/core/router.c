/* SPDX-License-Identifier: MIT */
/*
 * Tests core/request/router.c: literal and :param matching, literal-over-param
 * precedence with backtracking, 404 versus 405, HEAD, rejected patterns and
 * methods, duplicates and removing one module's routes.
 */
#include "request/router.h"

#include <stdio.h>
#include <string.h>

#include "../test.h"

static int handler(struct hl_req *req)
{
	(void)req;
	return 0;
}

/* Two distinct module handles, as the loader would pass. */
static const int module_a, module_b;

static int add(struct router *r, const char *method, const char *pattern,
	       const char *owner, const void *module)
{
	struct hl_route route = { .method = method, .pattern = pattern, .handler = handler };
	const char *why = NULL;
	return router_add(r, &route, owner, module, &why);
}

static int match(const struct router *r, const char *method, const char *path,
		 struct route_match *m)
{
	return router_match(r, method, path, strlen(path), m);
}

/* The pattern of the route m found, or "" (so a failed match cannot crash). */
static const char *pattern(const struct route_match *m)
{
	return m->entry ? m->entry->route.pattern : "";
}

/* The pattern of the route that `method` and `path` match, or "". */
static const char *matched(const struct router *r, const char *method, const char *path)
{
	struct route_match m;
	return match(r, method, path, &m) ? "" : pattern(&m);
}

/* Parameter k of m, copied out, as a string. */
static const char *param(const struct route_match *m, int k)
{
	static char tmp[64];
	if (k >= m->nparams || m->value_len[k] >= sizeof(tmp))
		return NULL;
	memcpy(tmp, m->value[k], m->value_len[k]);
	tmp[m->value_len[k]] = '\0';
	return tmp;
}

static void literal_routes_match_exactly(void)
{
	struct router *r = router_new();
	CHECK_INT(add(r, "GET", "/", "core", &module_a), 0);
	CHECK_INT(add(r, "GET", "/api/health", "core", &module_a), 0);
	CHECK_INT(add(r, "GET", "/api/contacts", "core", &module_a), 0);
	CHECK_STR(matched(r, "GET", "/"), "/");
	CHECK_STR(matched(r, "GET", "/api/health"), "/api/health");
	CHECK_STR(matched(r, "GET", "/api/contacts"), "/api/contacts");
	struct route_match m;
	CHECK_INT(match(r, "GET", "/api", &m), HL_ENOENT);        /* a prefix only */
	CHECK_INT(match(r, "GET", "/api/healthz", &m), HL_ENOENT);
	CHECK_INT(match(r, "GET", "/api/health/x", &m), HL_ENOENT);
	CHECK_INT(match(r, "GET", "", &m), HL_ENOENT);
	CHECK_INT(match(r, "GET", "api/health", &m), HL_ENOENT);
	router_free(r);
}

static void params_are_captured_raw_with_lengths(void)
{
	struct router *r = router_new();
	CHECK_INT(add(r, "GET", "/api/contacts/:id/notes/:note", "core", &module_a), 0);
	struct route_match m;
	CHECK_INT(match(r, "GET", "/api/contacts/42/notes/7", &m), 0);
	CHECK_INT(m.nparams, 2);
	CHECK_INT(m.value_len[0], 2);
	CHECK_STR(param(&m, 0), "42");
	CHECK_INT(m.value_len[1], 1);
	CHECK_STR(param(&m, 1), "7");
	CHECK(m.entry && m.entry->nparams == 2);
	if (m.entry) {
		CHECK_STR(m.entry->param_names[0], "id");
		CHECK_STR(m.entry->param_names[1], "note");
	}
	CHECK_INT(match(r, "GET", "/api/contacts/a%20b/notes/x.y", &m), 0);
	CHECK_STR(param(&m, 0), "a%20b"); /* not percent-decoded */
	CHECK_STR(param(&m, 1), "x.y");
	router_free(r);
}

static void params_point_into_the_path(void)
{
	struct router *r = router_new();
	CHECK_INT(add(r, "GET", "/f/:name", "core", &module_a), 0);
	/* The length bounds the match: bytes after it are not part of it. */
	const char *path = "/f/abc?q=1";
	struct route_match m;
	CHECK_INT(router_match(r, "GET", path, 6, &m), 0);
	CHECK(m.value[0] == path + 3);
	CHECK_INT(m.value_len[0], 3);
	router_free(r);
}

static void literal_beats_param_at_the_same_place(void)
{
	struct router *r = router_new();
	/* Registered param first, so the order of registration cannot help. */
	CHECK_INT(add(r, "GET", "/api/x/:id", "core", &module_a), 0);
	CHECK_INT(add(r, "GET", "/api/x/latest", "core", &module_a), 0);
	struct route_match m;
	CHECK_INT(match(r, "GET", "/api/x/latest", &m), 0);
	CHECK_STR(pattern(&m), "/api/x/latest");
	CHECK_INT(m.nparams, 0);
	CHECK_INT(match(r, "GET", "/api/x/17", &m), 0);
	CHECK_STR(pattern(&m), "/api/x/:id");
	CHECK_STR(param(&m, 0), "17");
	router_free(r);
}

static void dead_end_literal_falls_back_to_param(void)
{
	struct router *r = router_new();
	CHECK_INT(add(r, "GET", "/a/latest/info", "core", &module_a), 0);
	CHECK_INT(add(r, "GET", "/a/:id/notes", "core", &module_a), 0);
	struct route_match m;
	CHECK_INT(match(r, "GET", "/a/latest/notes", &m), 0);
	CHECK_STR(pattern(&m), "/a/:id/notes");
	CHECK_INT(m.nparams, 1);
	CHECK_STR(param(&m, 0), "latest");
	CHECK_STR(matched(r, "GET", "/a/latest/info"), "/a/latest/info");
	/* "/a/latest" is a node without routes: neither branch ends there. */
	CHECK_INT(match(r, "GET", "/a/latest", &m), HL_ENOENT);
	router_free(r);
}

static void failed_param_branch_leaves_no_capture(void)
{
	struct router *r = router_new();
	CHECK_INT(add(r, "GET", "/d/:a/x", "core", &module_a), 0);
	CHECK_INT(add(r, "GET", "/d/lit/:b/y", "core", &module_a), 0);
	/* "lit" then :b="x" dead-ends; the match is :a="lit" then "x". */
	struct route_match m;
	CHECK_INT(match(r, "GET", "/d/lit/x", &m), 0);
	CHECK_STR(pattern(&m), "/d/:a/x");
	CHECK_INT(m.nparams, 1);
	CHECK_STR(param(&m, 0), "lit");
	router_free(r);
}

static void unknown_path_is_404_known_path_wrong_method_is_405(void)
{
	struct router *r = router_new();
	CHECK_INT(add(r, "GET", "/api/items", "core", &module_a), 0);
	CHECK_INT(add(r, "POST", "/api/items", "core", &module_a), 0);
	struct route_match m;
	CHECK_INT(match(r, "GET", "/api/nope", &m), HL_ENOENT);
	CHECK(m.entry == NULL);
	CHECK_INT(match(r, "DELETE", "/api/items", &m), HL_EINVAL);
	CHECK(m.entry == NULL);
	CHECK_INT(m.allowed, (1u << M_GET) | (1u << M_POST));
	CHECK_INT(match(r, "BREW", "/api/items", &m), HL_EINVAL);
	CHECK_INT(m.allowed, (1u << M_GET) | (1u << M_POST));
	CHECK_INT(match(r, "POST", "/api/items", &m), 0);
	CHECK_STR(method_name(M_POST), "POST");
	router_free(r);
}

static void head_maps_to_get(void)
{
	struct router *r = router_new();
	CHECK_INT(method_index("HEAD"), M_GET);
	CHECK_INT(method_index("GET"), M_GET);
	CHECK_INT(method_index("OPTIONS"), -1);
	CHECK_INT(method_index("get"), -1);
	CHECK_INT(add(r, "GET", "/api/items", "core", &module_a), 0);
	struct route_match m;
	CHECK_INT(match(r, "HEAD", "/api/items", &m), 0);
	CHECK(m.entry && !strcmp(m.entry->route.method, "GET"));
	router_free(r);
}

static void trailing_slash_and_empty_segments_do_not_match(void)
{
	struct router *r = router_new();
	CHECK_INT(add(r, "GET", "/api/items", "core", &module_a), 0);
	CHECK_INT(add(r, "GET", "/api/x/:id", "core", &module_a), 0);
	struct route_match m;
	CHECK_INT(match(r, "GET", "/api/items/", &m), HL_ENOENT);
	CHECK_INT(match(r, "GET", "/api//items", &m), HL_ENOENT);
	CHECK_INT(match(r, "GET", "//api/items", &m), HL_ENOENT);
	CHECK_INT(match(r, "GET", "/api/x/", &m), HL_ENOENT);   /* empty :id */
	CHECK_INT(match(r, "GET", "/api/x//", &m), HL_ENOENT);
	CHECK_INT(match(r, "GET", "/api/x/5/", &m), HL_ENOENT);
	router_free(r);
}

static void duplicate_route_names_its_owner(void)
{
	struct router *r = router_new();
	struct hl_route dup = { .method = "GET", .pattern = "/api/x/:key", .handler = handler };
	const char *why = NULL;
	CHECK_INT(add(r, "GET", "/api/x/:id", "alpha", &module_a), 0);
	CHECK_INT(router_add(r, &dup, "beta", &module_b, &why), HL_EEXIST);
	CHECK_STR(why, "alpha");
	dup.pattern = "/api/x/:id";
	CHECK_INT(router_add(r, &dup, "alpha", &module_a, &why), HL_EEXIST);
	CHECK_STR(why, "alpha");
	dup.method = "PUT"; /* same shape, another method: fine */
	CHECK_INT(router_add(r, &dup, "beta", &module_b, &why), 0);
	CHECK_INT(add(r, "GET", "/lit", "alpha", &module_a), 0);
	CHECK_INT(add(r, "GET", "/lit", "beta", &module_b), HL_EEXIST);
	int n = 0;
	router_entries(r, &n);
	CHECK_INT(n, 3);
	router_free(r);
}

static void malformed_patterns_are_rejected(void)
{
	static const char *const bad[] = {
		"", "api/x", "/api//x", "/api/x/", "//", "/api/:", "/api/:Id", "/api/:1d",
		"/api/:i-d", "/api/:id/:id", "/api/a%20b", "/api/a?b",
		"/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17/18/19/20/21/22/23/24/25/26/27/28/29/30/31/32/33",
		"/:a/:b/:c/:d/:e/:f/:g/:h/:i",
	};
	struct router *r = router_new();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct hl_route route = { .method = "GET", .pattern = bad[i], .handler = handler };
		const char *why = NULL;
		int rc = router_add(r, &route, "core", &module_a, &why);
		if (rc != HL_EINVAL || !why)
			printf("pattern '%s': rc %d, why %s\n", bad[i], rc, why ? why : "(null)");
		CHECK_INT(rc, HL_EINVAL);
		CHECK(why != NULL);
	}
	/* The limits themselves are fine. */
	CHECK_INT(add(r, "GET", "/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16"
		      "/17/18/19/20/21/22/23/24/25/26/27/28/29/30/31/32", "core", &module_a), 0);
	CHECK_INT(add(r, "GET", "/:a/:b/:c/:d/:e/:f/:g/:h", "core", &module_a), 0);
	CHECK_INT(add(r, "GET", "/:_a1/x", "core", &module_a), 0);
	int n = 0;
	router_entries(r, &n);
	CHECK_INT(n, 3);
	router_free(r);
}

static void malformed_methods_and_entries_are_rejected(void)
{
	static const char *const bad[] = { "HEAD", "get", "OPTIONS", "", "GET " };
	struct router *r = router_new();
	const char *why = NULL;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_INT(add(r, bad[i], "/api/x", "core", &module_a), HL_EINVAL);
	struct hl_route route = { .method = NULL, .pattern = "/api/x", .handler = handler };
	CHECK_INT(router_add(r, &route, "core", &module_a, &why), HL_EINVAL);
	CHECK(why != NULL);
	route = (struct hl_route){ .method = "GET", .pattern = NULL, .handler = handler };
	CHECK_INT(router_add(r, &route, "core", &module_a, &why), HL_EINVAL);
	route = (struct hl_route){ .method = "GET", .pattern = "/api/x", .handler = NULL };
	CHECK_INT(router_add(r, &route, "core", &module_a, &why), HL_EINVAL);
	CHECK(why != NULL);
	int n = -1;
	router_entries(r, &n);
	CHECK_INT(n, 0);
	struct route_match m;
	CHECK_INT(match(r, "GET", "/api/x", &m), HL_ENOENT);
	router_free(r);
}

/* Number of listed routes that belong to `module`. */
static int routes_of(const struct router *r, const void *module)
{
	int n = 0, count = 0;
	const struct route_entry *const *e = router_entries(r, &n);
	for (int i = 0; i < n; i++)
		if (e[i] && e[i]->module == module)
			count++;
	return count;
}

static void remove_module_removes_only_its_routes(void)
{
	struct router *r = router_new();
	CHECK_INT(add(r, "GET", "/a/one", "a", &module_a), 0);
	CHECK_INT(add(r, "GET", "/shared/:id", "a", &module_a), 0);
	CHECK_INT(add(r, "GET", "/b", "b", &module_b), 0);
	CHECK_INT(add(r, "POST", "/shared/:id", "b", &module_b), 0);
	router_remove_module(r, &module_a);
	struct route_match m;
	CHECK_INT(match(r, "GET", "/a/one", &m), HL_ENOENT);
	CHECK_INT(match(r, "GET", "/shared/5", &m), HL_EINVAL);
	CHECK_INT(m.allowed, 1u << M_POST);
	CHECK_STR(matched(r, "GET", "/b"), "/b");
	CHECK_STR(matched(r, "POST", "/shared/5"), "/shared/:id");
	CHECK_INT(routes_of(r, &module_a), 0);
	CHECK_INT(routes_of(r, &module_b), 2);
	/* Its routes can be registered again, by it or another module. */
	CHECK_INT(add(r, "GET", "/a/one", "a", &module_a), 0);
	CHECK_INT(add(r, "GET", "/shared/:key", "a", &module_a), 0);
	CHECK_STR(matched(r, "GET", "/a/one"), "/a/one");
	CHECK_STR(matched(r, "GET", "/shared/5"), "/shared/:key");
	CHECK_INT(routes_of(r, &module_a), 2);
	router_free(r);
}

TEST_MAIN(literal_routes_match_exactly,
	  params_are_captured_raw_with_lengths,
	  params_point_into_the_path,
	  literal_beats_param_at_the_same_place,
	  dead_end_literal_falls_back_to_param,
	  failed_param_branch_leaves_no_capture,
	  unknown_path_is_404_known_path_wrong_method_is_405,
	  head_maps_to_get,
	  trailing_slash_and_empty_segments_do_not_match,
	  duplicate_route_names_its_owner,
	  malformed_patterns_are_rejected,
	  malformed_methods_and_entries_are_rejected,
	  remove_module_removes_only_its_routes)

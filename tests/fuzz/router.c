/* SPDX-License-Identifier: MIT */
/*
 * router: core/request/router.c's router_match on a fuzzed request line
 * ("METHOD PATH", or a bare path for GET) against a table holding every
 * route the core and the modules register, then the parameters decoded as
 * hl_param does. A match must be the route's pattern with its parameters
 * filled in from the path; a miss must say which methods the path has.
 */
#include "lib/conf.h"
#include "request/request.h"
#include "request/router.h"

#include "fuzz.h"

static const struct { const char *method, *pattern; } table[] = {
	{ "GET", "/api/admin/audit" },
	{ "GET", "/api/admin/doctor" },
	{ "GET", "/api/admin/locations" },
	{ "POST", "/api/admin/locations" },
	{ "PATCH", "/api/admin/locations/:id" },
	{ "GET", "/api/admin/metrics" },
	{ "GET", "/api/admin/routes" },
	{ "GET", "/api/admin/users" },
	{ "POST", "/api/admin/users" },
	{ "PATCH", "/api/admin/users/:id" },
	{ "POST", "/api/admin/users/:id/password" },
	{ "GET", "/api/agency/contacts" },
	{ "GET", "/api/agency/opportunities" },
	{ "GET", "/api/agency/overview" },
	{ "GET", "/api/agency/projects" },
	{ "GET", "/api/agency/tasks" },
	{ "POST", "/api/auth/login" },
	{ "POST", "/api/auth/logout" },
	{ "GET", "/api/auth/me" },
	{ "GET", "/api/auth/tokens" },
	{ "POST", "/api/auth/tokens" },
	{ "DELETE", "/api/auth/tokens/:id" },
	{ "GET", "/api/contacts" },
	{ "POST", "/api/contacts" },
	{ "DELETE", "/api/contacts/:id" },
	{ "GET", "/api/contacts/:id" },
	{ "PATCH", "/api/contacts/:id" },
	{ "GET", "/api/contacts/:id/notes" },
	{ "POST", "/api/contacts/:id/notes" },
	{ "DELETE", "/api/contacts/:id/notes/:note" },
	{ "POST", "/api/contacts/:id/tags" },
	{ "DELETE", "/api/contacts/:id/tags/:tag" },
	{ "GET", "/api/contacts/export.csv" },
	{ "POST", "/api/contacts/import" },
	{ "GET", "/api/contacts/imports/:id" },
	{ "POST", "/api/contacts/upsert" },
	{ "GET", "/api/conversations" },
	{ "POST", "/api/conversations" },
	{ "GET", "/api/conversations/:id" },
	{ "PATCH", "/api/conversations/:id" },
	{ "GET", "/api/conversations/:id/messages" },
	{ "POST", "/api/conversations/:id/messages" },
	{ "POST", "/api/conversations/:id/read" },
	{ "POST", "/api/conversations/inbound" },
	{ "GET", "/api/custom-fields" },
	{ "POST", "/api/custom-fields" },
	{ "DELETE", "/api/custom-fields/:id" },
	{ "PATCH", "/api/custom-fields/:id" },
	{ "GET", "/api/dashboard" },
	{ "GET", "/api/health" },
	{ "GET", "/api/invoices" },
	{ "POST", "/api/invoices" },
	{ "DELETE", "/api/invoices/:id" },
	{ "GET", "/api/invoices/:id" },
	{ "PATCH", "/api/invoices/:id" },
	{ "POST", "/api/invoices/:id/payments" },
	{ "POST", "/api/invoices/:id/send" },
	{ "POST", "/api/invoices/:id/void" },
	{ "GET", "/api/mobile/deals" },
	{ "GET", "/api/mobile/inbox" },
	{ "GET", "/api/mobile/projects" },
	{ "GET", "/api/mobile/summary" },
	{ "GET", "/api/opportunities" },
	{ "POST", "/api/opportunities" },
	{ "DELETE", "/api/opportunities/:id" },
	{ "GET", "/api/opportunities/:id" },
	{ "PATCH", "/api/opportunities/:id" },
	{ "GET", "/api/pipelines" },
	{ "POST", "/api/pipelines" },
	{ "DELETE", "/api/pipelines/:id" },
	{ "PATCH", "/api/pipelines/:id" },
	{ "POST", "/api/pipelines/:id/stages" },
	{ "GET", "/api/project" },
	{ "GET", "/api/reports/dashboards" },
	{ "POST", "/api/reports/dashboards" },
	{ "DELETE", "/api/reports/dashboards/:id" },
	{ "GET", "/api/reports/dashboards/:id" },
	{ "PATCH", "/api/reports/dashboards/:id" },
	{ "GET", "/api/reports/dashboards/:id/data" },
	{ "POST", "/api/reports/dashboards/:id/widgets" },
	{ "DELETE", "/api/reports/widgets/:id" },
	{ "PATCH", "/api/reports/widgets/:id" },
	{ "DELETE", "/api/stages/:id" },
	{ "PATCH", "/api/stages/:id" },
	{ "GET", "/api/tags" },
	{ "POST", "/api/tags/bulk" },
	{ "GET", "/api/tasks" },
	{ "POST", "/api/tasks" },
	{ "DELETE", "/api/tasks/:id" },
	{ "GET", "/api/tasks/:id" },
	{ "PATCH", "/api/tasks/:id" },
	{ "POST", "/api/tasks/:id/complete" },
	{ "POST", "/api/tasks/:id/reopen" },
	{ "GET", "/metrics" },
};

static struct router *router;
static struct hl_req req;

static int handler(struct hl_req *r)
{
	(void)r;
	return 0;
}

static void build(void)
{
	router = router_new();
	FUZZ_CHECK(router);
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		struct hl_route route = { .method = table[i].method, .pattern = table[i].pattern,
					  .handler = handler };
		const char *why;
		FUZZ_CHECK(router_add(router, &route, "fuzz", NULL, &why) == 0);
	}
	request_init(&req, NULL);
}

/* The match is the pattern with each :param replaced by its value. */
static void check_match(const struct route_match *m, const char *path, size_t len)
{
	const char *pat = m->entry->route.pattern, *p = path, *end = path + len;
	int k = 0;
	FUZZ_CHECK(m->nparams == m->entry->nparams);
	while (*pat) {
		FUZZ_CHECK(*pat == '/' && p < end && *p == '/');
		pat++, p++;
		size_t plen = strcspn(pat, "/");
		const char *slash = memchr(p, '/', (size_t)(end - p));
		size_t seg = (size_t)((slash ? slash : end) - p);
		if (*pat == ':') {
			FUZZ_CHECK(k < m->nparams && m->value[k] == p && m->value_len[k] == seg && seg);
			k++;
		} else {
			FUZZ_CHECK(seg == plen && !memcmp(p, pat, plen));
		}
		pat += plen, p += seg;
	}
	FUZZ_CHECK(k == m->nparams && p == end);
}

/* What a handler does with its parameters: hl_param, then hl_param_id. */
static void decode_params(const struct route_match *m)
{
	for (int i = 0; i < m->nparams; i++) {
		char *v = request_decode(&req, m->value[i], m->value_len[i], 0);
		long long id;
		if (!v)
			continue;
		FUZZ_CHECK(strlen(v) <= m->value_len[i]);
		if (!conf_int(v, 1, INT64_MAX, &id))
			FUZZ_CHECK(id >= 1);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!router)
		build();
	const uint8_t *space = memchr(data, ' ', size);
	size_t mlen = space ? (size_t)(space - data) : 0;
	char *method = fuzz_cstring(data, mlen);
	/* The path is not NUL-terminated here: the router must keep to len. */
	size_t len = space ? size - mlen - 1 : size;
	char *path = malloc(len ? len : 1);
	FUZZ_CHECK(path);
	memcpy(path, space ? space + 1 : data, len);
	struct route_match m;
	int rc = router_match(router, space ? method : "GET", path, len, &m);
	if (rc == 0) {
		FUZZ_CHECK(m.entry && (m.allowed & 1u << method_index(m.entry->route.method)));
		check_match(&m, path, len);
		decode_params(&m);
	} else {
		FUZZ_CHECK(!m.entry && (rc == HL_ENOENT || rc == HL_EINVAL));
		FUZZ_CHECK(rc == HL_ENOENT ? !m.allowed : m.allowed != 0);
	}
	request_end(&req);
	free(path);
	free(method);
	return 0;
}

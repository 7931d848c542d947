/* SPDX-License-Identifier: MIT */
/*
 * inbox.c: what a provider's hook hears, handed to the module that keeps
 * the messages (hl_receive, hl_report), and the server's public address
 * (hl_public_url) that providers are told to call back.
 *
 * A hook is a public route: its request has no sub-account. The inbox's
 * functions are written as handlers of a sub-account's requests (scoped
 * statements, events published for the request's sub-account), so the
 * call makes the request one of the sub-account the provider named.
 */
#include "platform/module.h"
#include "request/request.h"
#include "server.h"

#include <stdio.h>
#include <string.h>

static char public_url[512];

void inbox_set_public_url(const char *url)
{
	size_t n = url ? strlen(url) : 0;
	while (n && url[n - 1] == '/')
		n--;
	snprintf(public_url, sizeof(public_url), "%.*s", (int)n, n ? url : "");
}

HL_API const char *hl_public_url(void)
{
	return public_url;
}

/* Run fn(req, arg) as a request of sub-account `location`, which it
 * stays until its end: the audit of its writes, written after the
 * handler returns, names that sub-account. A hook hands over for one
 * sub-account only. */
static int as_location(struct hl_req *req, int64_t location, int (*fn)(struct hl_req *, const void *),
		       const void *arg)
{
	if (location <= 0 || (req->location_id && req->location_id != location))
		return HL_EINVAL;
	req->location_id = location;
	return fn(req, arg);
}

static const struct hl_inbox *inbox_of(struct hl_req *req)
{
	const struct hl_mod *owner;
	return modules_inbox(req->srv->modules, &owner);
}

static int call_receive(struct hl_req *req, const void *m)
{
	return inbox_of(req)->receive(req, m);
}

static int call_report(struct hl_req *req, const void *r)
{
	return inbox_of(req)->report(req, r);
}

static int nothing(struct hl_req *req, const void *arg)
{
	(void)req;
	(void)arg;
	return 0;
}

HL_API int hl_hook_location(struct hl_req *req, int64_t location)
{
	return as_location(req, location, nothing, NULL);
}

HL_API int hl_receive(struct hl_req *req, const struct hl_incoming *m)
{
	if (!inbox_of(req))
		return HL_ENOENT;
	/* read by the size its provider was built with: the members of a
	 * later minor (answers and files came in 1.20) read as zero */
	enum { GREW_IN = 20 };
	const struct route_entry *route = req->match.entry;
	int old = route && route->module && mod_abi_minor(route->module) < GREW_IN;
	struct hl_incoming copy = { 0 };
	memcpy(&copy, m, old ? HL_INCOMING_SIZE_1_18 : sizeof(copy));
	return as_location(req, copy.location_id, call_receive, &copy);
}

HL_API int hl_report(struct hl_req *req, const struct hl_report *r)
{
	if (!inbox_of(req))
		return HL_ENOENT;
	return as_location(req, r->location_id, call_report, r);
}

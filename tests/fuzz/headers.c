/* SPDX-License-Identifier: MIT */
/*
 * headers: the request headers the core parses itself. The input is up to
 * seven lines, each a header's value (a missing line: no such header):
 *   Cookie, Accept-Encoding, X-Location-Id, X-Forwarded-For, the peer's
 *   address, X-Forwarded-Proto, Authorization
 * The session cookie goes through civetweb's mg_get_cookie into the token
 * buffer auth.c gives it, then auth_token_hash; Accept-Encoding through
 * compress_choose; X-Location-Id through conf_int as auth.c reads it; and
 * X-Forwarded-For through auth_client / auth_client_key / auth_is_loopback /
 * auth_is_tls.
 * Those read the connection, so this file defines the two civetweb calls
 * they make (mg_get_header, mg_get_request_info) over the fuzzed lines:
 * the linker takes an executable's definition over the shared library's.
 */
#include "auth/auth.h"
#include "lib/compress.h"
#include "lib/conf.h"
#include "server.h"

#include <arpa/inet.h>
#include <civetweb.h>

#include "fuzz.h"

enum { COOKIE, ACCEPT_ENCODING, LOCATION, FORWARDED_FOR, PEER, PROTO, AUTHZ, LINES };

struct mg_connection {
	const char *line[LINES];
	struct mg_request_info info;
};

const struct mg_request_info *mg_get_request_info(const struct mg_connection *c)
{
	return &c->info;
}

const char *mg_get_header(const struct mg_connection *c, const char *name)
{
	static const char *const names[LINES] = { "Cookie", "Accept-Encoding", "X-Location-Id",
		"X-Forwarded-For", "", "X-Forwarded-Proto", "Authorization" };
	for (int i = 0; i < LINES; i++)
		if (*names[i] && !strcasecmp(name, names[i]))
			return c->line[i];
	return NULL;
}

static struct config cfg = { .trusted_proxies = "10.0.0.1, ::1" };
static struct server srv = { .cfg = &cfg };
static struct hl_req req;
static int ready;

/* The session token as identify() takes it: a buffer of TOKEN_TEXT, with
 * guard bytes behind it that civetweb must leave alone. */
static void session_cookie(const char *cookies)
{
	char token[TOKEN_TEXT + 16];
	unsigned char hash[32];
	memset(token, 0xA5, sizeof(token));
	int n = mg_get_cookie(cookies, SESSION_COOKIE, token, TOKEN_TEXT);
	for (size_t i = TOKEN_TEXT; i < sizeof(token); i++)
		FUZZ_CHECK((unsigned char)token[i] == 0xA5);
	FUZZ_CHECK(memchr(token, '\0', TOKEN_TEXT));
	if (n > 0) {
		FUZZ_CHECK((size_t)n == strlen(token));
		auth_token_hash(token, hash);
	}
}

static void location(const char *v)
{
	long long id;
	if (!conf_int(v, 1, INT64_MAX, &id))
		FUZZ_CHECK(id >= 1 && strspn(v, "0123456789") == strlen(v));
}

/* Whether key is the IPv4 address the IPv6 one addr maps, however addr
 * writes it ("::ffff:1.2.3.4" and "::ffff:102:304" are the same client). */
static int maps(const char *addr, const char *key)
{
	struct in6_addr a6;
	struct in_addr a4;
	return inet_pton(AF_INET6, addr, &a6) == 1 && IN6_IS_ADDR_V4MAPPED(&a6) &&
	       inet_pton(AF_INET, key, &a4) == 1 && !memcmp(&a6.s6_addr[12], &a4, 4);
}

static void client(struct mg_connection *c)
{
	const char *addr = auth_client(&req), *key = auth_client_key(&req);
	size_t n = key ? strlen(key) : 0;
	/* The address itself; an IPv6 one's /64, or the IPv4 one it maps. */
	FUZZ_CHECK(addr && key);
	FUZZ_CHECK(!strcmp(key, addr) || (n > 3 && !strcmp(key + n - 3, "/64") && strchr(addr, ':')) ||
		   maps(addr, key));
	auth_is_loopback(addr);
	if (addr != c->info.remote_addr) /* from the header: its last hop */
		FUZZ_CHECK(c->line[FORWARDED_FOR] && !strchr(addr, ',') && !strchr(addr, ' '));
	auth_is_tls(&req);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!ready) {
		request_init(&req, &srv);
		ready = 1;
	}
	char *text = fuzz_cstring(data, size);
	struct mg_connection c;
	memset(&c, 0, sizeof(c));
	char *p = text;
	for (int i = 0; i < LINES && p; i++) {
		c.line[i] = p;
		if ((p = strchr(p, '\n')))
			*p++ = '\0';
	}
	snprintf(c.info.remote_addr, sizeof(c.info.remote_addr), "%s",
		 c.line[PEER] ? c.line[PEER] : "127.0.0.1");
	request_begin(&req, &c, "GET", "/api/health", 11, NULL);
	if (c.line[COOKIE])
		session_cookie(c.line[COOKIE]);
	enum coding best = compress_choose(c.line[ACCEPT_ENCODING]);
	FUZZ_CHECK(compress_accepts(c.line[ACCEPT_ENCODING], best));
	if (c.line[LOCATION])
		location(c.line[LOCATION]);
	client(&c);
	request_end(&req);
	free(text);
	return 0;
}

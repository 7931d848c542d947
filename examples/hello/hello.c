/* SPDX-License-Identifier: MIT */
/*
 * hello.c: the smallest useful HyperLevel module, built outside the source
 * tree against the installed headers:
 *
 *   cc $(pkg-config --cflags hyperlevel) -fPIC -shared -o hello.so hello.c
 *
 * Copy hello.so into the modules folder (pkg-config --variable=moduledir
 * hyperlevel) and restart the server: GET /api/hello answers, and the
 * greeting comes from plugins.d/hello.conf (`greeting = ...`).
 *
 * Its page, webui/hello.js, is built into the web folder's modules/hello/
 * by the asset tool the server installs (content-hashed names, .br and .gz
 * copies, and the manifest through which the server finds the page):
 *
 *   $(pkg-config --variable=hl_assets hyperlevel) --base /modules/hello/ \
 *       --out "$(pkg-config --variable=webdir hyperlevel)/modules/hello" webui
 *
 * (copying hello.js there as it is works too, unhashed). After the
 * restart, signed-in users find "Hello" in the menu (GET /api/pages).
 */
#include <hyperlevel/hyperlevel.h>

static int hello(struct hl_req *req);

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/hello/:name", .handler = hello,
	  .access = HL_ACCESS_PUBLIC },
};

/* The page of webui/hello.js, in the menu of every signed-in user. */
static const struct hl_page pages[] = {
	{ .path = "/hello", .script = "hello.js", .label = "Hello", .access = HL_ACCESS_USER,
	  .order = 50 },
};

static const char *greeting;

static int init(struct hl_mod *mod)
{
	greeting = hl_setting(mod, "greeting", "Hello");
	return 0;
}

HL_MODULE(.name = "hello", .version = "1.0.0", .init = init,
	  .summary = "says hello: an example module",
	  .routes = HL_TABLE(routes), .pages = HL_TABLE(pages));

/* GET /api/hello/:name -> {"message": "Hello, NAME!"} */
static int hello(struct hl_req *req)
{
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	hl_json_key(j, "message");
	hl_json_string(j, hl_sprintf(req, "%s, %s!", greeting, hl_param(req, "name")));
	hl_json_object_end(j);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * http.h: serving HTTP: civetweb started and stopped (http.c), and the
 * web folder for paths no route has (static.c).
 */
#ifndef HL_HTTP_H
#define HL_HTTP_H

struct hl_req;
struct server;

/* Listen and serve on civetweb's worker threads. 0, or HL_EIO after
 * logging why (e.g. the port is taken). */
int http_start(struct server *s);
/* Stop accepting, let in-flight requests finish, join the workers. */
void http_stop(struct server *s);

/* Answer a GET/HEAD for a path no route has from the web folder (a 404
 * when there is no such file). */
void static_serve(struct hl_req *r);
/* Read what static_serve needs from the web folder once, at start: the
 * policy of the app's document (WEB/index.html.csp), and the map of pages
 * (pages_map) the document carries. A policy file that is not one line of
 * script-src and style-src is logged and left out. 0 or HL_ENOMEM. */
int static_load(struct server *s);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * takeover.h: taking a connection's socket away from civetweb (takeover.c).
 */
#ifndef HL_TAKEOVER_H
#define HL_TAKEOVER_H

#include <hyperlevel/hyperlevel.h>

struct mg_connection;

/* The socket of `conn`, now the caller's to use and close; civetweb goes
 * on with a stand-in it will close, so it must send nothing more on
 * `conn` (disable its keep-alive). HL_EIO when the socket cannot be found
 * for certain (logged once) or not duplicated. On the connection's worker
 * thread, inside a request or a WebSocket callback. */
int http_take_socket(struct mg_connection *conn);
/* Whether http_take_socket would find the socket: 0 or HL_EIO. */
int http_socket_check(struct mg_connection *conn);

#endif

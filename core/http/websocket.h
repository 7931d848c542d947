/* SPDX-License-Identifier: MIT */
/*
 * websocket.h: the frames of RFC 6455, as the live channel needs them:
 * the heads of the frames the server sends, and the checks and unmasking
 * of the frames a client sends. No sockets and no state: live.c reads and
 * writes, this file only says what the bytes mean.
 */
#ifndef HL_WEBSOCKET_H
#define HL_WEBSOCKET_H

#include <stddef.h>

enum ws_opcode {
	WS_CONTINUATION = 0x0,
	WS_TEXT = 0x1,
	WS_BINARY = 0x2,
	WS_CLOSE = 0x8,
	WS_PING = 0x9,
	WS_PONG = 0xA,
};

/* The close codes the server sends (RFC 6455 7.4.1; 4000-4999 are ours). */
enum ws_close_code {
	WS_CLOSE_NORMAL = 1000,
	WS_CLOSE_GOING_AWAY = 1001,    /* the server stops */
	WS_CLOSE_PROTOCOL = 1002,      /* a frame broke the protocol */
	WS_CLOSE_UNSUPPORTED = 1003,   /* a data frame: this stream only sends */
	WS_CLOSE_TOO_BIG = 1009,       /* a frame over the limit */
	WS_CLOSE_SIGNED_OUT = 4401,    /* the session or token ended */
	WS_CLOSE_NOT_ALLOWED = 4403,   /* nothing is left it may see */
};

#define WS_HEAD_MAX 10 /* the longest head of a server frame */

/* Write the head of an unmasked, final frame of `opcode` carrying `len`
 * payload bytes into `out`; returns its length (2, 4 or 10). */
size_t ws_head(unsigned char out[WS_HEAD_MAX], enum ws_opcode opcode, size_t len);

/* One client frame, as ws_parse found it. */
struct ws_frame {
	int fin;
	enum ws_opcode opcode;
	unsigned char *payload; /* unmasked in place, inside the parsed bytes */
	size_t len;
};

/* What ws_parse says of the bytes it was given. */
enum {
	WS_MORE = 0,            /* not a whole frame yet: read more */
	WS_EPROTOCOL = -1,      /* not a client frame of RFC 6455 */
	WS_ETOOBIG = -2,        /* a payload over `max` */
};

/* Parse the frame at the start of `p` (`n` bytes). Client frames must be
 * masked, carry no reserved bits and a known opcode; control frames must
 * be final and at most 125 bytes. Returns the frame's whole length (head
 * and payload, > 0) with `f` filled and the payload unmasked in place;
 * WS_MORE; WS_EPROTOCOL; or WS_ETOOBIG for a payload longer than `max`
 * (known from the head alone). */
long ws_parse(unsigned char *p, size_t n, size_t max, struct ws_frame *f);

#endif

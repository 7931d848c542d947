/* SPDX-License-Identifier: MIT */
/*
 * Tests core/http/websocket.c: the heads of the frames the server sends, and
 * the client frames it takes, refuses, or waits to see whole.
 */
#include "http/websocket.h"

#include <hyperlevel/hyperlevel.h>

#include <string.h>

#include "../test.h"

/* A masked client frame of `op` with `len` bytes of `fill` into `out`
 * (the head written long as `width` says: 0 the shortest, 2 or 8). */
static size_t client_frame(unsigned char *out, int fin, int op, size_t len, int width, char fill)
{
	static const unsigned char mask[4] = { 0x12, 0x34, 0x56, 0x78 };
	size_t n = 0;
	out[n++] = (unsigned char)((fin ? 0x80 : 0) | op);
	if (!width && len < 126) {
		out[n++] = (unsigned char)(0x80 | len);
	} else if (width == 2 || (!width && len <= 0xFFFF)) {
		out[n++] = 0x80 | 126;
		out[n++] = (unsigned char)(len >> 8);
		out[n++] = (unsigned char)len;
	} else {
		out[n++] = 0x80 | 127;
		for (int i = 0; i < 8; i++)
			out[n++] = (unsigned char)((unsigned long long)len >> (56 - 8 * i));
	}
	memcpy(out + n, mask, 4);
	n += 4;
	for (size_t i = 0; i < len; i++)
		out[n + i] = (unsigned char)(fill ^ mask[i & 3]);
	return n + len;
}

static void heads_take_the_shortest_length(void)
{
	unsigned char h[WS_HEAD_MAX];
	CHECK_INT(ws_head(h, WS_TEXT, 0), 2);
	CHECK_INT(h[0], 0x81);
	CHECK_INT(h[1], 0);
	CHECK_INT(ws_head(h, WS_TEXT, 125), 2);
	CHECK_INT(h[1], 125);
	CHECK_INT(ws_head(h, WS_PING, 126), 4);
	CHECK_INT(h[0], 0x89);
	CHECK_INT(h[1], 126);
	CHECK_INT(h[2] << 8 | h[3], 126);
	CHECK_INT(ws_head(h, WS_TEXT, 65535), 4);
	CHECK_INT(h[2] << 8 | h[3], 65535);
	CHECK_INT(ws_head(h, WS_CLOSE, 65536), 10);
	CHECK_INT(h[0], 0x88);
	CHECK_INT(h[1], 127);
	CHECK_INT(h[7], 1);
	CHECK_INT(h[8] | h[9], 0);
}

static void a_client_frame_is_unmasked_in_place(void)
{
	unsigned char p[200];
	struct ws_frame f;
	size_t n = client_frame(p, 1, WS_PING, 5, 0, 'x');
	CHECK_INT(ws_parse(p, n, 100, &f), (long)n);
	CHECK_INT(f.opcode, WS_PING);
	CHECK_INT(f.fin, 1);
	CHECK_INT(f.len, 5);
	CHECK(!memcmp(f.payload, "xxxxx", 5));
	/* a longer length field for a short frame is still a frame */
	n = client_frame(p, 1, WS_TEXT, 3, 8, 'y');
	CHECK_INT(ws_parse(p, n, 100, &f), (long)n);
	CHECK_INT(f.len, 3);
	CHECK(!memcmp(f.payload, "yyy", 3));
}

static void a_partial_frame_asks_for_more_at_every_byte(void)
{
	unsigned char p[200];
	struct ws_frame f;
	size_t n = client_frame(p, 1, WS_TEXT, 130, 0, 'z');
	for (size_t k = 0; k < n; k++) {
		unsigned char copy[200];
		memcpy(copy, p, n);
		CHECK_INT(ws_parse(copy, k, 1000, &f), WS_MORE);
	}
	CHECK_INT(ws_parse(p, n, 1000, &f), (long)n);
	CHECK_INT(f.len, 130);
}

static void what_breaks_the_protocol_is_refused(void)
{
	unsigned char p[300];
	struct ws_frame f;
	size_t n = client_frame(p, 1, WS_TEXT, 4, 0, 'a');
	p[1] &= 0x7F; /* unmasked */
	CHECK_INT(ws_parse(p, n, 100, &f), WS_EPROTOCOL);
	n = client_frame(p, 1, WS_TEXT, 4, 0, 'a');
	p[0] |= 0x40; /* a reserved bit */
	CHECK_INT(ws_parse(p, n, 100, &f), WS_EPROTOCOL);
	n = client_frame(p, 1, 0x3, 4, 0, 'a'); /* an opcode of no meaning */
	CHECK_INT(ws_parse(p, n, 100, &f), WS_EPROTOCOL);
	n = client_frame(p, 1, 0xB, 0, 0, 'a');
	CHECK_INT(ws_parse(p, n, 100, &f), WS_EPROTOCOL);
	n = client_frame(p, 0, WS_PING, 4, 0, 'a'); /* a control frame in pieces */
	CHECK_INT(ws_parse(p, n, 100, &f), WS_EPROTOCOL);
	n = client_frame(p, 1, WS_CLOSE, 126, 0, 'a'); /* a control frame too long */
	CHECK_INT(ws_parse(p, n, 1000, &f), WS_EPROTOCOL);
	/* a 64-bit length with its top bit set */
	n = client_frame(p, 1, WS_TEXT, 0, 8, 'a');
	p[2] = 0x80;
	CHECK_INT(ws_parse(p, n, 100, &f), WS_EPROTOCOL);
}

static void a_frame_over_the_limit_is_known_from_its_head(void)
{
	unsigned char p[16];
	struct ws_frame f;
	/* only the head: 70,000 bytes are announced, none sent */
	client_frame(p, 1, WS_TEXT, 0, 8, 'a');
	p[7] = 0x01, p[8] = 0x11, p[9] = 0x70;
	CHECK_INT(ws_parse(p, 14, 242, &f), WS_ETOOBIG);
	client_frame(p, 1, WS_BINARY, 0, 2, 'a');
	p[2] = 0x01, p[3] = 0x00; /* 256 */
	CHECK_INT(ws_parse(p, 8, 242, &f), WS_ETOOBIG);
}

TEST_MAIN(heads_take_the_shortest_length,
	  a_client_frame_is_unmasked_in_place,
	  a_partial_frame_asks_for_more_at_every_byte,
	  what_breaks_the_protocol_is_refused,
	  a_frame_over_the_limit_is_known_from_its_head)

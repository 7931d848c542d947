/* SPDX-License-Identifier: MIT */
/*
 * websocket.c: frame heads and client frames of RFC 6455 (websocket.h).
 */
#include "http/websocket.h"

#include <stdint.h>

size_t ws_head(unsigned char out[WS_HEAD_MAX], enum ws_opcode opcode, size_t len)
{
	out[0] = (unsigned char)(0x80 | opcode);
	if (len < 126) {
		out[1] = (unsigned char)len;
		return 2;
	}
	if (len <= 0xFFFF) {
		out[1] = 126;
		out[2] = (unsigned char)(len >> 8);
		out[3] = (unsigned char)len;
		return 4;
	}
	out[1] = 127;
	for (int i = 0; i < 8; i++)
		out[2 + i] = (unsigned char)((uint64_t)len >> (56 - 8 * i));
	return 10;
}

static int is_known(unsigned op)
{
	return op <= WS_BINARY || (op >= WS_CLOSE && op <= WS_PONG);
}

long ws_parse(unsigned char *p, size_t n, size_t max, struct ws_frame *f)
{
	if (n < 2)
		return WS_MORE;
	unsigned op = p[0] & 0x0F;
	int fin = p[0] >> 7, masked = p[1] >> 7;
	if ((p[0] & 0x70) || !masked || !is_known(op))
		return WS_EPROTOCOL;
	uint64_t len = p[1] & 0x7F;
	size_t head = 2;
	if (len == 126) {
		if (n < 4)
			return WS_MORE;
		len = (uint64_t)p[2] << 8 | p[3];
		head = 4;
	} else if (len == 127) {
		if (n < 10)
			return WS_MORE;
		len = 0;
		for (int i = 0; i < 8; i++)
			len = len << 8 | p[2 + i];
		if (len >> 63)
			return WS_EPROTOCOL;
		head = 10;
	}
	if (op >= WS_CLOSE && (!fin || len > 125))
		return WS_EPROTOCOL;
	if (len > max)
		return WS_ETOOBIG;
	if (n < head + 4 + len)
		return WS_MORE;
	const unsigned char *mask = p + head;
	unsigned char *payload = p + head + 4;
	for (size_t i = 0; i < len; i++)
		payload[i] ^= mask[i & 3];
	*f = (struct ws_frame){ .fin = fin, .opcode = (enum ws_opcode)op, .payload = payload,
				.len = (size_t)len };
	return (long)(head + 4 + len);
}

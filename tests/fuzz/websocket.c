/* SPDX-License-Identifier: MIT */
/*
 * websocket: the client frames of the live channel (core/http/websocket.c).
 * Any bytes are read as live.c reads a client: frames taken from the front
 * of a 256-byte window, a partial one kept for more. What ws_parse accepts
 * must lie inside the bytes it was given and keep RFC 6455's rules for
 * control frames; anything else must be a refusal or a wait.
 */
#include "http/websocket.h"

#include "fuzz.h"

#define WINDOW 256
#define MAX (WINDOW - 14)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *p = malloc(size ? size : 1); /* its own, so a read past it is seen */
	memcpy(p, data, size);
	size_t at = 0;
	for (;;) {
		size_t n = size - at < WINDOW ? size - at : WINDOW;
		struct ws_frame f;
		long k = ws_parse(p + at, n, MAX, &f);
		if (k == WS_MORE || k == WS_EPROTOCOL || k == WS_ETOOBIG)
			break;
		FUZZ_CHECK(k > 0 && (size_t)k <= n);
		FUZZ_CHECK(f.len <= MAX && f.payload >= p + at + 6 && f.payload + f.len == p + at + k);
		FUZZ_CHECK(f.opcode <= WS_BINARY || (f.opcode >= WS_CLOSE && f.opcode <= WS_PONG));
		if (f.opcode >= WS_CLOSE)
			FUZZ_CHECK(f.fin && f.len <= 125);
		at += (size_t)k;
	}
	free(p);
	return 0;
}

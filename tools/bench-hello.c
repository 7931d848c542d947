/* SPDX-License-Identifier: MIT */
/*
 * bench-hello.c: the smallest civetweb server answering like ours (keep-
 * alive, no Nagle, the whole answer in one write), as the baseline the
 * benchmarks compare the server's own answers with.
 *
 *   bench-hello PORT
 */
#include <civetweb.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int hello(struct mg_connection *conn, void *data)
{
	static const char answer[] =
		"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
		"Content-Length: 17\r\n\r\n{\"hello\":\"world\"}";
	(void)data;
	mg_write(conn, answer, sizeof(answer) - 1);
	return 200;
}

int main(int argc, char **argv)
{
	char listen[64];
	if (argc != 2) {
		fprintf(stderr, "usage: bench-hello PORT\n");
		return 2;
	}
	snprintf(listen, sizeof(listen), "127.0.0.1:%s", argv[1]);
	const char *options[] = { "listening_ports", listen, "num_threads", "128",
				  "enable_keep_alive", "yes", "tcp_nodelay", "1", NULL };
	struct mg_callbacks cb;
	memset(&cb, 0, sizeof(cb));
	struct mg_context *ctx = mg_start(&cb, NULL, options);
	if (!ctx) {
		fprintf(stderr, "bench-hello: cannot listen on %s\n", listen);
		return 1;
	}
	mg_set_request_handler(ctx, "/", hello, NULL);
	sigset_t set;
	int sig;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigwait(&set, &sig);
	mg_stop(ctx);
	return 0;
}

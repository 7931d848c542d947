/* SPDX-License-Identifier: MIT */
/*
 * takeover.c: taking a connection's socket away from civetweb, so that a
 * live client is served by the live channel's one thread instead of
 * holding an HTTP worker for as long as it stays (civetweb keeps a worker
 * per connection, WebSockets included).
 *
 * civetweb 1.15 has no call that gives a connection's socket, so its place
 * is read from the layout of struct mg_connection (its first members up to
 * `client.sock`, mirrored below) and then checked: the descriptor found
 * there must be a TCP socket whose two ends are the request's own
 * addresses and ports. When civetweb's layout changes the check fails,
 * the caller answers 503 and logs once; it never takes a wrong socket.
 *
 * The socket is then duplicated for the caller, and civetweb's descriptor
 * is pointed at a fresh unconnected socket: civetweb goes on to shut down
 * and close that one, which leaves the client's connection open.
 */
#include "http/takeover.h"
#include "lib/log.h"

#include <arpa/inet.h>
#include <civetweb.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The start of civetweb 1.15's struct mg_connection, as Debian builds it
 * (no HTTP/2, no server statistics). */
struct civetweb_connection_start {
	int connection_type, protocol_type, request_state;
	struct mg_request_info request_info;
	struct mg_response_info response_info;
	void *phys_ctx, *dom_ctx, *ssl;
	int sock; /* struct socket's first member */
};

static int port_of(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)a)->sin_port);
	if (a->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)a)->sin6_port);
	return -1;
}

/* Whether `fd` is the TCP connection the request came on: 1, 0, or -1
 * when it is a socket whose client has already gone. */
static int is_the_connection(int fd, const struct mg_request_info *ri)
{
	struct sockaddr_storage peer, self;
	socklen_t plen = sizeof(peer), slen = sizeof(self);
	char addr[INET6_ADDRSTRLEN];
	if (fd < 0 || getsockname(fd, (struct sockaddr *)&self, &slen))
		return 0;
	if (getpeername(fd, (struct sockaddr *)&peer, &plen))
		return errno == ENOTCONN && port_of(&self) == ri->server_port ? -1 : 0;
	const void *in = peer.ss_family == AF_INET
		? (const void *)&((struct sockaddr_in *)&peer)->sin_addr
		: (const void *)&((struct sockaddr_in6 *)&peer)->sin6_addr;
	return port_of(&peer) == ri->remote_port && port_of(&self) == ri->server_port &&
	       inet_ntop(peer.ss_family, in, addr, sizeof(addr)) && !strcmp(addr, ri->remote_addr);
}

/* The socket of `conn`, found for certain, or HL_EIO (logged once). */
static int socket_of(struct mg_connection *conn)
{
	static atomic_int complained;
	const struct mg_request_info *ri = mg_get_request_info(conn);
	int fd = ((const struct civetweb_connection_start *)(const void *)conn)->sock;
	int found = ri->is_ssl ? 0 : is_the_connection(fd, ri);
	if (found < 0)
		return HL_EIO; /* the client left: nothing to say */
	if (!found) {
		if (!atomic_exchange(&complained, 1))
			log_error("live: cannot take a connection from this civetweb (%s); live"
				  " updates are off", ri->is_ssl ? "TLS in civetweb" : "its layout changed");
		return HL_EIO;
	}
	return fd;
}

int http_socket_check(struct mg_connection *conn)
{
	return socket_of(conn) < 0 ? HL_EIO : 0;
}

int http_take_socket(struct mg_connection *conn)
{
	int fd = socket_of(conn);
	if (fd < 0)
		return fd;
	int mine = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	int stand_in = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (mine < 0 || stand_in < 0 || dup3(stand_in, fd, O_CLOEXEC) < 0) {
		if (mine >= 0)
			close(mine);
		if (stand_in >= 0)
			close(stand_in);
		return HL_EIO;
	}
	close(stand_in);
	return mine;
}

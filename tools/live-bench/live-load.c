/* SPDX-License-Identifier: MIT */
/*
 * live-load: the load side of live-bench (live-bench.py starts the server
 * and reads what this prints). Three modes, each printing one JSON line:
 *
 *   live-load stream PORT COOKIE LOCATION CLIENTS PUBLISHERS SECONDS BATCH RATE
 *       CLIENTS WebSockets on /api/live, read by one thread with epoll;
 *       PUBLISHERS threads POST batches of BATCH events to the events_probe
 *       test module for SECONDS, RATE events a second in all (paced by the
 *       clock, not by the answers), each event carrying the time its
 *       request was written. Messages are counted where they arrive, at the
 *       clients, never at the sender; latency is from the publisher's
 *       request to the client's read.
 *   live-load hold PORT COOKIE LOCATION CLIENTS
 *       opens CLIENTS WebSockets, prints when they are all open, keeps them
 *       idle until its standard input closes.
 *   live-load get PORT COOKIE LOCATION CLIENTS SECONDS PATH
 *       CLIENTS keep-alive connections GET PATH for SECONDS: p50 and p95.
 *
 * Latencies go into a histogram of 1 us buckets up to 100 ms (slower
 * ones in the last), so a percentile costs no sort and no allocation.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BUCKETS 100000 /* 1 us each */
#define READ_BUF (256 * 1024)

static int port;
static const char *cookie;
static long long location;

struct histogram {
	long long n[BUCKETS];
	long long count;
};

static long long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void die(const char *what)
{
	fprintf(stderr, "live-load: %s: %s\n", what, errno ? strerror(errno) : "failed");
	exit(1);
}

static void record(struct histogram *h, long long us)
{
	h->n[us < 0 ? 0 : us >= BUCKETS ? BUCKETS - 1 : us]++;
	h->count++;
}

static long long percentile(const struct histogram *h, double p)
{
	long long want = (long long)(h->count * p), seen = 0;
	for (int i = 0; i < BUCKETS; i++)
		if ((seen += h->n[i]) > want)
			return i;
	return BUCKETS - 1;
}

/* ---- connections ----------------------------------------------------------- */

static int connect_local(void)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)))
		die("connecting to the server");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static void send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
		if (k <= 0)
			die("sending");
		p += k;
		n -= (size_t)k;
	}
}

/* Read an HTTP head into buf (its body's first bytes may follow); returns
 * the status, with *head_len and *got set. */
static int read_head(int fd, char *buf, size_t cap, size_t *head_len, size_t *got)
{
	*got = 0;
	for (;;) {
		ssize_t k = recv(fd, buf + *got, cap - 1 - *got, 0);
		if (k <= 0)
			die("reading an answer");
		*got += (size_t)k;
		buf[*got] = '\0';
		char *end = strstr(buf, "\r\n\r\n");
		if (end) {
			*head_len = (size_t)(end + 4 - buf);
			return atoi(buf + 9);
		}
		if (*got == cap - 1)
			die("an answer's head too long");
	}
}

/* Read a whole answer (its body by its Content-Length) into buf, which
 * is used again for the body's later pieces; returns its status. */
static int read_answer(int fd, char *buf, size_t cap)
{
	size_t head, got;
	int status = read_head(fd, buf, cap, &head, &got);
	const char *cl = strcasestr(buf, "Content-Length:");
	size_t want = cl ? (size_t)atol(cl + 15) : 0;
	while (got - head < want) {
		ssize_t k = recv(fd, buf, cap, 0);
		if (k <= 0)
			die("reading an answer");
		got += (size_t)k;
	}
	return status;
}

static int open_websocket(void)
{
	char req[1024], buf[4096];
	size_t head, got;
	int fd = connect_local();
	int n = snprintf(req, sizeof(req),
		"GET /api/live?location_id=%lld HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
		"Upgrade: websocket\r\nConnection: Upgrade\r\n"
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
		"Cookie: %s\r\n\r\n", location, port, cookie);
	send_all(fd, req, (size_t)n);
	int status = read_head(fd, buf, sizeof(buf), &head, &got);
	if (status != 101) {
		fprintf(stderr, "live-load: /api/live answered %d: %s\n", status, buf);
		exit(1);
	}
	/* What follows the head (the hello) is read with the rest. */
	return fd;
}

/* ---- the clients' side ---------------------------------------------------------- */

struct client {
	int fd;
	size_t len;
	unsigned char *buf;
};

struct receivers {
	struct client *c;
	int n;
	struct histogram lat;
	_Atomic long long messages;
	_Atomic long long last_us;
	_Atomic int stop;
	int closed;
};

/* The "t" of an event's data: the publisher's clock when it sent it. */
static long long sent_at(const unsigned char *p, size_t n)
{
	const char *t = memmem(p, n, "\"t\":", 4);
	return t ? strtoll(t + 4, NULL, 10) : -1;
}

/* Take the whole frames in c->buf; returns 0, or -1 when the server closed. */
static int take_frames(struct receivers *r, struct client *c, long long now)
{
	size_t at = 0;
	while (c->len - at >= 2) {
		unsigned char *p = c->buf + at;
		size_t n = p[1] & 0x7F, head = 2;
		if (n == 126) {
			if (c->len - at < 4)
				break;
			n = (size_t)p[2] << 8 | p[3];
			head = 4;
		} else if (n == 127) {
			if (c->len - at < 10)
				break;
			n = 0;
			for (int i = 0; i < 8; i++)
				n = n << 8 | p[2 + i];
			head = 10;
		}
		if (c->len - at < head + n)
			break;
		int op = p[0] & 0x0F;
		if (op == 0x8)
			return -1;
		long long t = op == 0x1 ? sent_at(p + head, n) : -1;
		if (t > 0) {
			record(&r->lat, now - t);
			r->messages++;
		}
		at += head + n;
	}
	memmove(c->buf, c->buf + at, c->len - at);
	c->len -= at;
	return 0;
}

static void *receive(void *arg)
{
	struct receivers *r = arg;
	int ep = epoll_create1(EPOLL_CLOEXEC);
	for (int i = 0; i < r->n; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &r->c[i] };
		epoll_ctl(ep, EPOLL_CTL_ADD, r->c[i].fd, &ev);
	}
	struct epoll_event evs[256];
	while (!r->stop) {
		int k = epoll_wait(ep, evs, 256, 50);
		long long now = now_us();
		for (int i = 0; i < k; i++) {
			struct client *c = evs[i].data.ptr;
			ssize_t got = recv(c->fd, c->buf + c->len, READ_BUF - c->len, MSG_DONTWAIT);
			if (got < 0 && errno == EAGAIN)
				continue;
			if (got > 0)
				c->len += (size_t)got;
			if (got <= 0 || take_frames(r, c, now)) {
				epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
				r->closed++;
			}
		}
		if (k > 0)
			r->last_us = now;
	}
	close(ep);
	return NULL;
}

/* ---- the publishers' side ----------------------------------------------------------- */

struct publisher {
	pthread_t thread;
	int batch;
	long long start_us, until_us;
	long long every_us; /* between two batches */
	long long events;
};

static void *publish(void *arg)
{
	struct publisher *p = arg;
	int fd = connect_local();
	size_t cap = 256 + (size_t)p->batch * 64;
	char *body = malloc(cap), *req = malloc(cap + 512), buf[4096];
	if (!body || !req)
		die("memory");
	for (long long next = p->start_us; next < p->until_us; next += p->every_us) {
		long long wait = next - now_us();
		if (wait > 0)
			usleep((useconds_t)wait);
		size_t n = (size_t)snprintf(body, cap, "{\"write\":false,\"events\":[");
		long long t = now_us();
		for (int i = 0; i < p->batch; i++)
			n += (size_t)snprintf(body + n, cap - n,
				"%s{\"name\":\"bench.tick\",\"data\":\"{\\\"t\\\":%lld}\"}", i ? "," : "", t);
		n += (size_t)snprintf(body + n, cap - n, "]}");
		int m = snprintf(req, cap + 512,
			"POST /api/events_probe/publish HTTP/1.1\r\nHost: 127.0.0.1\r\n"
			"Content-Type: application/json\r\nX-Location-Id: %lld\r\nCookie: %s\r\n"
			"Content-Length: %zu\r\n\r\n%s", location, cookie, n, body);
		send_all(fd, req, (size_t)m);
		int status = read_answer(fd, buf, sizeof(buf));
		if (status != 201) {
			fprintf(stderr, "live-load: publishing answered %d\n", status);
			exit(1);
		}
		p->events += p->batch;
	}
	close(fd);
	free(body);
	free(req);
	return NULL;
}

static int stream(int clients, int publishers, double seconds, int batch, double rate)
{
	struct receivers *r = calloc(1, sizeof(*r));
	struct publisher *pub = calloc((size_t)publishers, sizeof(*pub));
	if (!r || !pub || !(r->c = calloc((size_t)clients, sizeof(*r->c))))
		die("memory");
	r->n = clients;
	for (int i = 0; i < clients; i++) {
		r->c[i].fd = open_websocket();
		if (!(r->c[i].buf = malloc(READ_BUF)))
			die("memory");
	}
	pthread_t reader;
	pthread_create(&reader, NULL, receive, r);
	usleep(200 * 1000); /* the hellos */
	long long start = now_us(), until = start + (long long)(seconds * 1e6);
	for (int i = 0; i < publishers; i++) {
		pub[i].batch = batch;
		pub[i].until_us = until;
		/* Publishers take turns: each sends a batch every `every`, the
		 * next one a share of that later. */
		pub[i].every_us = (long long)(1e6 * batch * publishers / rate);
		pub[i].start_us = start + pub[i].every_us * i / publishers;
		pthread_create(&pub[i].thread, NULL, publish, &pub[i]);
	}
	long long published = 0;
	for (int i = 0; i < publishers; i++) {
		pthread_join(pub[i].thread, NULL);
		published += pub[i].events;
	}
	/* Wait for the last messages: every client's, or two quiet seconds. */
	long long expected = published * clients;
	while (r->messages < expected && now_us() - r->last_us < 2000000)
		usleep(10 * 1000);
	r->stop = 1;
	pthread_join(reader, NULL);
	double elapsed = (double)(r->last_us - start) / 1e6;
	printf("{\"clients\":%d,\"publishers\":%d,\"batch\":%d,\"rate\":%.0f,\"seconds\":%.3f,"
	       "\"published\":%lld,\"delivered\":%lld,\"expected\":%lld,\"per_second\":%.0f,"
	       "\"p50_us\":%lld,\"p99_us\":%lld,\"closed\":%d}\n", clients, publishers, batch,
	       rate, elapsed, published, (long long)r->messages, expected,
	       (double)r->messages / elapsed, percentile(&r->lat, 0.50), percentile(&r->lat, 0.99),
	       r->closed);
	return r->messages == expected && !r->closed ? 0 : 1;
}

/* ---- idle clients, and the API beside them ------------------------------------------------- */

static int hold(int clients)
{
	int *fds = malloc((size_t)clients * sizeof(*fds));
	char sink[256];
	if (!fds)
		die("memory");
	for (int i = 0; i < clients; i++)
		fds[i] = open_websocket();
	/* Read the hellos, as a browser would: nothing waits in a buffer. */
	usleep(500 * 1000);
	for (int i = 0; i < clients; i++)
		while (recv(fds[i], sink, sizeof(sink), MSG_DONTWAIT) > 0)
			;
	printf("{\"open\":%d}\n", clients);
	fflush(stdout);
	while (read(0, sink, sizeof(sink)) > 0)
		;
	for (int i = 0; i < clients; i++)
		close(fds[i]);
	free(fds);
	return 0;
}

struct getter {
	pthread_t thread;
	const char *path;
	long long until_us;
	struct histogram *lat;
	long long errors;
};

static void *get_loop(void *arg)
{
	struct getter *g = arg;
	char req[1024], buf[65536];
	int fd = connect_local();
	int n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: %s\r\n"
			 "X-Location-Id: %lld\r\nAccept-Encoding: br\r\n\r\n", g->path, cookie, location);
	while (now_us() < g->until_us) {
		long long t = now_us();
		send_all(fd, req, (size_t)n);
		if (read_answer(fd, buf, sizeof(buf)) != 200)
			g->errors++;
		record(g->lat, now_us() - t);
	}
	close(fd);
	return NULL;
}

static int get(int clients, double seconds, const char *path)
{
	struct getter *g = calloc((size_t)clients, sizeof(*g));
	struct histogram *all = calloc(1, sizeof(*all));
	if (!g || !all)
		die("memory");
	long long until = now_us() + (long long)(seconds * 1e6), errors = 0;
	for (int i = 0; i < clients; i++) {
		g[i] = (struct getter){ .path = path, .until_us = until, .lat = calloc(1, sizeof(*all)) };
		if (!g[i].lat)
			die("memory");
		pthread_create(&g[i].thread, NULL, get_loop, &g[i]);
	}
	for (int i = 0; i < clients; i++) {
		pthread_join(g[i].thread, NULL);
		for (int b = 0; b < BUCKETS; b++)
			all->n[b] += g[i].lat->n[b];
		all->count += g[i].lat->count;
		errors += g[i].errors;
	}
	printf("{\"path\":\"%s\",\"clients\":%d,\"requests\":%lld,\"per_second\":%.0f,"
	       "\"p50_us\":%lld,\"p95_us\":%lld,\"errors\":%lld}\n", path, clients, all->count,
	       (double)all->count / seconds, percentile(all, 0.50), percentile(all, 0.95), errors);
	return errors ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 6) {
		fprintf(stderr, "usage: live-load stream|hold|get PORT COOKIE LOCATION CLIENTS ...\n"
				"(see the comment at the top of live-load.c; live-bench runs it)\n");
		return 2;
	}
	port = atoi(argv[2]);
	cookie = argv[3];
	location = atoll(argv[4]);
	int clients = atoi(argv[5]);
	if (!strcmp(argv[1], "stream") && argc == 10 && atof(argv[9]) > 0)
		return stream(clients, atoi(argv[6]), atof(argv[7]), atoi(argv[8]), atof(argv[9]));
	if (!strcmp(argv[1], "hold") && argc == 6)
		return hold(clients);
	if (!strcmp(argv[1], "get") && argc == 8)
		return get(clients, atof(argv[6]), argv[7]);
	fprintf(stderr, "live-load: unknown mode or wrong number of arguments\n");
	return 2;
}

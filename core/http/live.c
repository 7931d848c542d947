/* SPDX-License-Identifier: MIT */
/*
 * live.c: the live channel's connections and the one thread that serves
 * them all with epoll (live.h says how the parts fit).
 *
 * Publishers never wait for a client: live_publish only numbers the event
 * into the ring and wakes the thread. The thread then fans each new event
 * out to the connections of its location (a table from location to its
 * listeners; an event for one person, notify.c's, to that person's
 * connections), appending the frame to each one's outbound queue: a buffer
 * read by index (`sent`), never shifted, and emptied when all of it has
 * left. Whatever waits for a connection leaves in one send. A connection
 * whose queue holds more than live_backlog_kb is cut off; the others do
 * not notice.
 *
 * Everything below the ring is owned by the thread: no locks, except the
 * hand-over of new connections and of changes of rights (`incoming` and
 * `recheck`, under `lock`) and the places each user and address holds
 * (`holders`, a tally with a lock of its own, which HTTP threads take
 * from).
 *
 * A connection HELD (live.h) is sent nothing until check_conn has read
 * its rights again; `nheld` counts them. A new one is held from its
 * adoption, greeted only once checked: a change of rights made between
 * its request's admission and its adoption would otherwise go unseen.
 */
#include "http/live.h"
#include "auth/auth.h"
#include "http/live_ring.h"
#include "http/websocket.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/tally.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define IN_MAX 256            /* a client's unread bytes: control frames only */
#define READS_PER_TURN 16     /* a client that sends without end waits its turn */
#define TICK_US 1000000LL     /* pings, dead peers, sessions: once a second */
#define CHECKS_PER_TICK 200   /* sessions re-checked in one tick, at most */
#define SEND_BUFFER (64 * 1024) /* the kernel's part of a connection's backlog */
#define KEEP_SPARE 4096       /* an emptied queue keeps this much memory */
#define RECHECKS_MAX 256      /* changes of rights waiting; more: check everyone */
#define HELD_CHECKS_PER_TURN 256 /* the rest wait, held, for the next turn */
#define HELD_RETRY_MS 2       /* how soon a turn with connections held comes again */

struct conn {
	int fd;
	enum live_kind kind;
	struct identity who;
	int64_t *locations;
	int nlocations;
	int64_t one_location;    /* `locations` for the usual single one */
	uint64_t since;          /* what the client has: sent what follows (kept
	                          * up to date only while held) */
	char address[64];        /* its live_per_address key, or "" */
	int held;                /* HELD (live.h): sent nothing until checked */
	int greeted;             /* caught up and sent its "hello" */
	struct buf out;          /* the outbound queue, read from `sent` */
	size_t sent;
	unsigned char in[IN_MAX];
	size_t in_len;
	long long last_out_us, last_in_us, ping_us, checked_us;
	int writable_wait;       /* EPOLLOUT armed */
	int queued;              /* on the dirty list */
	int closing;             /* on the closing list */
	int index;               /* in live->conns */
	struct conn *next;       /* incoming, dirty or closing list */
};

struct listeners {
	int64_t location;        /* 0: a free slot */
	struct conn **v;
	int n, cap;
};

struct live {
	const struct config *cfg;
	struct db *db;
	struct live_ring ring;
	int epfd, wakefd;
	pthread_t thread;
	int started;
	pthread_mutex_t lock;
	struct conn *incoming;   /* under lock */
	struct { int64_t user, location; } recheck[RECHECKS_MAX]; /* under lock */
	int nrecheck;            /* under lock */
	int recheck_all;         /* under lock: more changes came than fit */
	_Atomic int places;      /* reserved or open connections */
	struct tally *holders;   /* places held per user and per address */
	_Atomic int stopping;
	/* the thread's own */
	struct conn **conns;
	int nconns, cap;
	struct listeners *table; /* open addressing by location */
	size_t table_cap;
	uint64_t cursor;         /* the next event to fan out */
	struct conn *dirty, *closing;
	long long next_tick_us;
	int check_from;          /* where the session checks go on */
	long long dropped_seen;  /* the ring's drops already told */
	int nheld;               /* connections HELD */
	int64_t kept[LIVE_LOCATIONS_MAX]; /* check_conn's answer */
	_Atomic long long opened, frames, bytes, slow, signed_out, rechecked, refused;
};

/* ---- the table of listeners -------------------------------------------------- */

static struct listeners *slot_of(struct live *l, int64_t location, int add)
{
	if (!l->table_cap)
		return NULL;
	size_t mask = l->table_cap - 1;
	for (size_t i = (size_t)location * 0x9E3779B97F4A7C15ull & mask;; i = (i + 1) & mask) {
		struct listeners *s = &l->table[i];
		if (s->location == location)
			return s;
		if (!s->location) {
			if (add)
				s->location = location;
			return add ? s : NULL;
		}
	}
}

/* Room for one more location in the table (kept at most half full, so a
 * probe ends soon). Locations are never removed: there are few. */
static int table_room(struct live *l, size_t used)
{
	if ((used + 1) * 2 <= l->table_cap)
		return 0;
	size_t cap = l->table_cap ? l->table_cap * 2 : 64;
	struct listeners *old = l->table, *t = calloc(cap, sizeof(*t));
	size_t old_cap = l->table_cap;
	if (!t)
		return HL_ENOMEM;
	l->table = t;
	l->table_cap = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].location)
			*slot_of(l, old[i].location, 1) = old[i];
	free(old);
	return 0;
}

static size_t table_used(const struct live *l)
{
	size_t n = 0;
	for (size_t i = 0; i < l->table_cap; i++)
		n += l->table[i].location != 0;
	return n;
}

static int listen_to(struct live *l, struct conn *c, int64_t location)
{
	if (!slot_of(l, location, 0) && table_room(l, table_used(l)))
		return HL_ENOMEM;
	struct listeners *s = slot_of(l, location, 1);
	if (s->n == s->cap) {
		int cap = s->cap ? s->cap * 2 : 4;
		struct conn **v = realloc(s->v, (size_t)cap * sizeof(*v));
		if (!v)
			return HL_ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = c;
	return 0;
}

static void unlisten(struct live *l, struct conn *c, int64_t location)
{
	struct listeners *s = slot_of(l, location, 0);
	for (int j = 0; s && j < s->n; j++)
		if (s->v[j] == c) {
			s->v[j] = s->v[--s->n];
			break;
		}
}

static void stop_listening(struct live *l, struct conn *c)
{
	for (int i = 0; i < c->nlocations; i++)
		unlisten(l, c, c->locations[i]);
}

/* Listen to the `n` locations of `kept` only, a part of c's (sorted). */
static void narrow(struct live *l, struct conn *c, const int64_t *kept, int n)
{
	for (int i = 0, j = 0; i < c->nlocations; i++) {
		if (j < n && kept[j] == c->locations[i])
			j++;
		else
			unlisten(l, c, c->locations[i]);
	}
	memmove(c->locations, kept, (size_t)n * sizeof(*kept));
	c->nlocations = n;
}

/* ---- writing ---------------------------------------------------------------- */

static void mark_dirty(struct live *l, struct conn *c)
{
	if (!c->queued && !c->closing) {
		c->queued = 1;
		c->next = l->dirty;
		l->dirty = c;
	}
}

/* Close `c` at the end of this turn of the loop. */
static void close_later(struct live *l, struct conn *c)
{
	if (!c->closing) {
		c->closing = 1;
		if (!c->queued) {
			c->next = l->closing;
			l->closing = c;
		}
	}
}

static size_t backlog(const struct conn *c)
{
	return c->out.len - c->sent;
}

static int flush(struct live *l, struct conn *c, long long now);

/* Queue one message: a text frame, or an event-stream message with its
 * id when `seq` is not 0. */
static void queue_message(struct live *l, struct conn *c, const char *json, size_t len,
			  uint64_t seq)
{
	size_t bound = (size_t)l->cfg->live_backlog_kb * 1024;
	if (c->closing)
		return;
	/* The backlog is what the client has not taken: offer it first. */
	if (backlog(c) + len > bound && flush(l, c, now_us()) < 0)
		close_later(l, c);
	if (!c->closing && backlog(c) + len > bound) {
		l->slow++;
		log_info("[live] user %lld did not keep up (%zu KB waiting): cut off",
			 (long long)c->who.user_id, backlog(c) / 1024);
		close_later(l, c);
		return;
	}
	if (c->kind == LIVE_WEBSOCKET) {
		unsigned char head[WS_HEAD_MAX];
		buf_append(&c->out, head, ws_head(head, WS_TEXT, len));
		buf_append(&c->out, json, len);
	} else {
		if (seq)
			buf_printf(&c->out, "id: %llu\n", (unsigned long long)seq);
		buf_append(&c->out, "data: ", 6);
		buf_append(&c->out, json, len);
		buf_append(&c->out, "\n\n", 2);
	}
	if (c->out.oom)
		close_later(l, c);
	mark_dirty(l, c);
}

static void queue_control(struct live *l, struct conn *c, enum ws_opcode op, const void *p,
			  size_t len)
{
	unsigned char head[WS_HEAD_MAX];
	/* A client that pings and never reads is bounded like the others. */
	if (op != WS_CLOSE && backlog(c) + len > (size_t)l->cfg->live_backlog_kb * 1024) {
		l->slow++;
		close_later(l, c);
		return;
	}
	buf_append(&c->out, head, ws_head(head, op, len));
	buf_append(&c->out, p, len);
	mark_dirty(l, c);
}

static void want_writable(struct live *l, struct conn *c, int on)
{
	if (c->writable_wait == on)
		return;
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP | (on ? EPOLLOUT : 0),
				  .data.ptr = c };
	epoll_ctl(l->epfd, EPOLL_CTL_MOD, c->fd, &ev);
	c->writable_wait = on;
}

/* Send what waits, in one call; 0, or -1 when the connection is gone. */
static int flush(struct live *l, struct conn *c, long long now)
{
	while (backlog(c)) {
		ssize_t n = send(c->fd, c->out.data + c->sent, backlog(c), MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			want_writable(l, c, 1);
			return 0;
		}
		if (n <= 0)
			return -1;
		c->sent += (size_t)n;
		l->bytes += n;
		c->last_out_us = now;
	}
	/* All gone: the queue starts again at its beginning. */
	c->sent = 0;
	if (c->out.cap > KEEP_SPARE) {
		buf_release(&c->out);
	} else {
		buf_reset(&c->out);
	}
	want_writable(l, c, 0);
	return 0;
}

/* ---- the last word -------------------------------------------------------------- */

/* Queue the frame that says why `c` ends, and close it after this turn:
 * a close frame with `code` for a WebSocket, a "bye" message for an
 * event stream (EventSource would otherwise reconnect at once). */
static void say_goodbye(struct live *l, struct conn *c, enum ws_close_code code,
			const char *reason)
{
	if (c->closing)
		return;
	if (c->kind == LIVE_WEBSOCKET) {
		unsigned char p[2 + 64];
		size_t n = strlen(reason) < 64 ? strlen(reason) : 64;
		p[0] = (unsigned char)(code >> 8);
		p[1] = (unsigned char)code;
		memcpy(p + 2, reason, n);
		queue_control(l, c, WS_CLOSE, p, 2 + n);
	} else {
		char json[128];
		int n = snprintf(json, sizeof(json), "{\"type\":\"bye\",\"reason\":\"%s\"}", reason);
		queue_message(l, c, json, (size_t)n, 0);
	}
	close_later(l, c);
}

/* ---- places --------------------------------------------------------------------- */

static void user_key(char out[32], int64_t user)
{
	snprintf(out, 32, "user:%lld", (long long)user);
}

/* Give back the place of a connection of `user` from `address`: the
 * server's, the user's and the address's. */
static void give_place(struct live *l, int64_t user, const char *address)
{
	char key[32];
	user_key(key, user);
	tally_give(l->holders, key);
	if (*address)
		tally_give(l->holders, address);
	l->places--;
}

/* ---- connections come and go --------------------------------------------------- */

static void conn_free(struct live *l, struct conn *c)
{
	char drain[4096];
	stop_listening(l, c);
	if (c->held)
		l->nheld--;
	l->conns[c->index] = l->conns[--l->nconns];
	l->conns[c->index]->index = c->index;
	epoll_ctl(l->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	/* Say nothing more and read what the client still sent: closing a
	 * socket with unread bytes resets it, and the client could lose the
	 * last frame. */
	shutdown(c->fd, SHUT_WR);
	for (int i = 0; i < 256 && recv(c->fd, drain, sizeof(drain), MSG_DONTWAIT) > 0; i++)
		;
	close(c->fd);
	if (c->locations != &c->one_location)
		free(c->locations);
	buf_release(&c->out);
	give_place(l, c->who.user_id, c->address);
	free(c);
}

static void close_pending(struct live *l, long long now)
{
	while (l->closing) {
		struct conn *c = l->closing;
		l->closing = c->next;
		flush(l, c, now); /* the last frame, if the socket takes it */
		conn_free(l, c);
	}
}

/* Catch `c` up with what it missed since its sequence number, or tell it
 * to reload when that is gone; then greet it with where it stands. */
static void catch_up(struct live *l, struct conn *c);

static int add_conn(struct live *l, struct conn *c, long long now)
{
	if (l->nconns == l->cap) {
		int cap = l->cap ? l->cap * 2 : 64;
		struct conn **v = realloc(l->conns, (size_t)cap * sizeof(*v));
		if (!v)
			return HL_ENOMEM;
		l->conns = v;
		l->cap = cap;
	}
	for (int i = 0; i < c->nlocations; i++)
		if (listen_to(l, c, c->locations[i])) {
			c->nlocations = i;
			stop_listening(l, c);
			return HL_ENOMEM;
		}
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.ptr = c };
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, c->fd, &ev)) {
		stop_listening(l, c);
		return HL_EIO;
	}
	c->index = l->nconns;
	l->conns[l->nconns++] = c;
	c->last_in_us = c->last_out_us = c->checked_us = now;
	l->opened++;
	c->held = 1; /* greeted once checked (check_conn) */
	l->nheld++;
	return 0;
}

static void take_incoming(struct live *l, long long now)
{
	pthread_mutex_lock(&l->lock);
	struct conn *c = l->incoming;
	l->incoming = NULL;
	pthread_mutex_unlock(&l->lock);
	while (c) {
		struct conn *next = c->next;
		c->next = NULL;
		if (add_conn(l, c, now)) {
			close(c->fd);
			if (c->locations != &c->one_location)
				free(c->locations);
			give_place(l, c->who.user_id, c->address);
			free(c);
		}
		c = next;
	}
}

/* ---- what each connection is sent ------------------------------------------------ */

static int listens_to(const struct conn *c, int64_t location)
{
	int lo = 0, hi = c->nlocations;
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (c->locations[mid] < location)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->nlocations && c->locations[lo] == location;
}

/* An event for one person (notify.c's): of no location, assigned to
 * them; sent to each of their connections whatever it follows. */
static int is_private(const struct live_entry *e)
{
	return e->location_id == 0 && e->assigned_to > 0;
}

static int may_see(const struct conn *c, const struct live_entry *e)
{
	if (is_private(e))
		return e->assigned_to == c->who.user_id;
	return !c->who.assigned_only || e->assigned_to == HL_EVERYONE ||
	       e->assigned_to == c->who.user_id;
}

static void queue_notice(struct live *l, struct conn *c, const char *type, uint64_t seq)
{
	char json[96];
	int n = snprintf(json, sizeof(json), "{\"type\":\"%s\",\"seq\":%llu}", type,
			 (unsigned long long)seq);
	queue_message(l, c, json, (size_t)n, seq);
}

/* Send `c` what was fanned out after its sequence number, or tell it to
 * reload when that is gone. */
static void resend(struct live *l, struct conn *c)
{
	uint64_t last = l->cursor - 1, oldest, next, dropped_at;
	ring_bounds(&l->ring, &oldest, &next, &dropped_at);
	/* Gone: older than the ring, from nowhere (after what was given), or
	 * an event after it was dropped. A `since` the fan-out has not reached
	 * yet is fine: fan_out skips what the client has. */
	if (c->since + 1 < oldest || c->since >= next || dropped_at > c->since) {
		queue_notice(l, c, "reload", last);
		c->since = last;
	} else {
		for (uint64_t s = c->since + 1; s <= last; s++) {
			const struct live_entry *e = ring_at(&l->ring, s);
			if ((is_private(e) || listens_to(c, e->location_id)) && may_see(c, e))
				queue_message(l, c, e->json, e->len, e->seq);
		}
	}
}

static void catch_up(struct live *l, struct conn *c)
{
	resend(l, c);
	if (c->kind == LIVE_EVENT_STREAM)
		buf_puts(&c->out, "retry: 3000\n");
	queue_notice(l, c, "hello", l->cursor - 1);
}

/* Fan the events numbered since the last turn, up to `head`, out to their
 * listeners, but those HELD; after events were dropped (the ring was
 * full, `dropped` says how often) everyone is told to reload, since
 * nobody can tell what they missed. */
static void fan_out(struct live *l, uint64_t head, long long dropped)
{
	for (uint64_t s = l->cursor; s < head; s++) {
		const struct live_entry *e = ring_at(&l->ring, s);
		if (is_private(e)) { /* rare: one person's, wherever they look */
			for (int i = 0; i < l->nconns; i++)
				if (!l->conns[i]->held && e->seq > l->conns[i]->since && may_see(l->conns[i], e)) {
					queue_message(l, l->conns[i], e->json, e->len, e->seq);
					l->frames++;
				}
			continue;
		}
		struct listeners *who = slot_of(l, e->location_id, 0);
		for (int i = 0; who && i < who->n; i++)
			if (!who->v[i]->held && e->seq > who->v[i]->since && may_see(who->v[i], e)) {
				queue_message(l, who->v[i], e->json, e->len, e->seq);
				l->frames++;
			}
	}
	l->cursor = head;
	if (dropped != l->dropped_seen) {
		l->dropped_seen = dropped;
		for (int i = 0; i < l->nconns; i++)
			queue_notice(l, l->conns[i], "reload", head - 1);
	}
}

/* ---- what each connection says --------------------------------------------------- */

static void answer_frame(struct live *l, struct conn *c, const struct ws_frame *f)
{
	switch (f->opcode) {
	case WS_PING:
		queue_control(l, c, WS_PONG, f->payload, f->len);
		break;
	case WS_PONG:
		c->ping_us = 0;
		break;
	case WS_CLOSE: {
		/* Echo the client's code, as RFC 6455 5.5.1 asks, when it is one
		 * a close frame may carry (7.4). */
		int code = f->len >= 2 ? f->payload[0] << 8 | f->payload[1] : WS_CLOSE_NORMAL;
		int sendable = (code >= 1000 && code <= 1014 && code != 1004 && code != 1005 &&
				code != 1006) || (code >= 3000 && code <= 4999);
		if (f->len == 1 || !sendable) {
			say_goodbye(l, c, WS_CLOSE_PROTOCOL, "not a close code");
			break;
		}
		unsigned char echo[2] = { (unsigned char)(code >> 8), (unsigned char)code };
		queue_control(l, c, WS_CLOSE, echo, 2);
		close_later(l, c);
		break;
	}
	case WS_CONTINUATION:
		/* No data frame is ever taken, so none can have begun a
		 * message for this one to go on with (RFC 6455 5.4). */
		say_goodbye(l, c, WS_CLOSE_PROTOCOL, "a continuation of no message");
		break;
	default:
		say_goodbye(l, c, WS_CLOSE_UNSUPPORTED, "this stream only sends");
	}
}

/* Take the frames whole in `in`, keep a partial one for later. */
static void read_frames(struct live *l, struct conn *c)
{
	size_t at = 0;
	while (!c->closing) {
		struct ws_frame f;
		long n = ws_parse(c->in + at, c->in_len - at, IN_MAX - 14, &f);
		if (n == WS_MORE)
			break;
		if (n == WS_EPROTOCOL) {
			say_goodbye(l, c, WS_CLOSE_PROTOCOL, "not a client frame of RFC 6455");
		} else if (n == WS_ETOOBIG) {
			say_goodbye(l, c, WS_CLOSE_TOO_BIG, "frames to this stream are small");
		} else {
			answer_frame(l, c, &f);
			at += (size_t)n;
		}
	}
	memmove(c->in, c->in + at, c->in_len - at);
	c->in_len -= at;
	if (c->in_len == IN_MAX)
		say_goodbye(l, c, WS_CLOSE_TOO_BIG, "frames to this stream are small");
}

static void conn_read(struct live *l, struct conn *c, long long now)
{
	for (int reads = 0; reads < READS_PER_TURN && !c->closing; reads++) {
		ssize_t n = recv(c->fd, c->in + c->in_len, IN_MAX - c->in_len, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			close_later(l, c); /* the client left */
			return;
		}
		c->last_in_us = now;
		if (c->kind == LIVE_EVENT_STREAM) {
			c->in_len = 0; /* nothing to hear on an event stream */
			continue;
		}
		c->in_len += (size_t)n;
		read_frames(l, c);
	}
}

/* ---- once a second ---------------------------------------------------------------- */

/* A WebSocket quiet for live_ping_s is pinged, and closed when it has not
 * answered after as long again; an event stream gets a comment line, so a
 * proxy between sees it is alive and a gone client is found on writing. */
static void keep_alive(struct live *l, struct conn *c, long long now)
{
	long long every = l->cfg->live_ping_s * 1000000LL;
	if (backlog(c) && now - c->last_out_us >= 2 * every) {
		close_later(l, c); /* nothing it was sent has left for long: gone */
	} else if (c->kind == LIVE_WEBSOCKET && c->ping_us && now - c->ping_us >= every) {
		close_later(l, c); /* no pong: the client is gone */
	} else if (c->kind == LIVE_WEBSOCKET && !c->ping_us && now - c->last_in_us >= every) {
		queue_control(l, c, WS_PING, "", 0);
		c->ping_us = now;
	} else if (c->kind == LIVE_EVENT_STREAM && now - c->last_out_us >= every) {
		buf_append(&c->out, ": ping\n\n", 8);
		mark_dirty(l, c);
	}
}

/* ---- rights ------------------------------------------------------------------------ */

/* HELD: `c` is sent nothing from the next event on, until check_conn. */
static void hold(struct live *l, struct conn *c)
{
	if (c->held || c->closing)
		return;
	c->held = 1;
	if (c->since < l->cursor - 1)
		c->since = l->cursor - 1; /* what came before went out as usual */
	l->nheld++;
}

/* Check c's session or token and locations again, on `db`: close it when
 * the session ended or nothing is left it may open (a last frame says
 * which), else narrow it to what it may open now, with the user's role
 * and reach as they are now, and, when it was HELD, send it what it was
 * held from. 0, or an HL_E code when the database failed (it stays as it
 * was, to be checked again). */
static int check_conn(struct live *l, struct hl_db *db, struct conn *c, long long now)
{
	struct identity is;
	int rc = auth_still_signed_in(db, &c->who, &is);
	int n = rc > 0 ? auth_still_opens(db, &is, c->locations, c->nlocations, l->kept) : 0;
	if (rc < 0 || n < 0)
		return rc < 0 ? rc : n;
	c->checked_us = now;
	if (!rc) {
		l->signed_out++;
		say_goodbye(l, c, WS_CLOSE_SIGNED_OUT, "signed_out");
	} else if (!n) {
		say_goodbye(l, c, WS_CLOSE_NOT_ALLOWED, "not_allowed");
	} else {
		c->who = is;
		if (n < c->nlocations)
			narrow(l, c, l->kept, n);
		if (c->held) {
			c->held = 0;
			l->nheld--;
			if (c->greeted)
				resend(l, c);
			else
				catch_up(l, c);
			c->greeted = 1;
		}
	}
	return 0;
}

/* The changes of rights said since the last turn (live_recheck): hold
 * the connections they may touch. */
static void take_rechecks(struct live *l)
{
	struct { int64_t user, location; } said[RECHECKS_MAX];
	pthread_mutex_lock(&l->lock);
	int n = l->nrecheck, all = l->recheck_all;
	memcpy(said, l->recheck, (size_t)n * sizeof(said[0]));
	l->nrecheck = l->recheck_all = 0;
	pthread_mutex_unlock(&l->lock);
	for (int i = 0; (n || all) && i < l->nconns; i++) {
		struct conn *c = l->conns[i];
		int touched = all;
		for (int k = 0; k < n && !touched; k++)
			touched = (!said[k].user || said[k].user == c->who.user_id) &&
				  (!said[k].location || listens_to(c, said[k].location));
		if (touched)
			hold(l, c);
	}
}

/* Check the HELD connections now, HELD_CHECKS_PER_TURN at most, so that
 * a turn stays short for everyone else; the rest stay held (they are
 * sent nothing) until the next turn, which comes at once. Never wait for
 * a reader: every client would wait too. */
static void check_held(struct live *l, long long now)
{
	struct hl_db *db = l->nheld ? db_lend_now(l->db) : NULL;
	for (int i = 0, done = 0; db && i < l->nconns && done < HELD_CHECKS_PER_TURN; i++)
		if (l->conns[i]->held && !l->conns[i]->closing) {
			int greeted = l->conns[i]->greeted; /* not a new one's first check */
			if (check_conn(l, db, l->conns[i], now))
				break;
			done++;
			l->rechecked += greeted;
		}
	db_return(l->db, db);
}

/* The net under live_recheck, for changes made from outside the server:
 * re-check up to CHECKS_PER_TICK connections not checked for
 * live_check_s. And a session or token whose time is up is held, to be
 * checked at once. */
static void check_sessions(struct live *l, long long now)
{
	long long every = l->cfg->live_check_s * 1000000LL;
	int64_t seconds = (int64_t)time(NULL);
	struct hl_db *db = NULL;
	for (int i = 0; i < l->nconns; i++) {
		struct conn *c = l->conns[i];
		if (c->who.expires_at && c->who.expires_at <= seconds)
			hold(l, c);
	}
	for (int seen = 0, done = 0; seen < l->nconns && done < CHECKS_PER_TICK; seen++) {
		struct conn *c = l->conns[(l->check_from + seen) % l->nconns];
		if (c->closing || c->held || now - c->checked_us < every)
			continue;
		if (!db && !(db = db_lend_now(l->db)))
			break;
		if (check_conn(l, db, c, now))
			break; /* the database failed: try again next tick */
		done++;
	}
	if (l->nconns)
		l->check_from = (l->check_from + CHECKS_PER_TICK) % l->nconns;
	db_return(l->db, db);
}

static void tick(struct live *l, long long now)
{
	for (int i = 0; i < l->nconns; i++)
		if (!l->conns[i]->closing)
			keep_alive(l, l->conns[i], now);
	check_sessions(l, now);
}

/* ---- the thread --------------------------------------------------------------------- */

static void flush_dirty(struct live *l, long long now)
{
	while (l->dirty) {
		struct conn *c = l->dirty;
		l->dirty = c->next;
		c->queued = 0;
		if (flush(l, c, now) < 0)
			c->closing = 1;
		if (c->closing) {
			c->next = l->closing;
			l->closing = c;
		}
	}
}

static void serve_events(struct live *l, const struct epoll_event *ev, int n, long long now)
{
	for (int i = 0; i < n; i++) {
		struct conn *c = ev[i].data.ptr;
		if (!c) {
			uint64_t count;
			if (read(l->wakefd, &count, sizeof(count)) < 0 && errno != EAGAIN)
				log_warn("[live] reading the wake-up: %s", strerror(errno));
			continue;
		}
		if (c->closing)
			continue;
		if (ev[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
			conn_read(l, c, now);
		if (ev[i].events & EPOLLOUT)
			mark_dirty(l, c);
	}
}

static void *run(void *arg)
{
	struct live *l = arg;
	struct epoll_event ev[256];
	while (!l->stopping) {
		long long now = now_us();
		long long wait_ms = (l->next_tick_us - now + 999) / 1000;
		if (l->nheld && wait_ms > HELD_RETRY_MS)
			wait_ms = HELD_RETRY_MS; /* held ones wait for a check, not a tick */
		int n = epoll_wait(l->epfd, ev, 256, l->nconns ? (int)(wait_ms > 0 ? wait_ms : 0) : -1);
		now = now_us();
		serve_events(l, ev, n > 0 ? n : 0, now);
		/* The ring's head first, then the changes of rights: a change
		 * said before an event was published is seen before that event
		 * goes out to anyone it may concern. */
		long long dropped;
		uint64_t head = ring_head(&l->ring, &dropped);
		take_rechecks(l);
		take_incoming(l, now);
		if (now >= l->next_tick_us) {
			tick(l, now);
			l->next_tick_us = now + TICK_US;
		}
		check_held(l, now);
		fan_out(l, head, dropped);
		/* Everyone has had what was fanned out: the ring keeps it for
		 * those who come back, within its bounds (cheap when it has room). */
		ring_trim(&l->ring, l->cursor, now);
		flush_dirty(l, now);
		close_pending(l, now);
	}
	long long now = now_us(), dropped;
	uint64_t head = ring_head(&l->ring, &dropped);
	fan_out(l, head, dropped);
	take_incoming(l, now);
	for (int i = 0; i < l->nconns; i++)
		say_goodbye(l, l->conns[i], WS_CLOSE_GOING_AWAY, "server_stopping");
	flush_dirty(l, now);
	close_pending(l, now);
	return NULL;
}

/* ---- the public side ------------------------------------------------------------------- */

static void wake(struct live *l)
{
	uint64_t one = 1;
	if (write(l->wakefd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		log_warn("[live] waking the live thread: %s", strerror(errno));
}

/* Open files for every live connection, beside what the HTTP side holds. */
static void raise_file_limit(const struct config *cfg)
{
	struct rlimit lim;
	rlim_t want = (rlim_t)(cfg->live_connections + cfg->threads * 2 + 256);
	if (getrlimit(RLIMIT_NOFILE, &lim) || lim.rlim_cur >= want)
		return;
	lim.rlim_cur = lim.rlim_max < want ? lim.rlim_max : want;
	setrlimit(RLIMIT_NOFILE, &lim);
	if (lim.rlim_cur < want)
		log_warn("live_connections = %lld needs %llu open files; the limit is %llu",
			 cfg->live_connections, (unsigned long long)want,
			 (unsigned long long)lim.rlim_cur);
}

int live_new(struct live **out, const struct config *cfg, struct db *db)
{
	struct live *l = calloc(1, sizeof(*l));
	*out = NULL;
	if (!l)
		return HL_ENOMEM;
	l->cfg = cfg;
	l->db = db;
	if (!(l->holders = tally_new())) {
		free(l);
		return HL_ENOMEM;
	}
	ring_init(&l->ring);
	l->cursor = l->ring.head;
	pthread_mutex_init(&l->lock, NULL);
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	l->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	if (l->epfd < 0 || l->wakefd < 0 || epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->wakefd, &ev) ||
	    pthread_create(&l->thread, NULL, run, l)) {
		log_error("live: cannot start its thread: %s", strerror(errno));
		live_free(l);
		return HL_EIO;
	}
	l->started = 1;
	raise_file_limit(cfg);
	*out = l;
	return 0;
}

void live_free(struct live *l)
{
	if (!l)
		return;
	if (l->started) {
		l->stopping = 1;
		wake(l);
		pthread_join(l->thread, NULL);
	}
	for (struct conn *c = l->incoming, *next; c; c = next) {
		next = c->next;
		close(c->fd);
		if (c->locations != &c->one_location)
			free(c->locations);
		free(c);
	}
	for (size_t i = 0; i < l->table_cap; i++)
		free(l->table[i].v);
	free(l->table);
	free(l->conns);
	if (l->epfd >= 0)
		close(l->epfd);
	if (l->wakefd >= 0)
		close(l->wakefd);
	ring_release(&l->ring);
	pthread_mutex_destroy(&l->lock);
	tally_free(l->holders);
	free(l);
}

void live_publish(void *arg, const struct hl_event *e)
{
	struct live *l = arg;
	/* One wake-up for a transaction's events, after the last: woken at
	 * the first, the thread would send a part to every client, then the
	 * rest, twice the sends for the same frames. */
	if (e ? ring_push(&l->ring, e) == 1 : ring_wake_due(&l->ring))
		wake(l);
}

uint64_t live_last_seq(struct live *l)
{
	pthread_mutex_lock(&l->ring.lock);
	uint64_t last = l->ring.head - 1;
	pthread_mutex_unlock(&l->ring.lock);
	return last;
}

enum live_place live_reserve(struct live *l, const struct live_client *c)
{
	char user[32];
	if (!l || l->stopping)
		return LIVE_ALL_TAKEN;
	if (atomic_fetch_add(&l->places, 1) >= l->cfg->live_connections) {
		l->places--;
		return LIVE_ALL_TAKEN;
	}
	user_key(user, c->who.user_id);
	enum live_place got = LIVE_PLACE_TAKEN;
	int rc = tally_take(l->holders, user, l->cfg->live_per_user);
	if (rc) {
		got = rc == HL_ETOOBIG ? LIVE_USER_TAKEN : LIVE_ALL_TAKEN;
	} else if (*c->address &&
		   (rc = tally_take(l->holders, c->address, l->cfg->live_per_address))) {
		tally_give(l->holders, user);
		got = rc == HL_ETOOBIG ? LIVE_ADDRESS_TAKEN : LIVE_ALL_TAKEN;
	}
	if (got != LIVE_PLACE_TAKEN) {
		l->places--;
		l->refused += got != LIVE_ALL_TAKEN;
	}
	return got;
}

void live_unreserve(struct live *l, const struct live_client *c)
{
	give_place(l, c->who.user_id, c->address);
}

void live_recheck(struct live *l, int64_t user, int64_t location)
{
	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	int i = 0;
	while (i < l->nrecheck && (l->recheck[i].user != user || l->recheck[i].location != location))
		i++;
	if (i < l->nrecheck || l->recheck_all) {
		/* said already */
	} else if (l->nrecheck < RECHECKS_MAX) {
		l->recheck[l->nrecheck].user = user;
		l->recheck[l->nrecheck].location = location;
		l->nrecheck++;
	} else {
		l->recheck_all = 1;
	}
	pthread_mutex_unlock(&l->lock);
	wake(l);
}

int live_adopt(struct live *l, const struct live_client *from, int fd)
{
	struct conn *c = calloc(1, sizeof(*c));
	int64_t *locations = from->nlocations == 1 ? NULL
		: malloc((size_t)from->nlocations * sizeof(*locations));
	int size = SEND_BUFFER;
	if (!c || (from->nlocations != 1 && !locations)) {
		free(c);
		free(locations);
		close(fd);
		give_place(l, from->who.user_id, from->address);
		return HL_ENOMEM;
	}
	c->fd = fd;
	snprintf(c->address, sizeof(c->address), "%s", from->address);
	c->kind = from->kind;
	c->who = from->who;
	c->locations = locations ? locations : &c->one_location;
	memcpy(c->locations, from->locations, (size_t)from->nlocations * sizeof(*locations));
	c->nlocations = from->nlocations;
	c->since = from->since;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	pthread_mutex_lock(&l->lock);
	c->next = l->incoming;
	l->incoming = c;
	pthread_mutex_unlock(&l->lock);
	wake(l);
	return 0;
}

void live_snapshot(struct live *l, struct live_stat *out)
{
	memset(out, 0, sizeof(*out));
	if (!l)
		return;
	pthread_mutex_lock(&l->ring.lock);
	out->seq = l->ring.head - 1;
	out->dropped = l->ring.dropped;
	out->kept = (long long)(l->ring.head - l->ring.tail);
	pthread_mutex_unlock(&l->ring.lock);
	out->connections = l->places;
	out->opened = l->opened;
	out->frames = l->frames;
	out->bytes = l->bytes;
	out->slow = l->slow;
	out->signed_out = l->signed_out;
	out->rechecked = l->rechecked;
	out->refused = l->refused;
}

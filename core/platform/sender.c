/* SPDX-License-Identifier: MIT */
/*
 * sender.c: the sending thread of sender.h, and the hl_send_* functions a
 * provider calls on a send.
 *
 * One thread drives every transfer through one libcurl multi handle:
 * many requests at once without a thread each, and connections to a
 * relay or an API kept and used again. It waits in epoll on the sockets
 * libcurl names (its multi_socket API) and hands libcurl only the ones
 * that are ready: curl_multi_perform and curl_multi_poll walked all 32
 * transfers on every wake-up, and poll alone was a tenth of the server's
 * time while 10,000 e-mails left. An eventfd wakes it for new sends.
 *
 * A send's memory (what the provider wrote, its copies of the message)
 * is an arena of its own, freed with it; the answer's body is kept up to
 * ANSWER_MAX. The scheduler thread prepares sends and takes settled ones;
 * the sending thread alone touches the multi handle. The two lists
 * between them (incoming, settled) and the figures are guarded by
 * s->lock.
 */
#include "platform/sender.h"
#include "lib/arena.h"
#include "lib/background.h"
#include "lib/log.h"

#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define ANSWER_MAX (64 * 1024)   /* bytes of an answer's body kept */
#define CONNECT_TIMEOUT_MS 10000
#define TRANSFER_TIMEOUT_MS 60000
#define DEFAULT_IN_FLIGHT 32
#define POLL_MS 1000

/* A channel and how many of its sends are prepared or on their way. */
struct lane {
	const struct mod_channel *c;
	_Atomic int in_flight;
};

struct hl_send {
	struct hl_send *next;
	struct hl_send *way_prev, *way_next; /* on the sender's on_way list */
	struct lane *lane;
	struct hl_mod *owner;
	int (*settle)(struct hl_job_run *run, const struct hl_outcome *o);
	int64_t location_id, id;
	struct arena arena;
	CURL *easy;
	struct curl_slist *headers, *recipients;
	int smtp;
	const char *refusal;
	/* the SMTP message, read out as it is sent */
	const char *upload;
	size_t upload_len, upload_at;
	/* the answer */
	char *answer;
	size_t answer_len;
	long status;
	CURLcode code;
	char error[CURL_ERROR_SIZE];
	/* the outcome; kind 0 until conclude or the defaults say */
	enum hl_outcome_kind kind;
	const char *reason, *reference;
	unsigned after_s;
};

struct sender {
	struct lane *lanes;
	int nlanes;
	CURLM *multi;
	int epoll;          /* the transfers' sockets and `wake` */
	int wake_fd;        /* an eventfd: new sends, or stop */
	long long timer_us; /* libcurl's next timeout (CLOCK_MONOTONIC), or -1 */
	pthread_t thread;
	pthread_mutex_t lock;
	struct hl_send *incoming, *incoming_tail; /* committed, not yet on their way */
	struct hl_send *settled, *settled_tail;
	_Atomic int nsettled;
	struct hl_send *on_way; /* on their way (the thread's own) */
	_Atomic int stopping; /* no new sends */
	int stop;           /* the thread ends once `deadline_us` passes or none runs */
	long long deadline_us;
	void (*wake)(void *);
	void *wake_arg;
	struct sender_stat stat;
};

/* ---- a send's memory and request (the provider's prepare) ---------------- */

HL_API void *hl_send_alloc(struct hl_send *s, size_t n)
{
	return arena_alloc(&s->arena, n);
}

static char *vformat(struct hl_send *s, const char *fmt, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	char *out = arena_alloc(&s->arena, n > 0 ? (size_t)n + 1 : 1);
	vsnprintf(out, n > 0 ? (size_t)n + 1 : 1, fmt, again);
	va_end(again);
	return out;
}

HL_API char *hl_send_sprintf(struct hl_send *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *out = vformat(s, fmt, ap);
	va_end(ap);
	return out;
}

static const char *copy(struct hl_send *s, const char *text)
{
	return text ? arena_strndup(&s->arena, text, strlen(text)) : NULL;
}

static int scheme_is(const char *url, const char *a, const char *b)
{
	return url && (!strncmp(url, a, strlen(a)) || !strncmp(url, b, strlen(b)));
}

HL_API int hl_send_http(struct hl_send *s, const char *method, const char *url,
			const char *content_type, const void *body, size_t len)
{
	if (!scheme_is(url, "http://", "https://") || !method) {
		log_error("[send] %s: not an http:// or https:// URL", url ? url : "(null)");
		return HL_EINVAL;
	}
	curl_easy_setopt(s->easy, CURLOPT_URL, url);
	curl_easy_setopt(s->easy, CURLOPT_PROTOCOLS_STR, "http,https");
	if (body) {
		void *kept = arena_alloc(&s->arena, len ? len : 1);
		memcpy(kept, body, len);
		curl_easy_setopt(s->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
		curl_easy_setopt(s->easy, CURLOPT_POSTFIELDS, kept);
	}
	if (strcmp(method, body ? "POST" : "GET"))
		curl_easy_setopt(s->easy, CURLOPT_CUSTOMREQUEST, copy(s, method));
	if (content_type && hl_send_header(s, hl_send_sprintf(s, "Content-Type: %s", content_type)))
		return HL_ENOMEM;
	return 0;
}

HL_API int hl_send_header(struct hl_send *s, const char *line)
{
	struct curl_slist *grown = curl_slist_append(s->headers, line);
	if (!grown)
		return HL_ENOMEM;
	s->headers = grown;
	curl_easy_setopt(s->easy, CURLOPT_HTTPHEADER, s->headers);
	return 0;
}

static size_t read_upload(char *to, size_t size, size_t n, void *arg)
{
	struct hl_send *s = arg;
	size_t left = s->upload_len - s->upload_at, want = size * n;
	if (want > left)
		want = left;
	memcpy(to, s->upload + s->upload_at, want);
	s->upload_at += want;
	return want;
}

/* The relay's replies, as curl's debug output hands them over: the last
 * one is kept as the answer, the relay's words for a refusal ("550 5.1.1
 * <ann@example.com>: Recipient address rejected"). */
static int keep_reply(CURL *easy, curl_infotype type, char *data, size_t size, void *arg)
{
	(void)easy;
	struct hl_send *s = arg;
	if (type != CURLINFO_HEADER_IN)
		return 0;
	while (size && (data[size - 1] == '\n' || data[size - 1] == '\r'))
		size--;
	if (size > ANSWER_MAX)
		size = ANSWER_MAX;
	if (!s->answer)
		s->answer = arena_alloc(&s->arena, ANSWER_MAX + 1);
	memcpy(s->answer, data, size);
	s->answer[size] = '\0';
	s->answer_len = size;
	return 0;
}

HL_API int hl_send_smtp(struct hl_send *s, const char *url, const char *from,
			const char *const *to, const void *message, size_t len)
{
	if (!scheme_is(url, "smtp://", "smtps://") || !from || !to || !to[0]) {
		log_error("[send] %s: not an smtp:// or smtps:// URL, or no sender or recipient",
			  url ? url : "(null)");
		return HL_EINVAL;
	}
	s->smtp = 1;
	curl_easy_setopt(s->easy, CURLOPT_URL, url);
	curl_easy_setopt(s->easy, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	/* smtp:// goes on only after STARTTLS: a password and a message
	 * never cross the network in the clear. */
	curl_easy_setopt(s->easy, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL);
	curl_easy_setopt(s->easy, CURLOPT_MAIL_FROM, copy(s, from));
	curl_easy_setopt(s->easy, CURLOPT_DEBUGFUNCTION, keep_reply);
	curl_easy_setopt(s->easy, CURLOPT_DEBUGDATA, s);
	curl_easy_setopt(s->easy, CURLOPT_VERBOSE, 1L);
	for (int i = 0; to[i]; i++) {
		struct curl_slist *grown = curl_slist_append(s->recipients, to[i]);
		if (!grown)
			return HL_ENOMEM;
		s->recipients = grown;
	}
	curl_easy_setopt(s->easy, CURLOPT_MAIL_RCPT, s->recipients);
	char *kept = arena_alloc(&s->arena, len ? len : 1);
	memcpy(kept, message, len);
	s->upload = kept;
	s->upload_len = len;
	curl_easy_setopt(s->easy, CURLOPT_READFUNCTION, read_upload);
	curl_easy_setopt(s->easy, CURLOPT_READDATA, s);
	curl_easy_setopt(s->easy, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(s->easy, CURLOPT_INFILESIZE_LARGE, (curl_off_t)len);
	return 0;
}

HL_API void hl_send_auth(struct hl_send *s, const char *user, const char *password)
{
	curl_easy_setopt(s->easy, CURLOPT_USERNAME, copy(s, user));
	curl_easy_setopt(s->easy, CURLOPT_PASSWORD, copy(s, password));
}

HL_API void hl_send_ca_file(struct hl_send *s, const char *path)
{
	curl_easy_setopt(s->easy, CURLOPT_CAINFO, copy(s, path));
}

HL_API void hl_send_reference(struct hl_send *s, const char *reference)
{
	s->reference = copy(s, reference);
}

HL_API void hl_send_refuse(struct hl_send *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	s->refusal = vformat(s, fmt, ap);
	va_end(ap);
}

/* ---- the answer and the outcome (the provider's conclude) ---------------- */

HL_API long hl_send_status(const struct hl_send *s)
{
	return s->status;
}

HL_API const char *hl_send_error(const struct hl_send *s)
{
	if (s->code == CURLE_OK)
		return NULL;
	return s->error[0] ? s->error : curl_easy_strerror(s->code);
}

HL_API const char *hl_send_answer(const struct hl_send *s, size_t *len)
{
	if (len)
		*len = s->answer_len;
	return s->answer ? s->answer : "";
}

HL_API const char *hl_send_answer_header(const struct hl_send *s, const char *name)
{
	struct curl_header *h;
	if (s->smtp || curl_easy_header(s->easy, name, 0, CURLH_HEADER, -1, &h) != CURLHE_OK)
		return NULL;
	return h->value;
}

HL_API void hl_send_sent(struct hl_send *s, const char *reference)
{
	s->kind = HL_SENT;
	s->reason = NULL;
	if (reference)
		s->reference = copy(s, reference);
}

HL_API void hl_send_later(struct hl_send *s, unsigned after_s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	s->kind = HL_SEND_LATER;
	s->after_s = after_s;
	s->reason = vformat(s, fmt, ap);
	va_end(ap);
}

HL_API void hl_send_failed(struct hl_send *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	s->kind = HL_SEND_FAILED;
	s->reason = vformat(s, fmt, ap);
	va_end(ap);
}

/* Failures before an answer that trying again will not mend: the
 * relay's certificate, a refused password, an address curl cannot use. */
static int lasting(CURLcode code)
{
	switch (code) {
	case CURLE_UNSUPPORTED_PROTOCOL:
	case CURLE_URL_MALFORMAT:
	case CURLE_LOGIN_DENIED:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_USE_SSL_FAILED:
		return 1;
	default:
		return 0;
	}
}

/* What the answer means when the provider's conclude did not say. */
static void conclude_by_default(struct hl_send *s)
{
	long st = s->status;
	const char *error = hl_send_error(s);
	const char *reply = s->smtp && s->answer_len ? s->answer : NULL;
	if (s->smtp && st >= 500)
		hl_send_failed(s, "%s", reply ? reply : error ? error : "refused by the relay");
	else if (s->smtp && st >= 400)
		hl_send_later(s, 0, "%s", reply ? reply : error ? error : "deferred by the relay");
	else if (error)
		lasting(s->code) ? hl_send_failed(s, "%s", error) : hl_send_later(s, 0, "%s", error);
	else if (st >= 200 && st < 300)
		hl_send_sent(s, NULL);
	else if (st == 408 || st == 429 || st >= 500)
		hl_send_later(s, 0, "HTTP %ld", st);
	else
		hl_send_failed(s, "HTTP %ld", st);
}

/* ---- sends ---------------------------------------------------------------- */

static size_t keep_answer(char *data, size_t size, size_t n, void *arg)
{
	struct hl_send *s = arg;
	size_t len = size * n, room = ANSWER_MAX - s->answer_len;
	if (len > room)
		len = room; /* the rest is read and dropped */
	if (len) {
		if (!s->answer)
			s->answer = arena_alloc(&s->arena, ANSWER_MAX + 1);
		memcpy(s->answer + s->answer_len, data, len);
		s->answer_len += len;
		s->answer[s->answer_len] = '\0';
	}
	return size * n;
}

static void send_free(struct hl_send *s)
{
	if (s->easy)
		curl_easy_cleanup(s->easy);
	curl_slist_free_all(s->headers);
	curl_slist_free_all(s->recipients);
	arena_release(&s->arena);
	free(s);
}

static struct hl_send *send_new(struct lane *lane, struct hl_mod *owner,
				const struct hl_outgoing *m)
{
	struct hl_send *s = calloc(1, sizeof(*s));
	if (!s || !(s->easy = curl_easy_init())) {
		free(s);
		return NULL;
	}
	s->lane = lane;
	s->owner = owner;
	s->settle = m->settle;
	s->location_id = m->location_id;
	s->id = m->id;
	CURL *e = s->easy;
	curl_easy_setopt(e, CURLOPT_PRIVATE, s);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)CONNECT_TIMEOUT_MS);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)TRANSFER_TIMEOUT_MS);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, s->error);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, keep_answer);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, s);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https,smtp,smtps");
	return s;
}

static struct lane *lane_of(struct sender *s, const char *channel)
{
	for (int i = 0; channel && i < s->nlanes; i++)
		if (!strcmp(s->lanes[i].c->c.name, channel))
			return &s->lanes[i];
	return NULL;
}

static void say(char *why, size_t size, const char *text)
{
	if (why && size)
		snprintf(why, size, "%s", text);
}

int sender_prepare(struct sender *s, struct hl_job_run *run, struct hl_mod *owner,
		   const struct hl_outgoing *m, struct send_list *l, char *why, size_t size)
{
	if (!m->settle || !m->channel)
		return HL_EINVAL;
	struct lane *lane = s ? lane_of(s, m->channel) : NULL;
	if (!lane)
		return HL_ENOENT; /* `why` stays empty: the owner names the channel */
	if (atomic_load(&s->stopping))
		return HL_ESTATE;
	unsigned max = lane->c->c.max_in_flight ? lane->c->c.max_in_flight : DEFAULT_IN_FLIGHT;
	if (atomic_load(&lane->in_flight) >= (int)max)
		return HL_ETOOBIG;
	struct hl_send *t = send_new(lane, owner, m);
	if (!t)
		return HL_ENOMEM;
	int rc = lane->c->c.prepare(run, t, m);
	if (rc < 0) {
		say(why, size, t->refusal ? t->refusal
			       : rc == HL_ENOENT ? "the channel is not set up for this sub-account"
			       : hl_strerror(rc));
		send_free(t);
		return rc;
	}
	atomic_fetch_add(&lane->in_flight, 1);
	if (l->tail)
		l->tail->next = t;
	else
		l->head = t;
	l->tail = t;
	return 0;
}

void send_list_clear(struct send_list *l)
{
	struct hl_send *t = l->head;
	while (t) {
		struct hl_send *next = t->next;
		atomic_fetch_sub(&t->lane->in_flight, 1);
		send_free(t);
		t = next;
	}
	l->head = l->tail = NULL;
}

void send_list_move(struct send_list *to, struct send_list *from)
{
	if (!from->head)
		return;
	if (to->tail)
		to->tail->next = from->head;
	else
		to->head = from->head;
	to->tail = from->tail;
	from->head = from->tail = NULL;
}

/* The sending thread, from another: it looks at what came. */
static void wake_sender(struct sender *s)
{
	uint64_t one = 1;
	if (write(s->wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		log_error("[send] could not wake the sending thread: %s", strerror(errno));
}

void sender_commit(struct sender *s, struct send_list *l)
{
	if (!l->head)
		return;
	if (!s) {
		send_list_clear(l);
		return;
	}
	pthread_mutex_lock(&s->lock);
	for (struct hl_send *t = l->head; t; t = t->next)
		s->stat.prepared++;
	if (s->incoming_tail)
		s->incoming_tail->next = l->head;
	else
		s->incoming = l->head;
	s->incoming_tail = l->tail;
	pthread_mutex_unlock(&s->lock);
	l->head = l->tail = NULL;
	wake_sender(s);
}

/* ---- the sending thread --------------------------------------------------- */

/* `t` has ended (code CURLE_OK: an answer came): its provider says what
 * that means; it joins the settled ones. */
static void settle(struct sender *s, struct hl_send *t, CURLcode code)
{
	t->code = code;
	if (t->easy)
		curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &t->status);
	if (t->lane->c->c.conclude)
		t->lane->c->c.conclude(t);
	if (!t->kind)
		conclude_by_default(t);
	atomic_fetch_sub(&t->lane->in_flight, 1);
	t->next = NULL;
	pthread_mutex_lock(&s->lock);
	s->stat.sent += t->kind == HL_SENT;
	s->stat.later += t->kind == HL_SEND_LATER;
	s->stat.failed += t->kind == HL_SEND_FAILED;
	if (s->settled_tail)
		s->settled_tail->next = t;
	else
		s->settled = t;
	s->settled_tail = t;
	atomic_fetch_add(&s->nsettled, 1);
	pthread_mutex_unlock(&s->lock);
}

/* Tell the scheduler once for all that settled in a round: woken per
 * send, it took them a few at a time, a transaction each. */
static void wake_scheduler(struct sender *s)
{
	pthread_mutex_lock(&s->lock);
	void (*wake)(void *) = s->wake;
	void *arg = s->wake_arg;
	pthread_mutex_unlock(&s->lock);
	if (wake)
		wake(arg);
}

static void on_the_way(struct sender *s, struct hl_send *t)
{
	t->way_prev = NULL;
	t->way_next = s->on_way;
	if (s->on_way)
		s->on_way->way_prev = t;
	s->on_way = t;
}

static void off_the_way(struct sender *s, struct hl_send *t)
{
	if (t->way_prev)
		t->way_prev->way_next = t->way_next;
	else
		s->on_way = t->way_next;
	if (t->way_next)
		t->way_next->way_prev = t->way_prev;
}

/* Put what was committed on its way. */
static int start_incoming(struct sender *s)
{
	int settled = 0;
	pthread_mutex_lock(&s->lock);
	struct hl_send *t = s->incoming;
	s->incoming = s->incoming_tail = NULL;
	pthread_mutex_unlock(&s->lock);
	while (t) {
		struct hl_send *next = t->next;
		t->next = NULL;
		if (curl_multi_add_handle(s->multi, t->easy) == CURLM_OK) {
			on_the_way(s, t);
		} else {
			snprintf(t->error, sizeof(t->error), "could not start the transfer");
			settle(s, t, CURLE_FAILED_INIT);
			settled++;
		}
		t = next;
	}
	return settled;
}

static int reap(struct sender *s)
{
	CURLMsg *msg;
	int left, settled = 0;
	while ((msg = curl_multi_info_read(s->multi, &left))) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		struct hl_send *t;
		CURL *e = msg->easy_handle;
		CURLcode code = msg->data.result;
		curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **)&t);
		curl_multi_remove_handle(s->multi, e);
		off_the_way(s, t);
		settle(s, t, code);
		settled++;
	}
	return settled;
}

/* What is still on its way when the thread ends is dropped unsettled:
 * it may or may not have left, so its owner's record stays as sending,
 * for a person to look at, rather than be sent again. */
static void abandon(struct sender *s)
{
	while (s->on_way) {
		struct hl_send *t = s->on_way;
		off_the_way(s, t);
		curl_multi_remove_handle(s->multi, t->easy);
		atomic_fetch_sub(&t->lane->in_flight, 1);
		send_free(t);
	}
}

/* libcurl's CURLMOPT_SOCKETFUNCTION: what it waits for on `fd`. */
static int watch_socket(CURL *easy, curl_socket_t fd, int what, void *arg, void *socket_arg)
{
	(void)easy, (void)socket_arg;
	struct sender *s = arg;
	if (what == CURL_POLL_REMOVE) {
		epoll_ctl(s->epoll, EPOLL_CTL_DEL, fd, NULL); /* gone already when closed */
		return 0;
	}
	struct epoll_event ev = { .data.fd = fd };
	ev.events = (what & CURL_POLL_IN ? EPOLLIN : 0) | (what & CURL_POLL_OUT ? EPOLLOUT : 0);
	if (epoll_ctl(s->epoll, EPOLL_CTL_MOD, fd, &ev) &&
	    (errno != ENOENT || epoll_ctl(s->epoll, EPOLL_CTL_ADD, fd, &ev)))
		/* Not -1, which would end every transfer: this one ends at
		 * its time-out, to be tried again. */
		log_error("[send] could not watch a transfer's socket: %s", strerror(errno));
	return 0;
}

/* libcurl's CURLMOPT_TIMERFUNCTION: when to call it back (-1: never). */
static int set_timer(CURLM *multi, long ms, void *arg)
{
	(void)multi;
	struct sender *s = arg;
	s->timer_us = ms < 0 ? -1 : now_us() + ms * 1000LL;
	return 0;
}

/* Until libcurl's timer or a socket's event, POLL_MS at most; libcurl
 * told of what happened. */
static void wait_and_drive(struct sender *s)
{
	struct epoll_event ev[64];
	int wait = POLL_MS, running;
	if (s->timer_us >= 0) {
		long long left = (s->timer_us - now_us() + 999) / 1000;
		wait = left <= 0 ? 0 : left < POLL_MS ? (int)left : POLL_MS;
	}
	int n = epoll_wait(s->epoll, ev, 64, wait);
	for (int i = 0; i < n; i++) {
		if (ev[i].data.fd == s->wake_fd) {
			uint64_t count;
			if (read(s->wake_fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
				log_error("[send] the wake-up could not be read: %s", strerror(errno));
			continue;
		}
		int e = ev[i].events;
		int flags = (e & EPOLLIN ? CURL_CSELECT_IN : 0) | (e & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
			    (e & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
		curl_multi_socket_action(s->multi, ev[i].data.fd, flags, &running);
	}
	if (s->timer_us >= 0 && now_us() >= s->timer_us) {
		s->timer_us = -1; /* set again by libcurl, as it needs */
		curl_multi_socket_action(s->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	}
}

static void *loop(void *arg)
{
	struct sender *s = arg;
	background_thread("hl-send");
	for (;;) {
		if (start_incoming(s)) /* some could not start: settled at once */
			wake_scheduler(s);
		pthread_mutex_lock(&s->lock);
		int stop = s->stop && (!s->on_way || now_us() >= s->deadline_us);
		pthread_mutex_unlock(&s->lock);
		if (stop)
			break;
		wait_and_drive(s);
		if (reap(s))
			wake_scheduler(s);
	}
	abandon(s);
	return NULL;
}

/* ---- start, stop ----------------------------------------------------------- */

/* What sender_start took, given back (a start that failed, or the end). */
static void sender_close(struct sender *s)
{
	if (s->multi)
		curl_multi_cleanup(s->multi); /* before the epoll its callback uses */
	if (s->epoll >= 0)
		close(s->epoll);
	if (s->wake_fd >= 0)
		close(s->wake_fd);
	free(s->lanes);
	free(s);
}

int sender_start(struct sender **out, const struct mod_channel *channels, int n)
{
	struct sender *s = calloc(1, sizeof(*s));
	*out = NULL;
	if (!s)
		return HL_ENOMEM;
	s->epoll = epoll_create1(EPOLL_CLOEXEC);
	s->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	s->timer_us = -1;
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = s->wake_fd };
	if ((n && !(s->lanes = calloc((size_t)n, sizeof(*s->lanes)))) ||
	    !(s->multi = curl_multi_init())) {
		sender_close(s);
		return HL_ENOMEM;
	}
	if (s->epoll < 0 || s->wake_fd < 0 ||
	    epoll_ctl(s->epoll, EPOLL_CTL_ADD, s->wake_fd, &ev)) {
		log_error("[send] the sending thread's epoll could not be set up: %s", strerror(errno));
		sender_close(s);
		return HL_EIO;
	}
	curl_multi_setopt(s->multi, CURLMOPT_SOCKETFUNCTION, watch_socket);
	curl_multi_setopt(s->multi, CURLMOPT_SOCKETDATA, s);
	curl_multi_setopt(s->multi, CURLMOPT_TIMERFUNCTION, set_timer);
	curl_multi_setopt(s->multi, CURLMOPT_TIMERDATA, s);
	long connections = 0;
	for (int i = 0; i < n; i++) {
		s->lanes[s->nlanes++].c = &channels[i];
		connections += channels[i].c.max_in_flight ? channels[i].c.max_in_flight : DEFAULT_IN_FLIGHT;
	}
	/* Room to keep a connection for every send a lane may have on its
	 * way. libcurl's own limit is four per transfer added at the time:
	 * when few were on their way it closed the rest, and the next burst
	 * opened them again (213 connections, each a TLS handshake, for
	 * 3,000 e-mails). */
	curl_multi_setopt(s->multi, CURLMOPT_MAXCONNECTS, connections);
	pthread_mutex_init(&s->lock, NULL);
	if (pthread_create(&s->thread, NULL, loop, s)) {
		pthread_mutex_destroy(&s->lock);
		sender_close(s);
		return HL_EIO;
	}
	*out = s;
	return 0;
}

void sender_stop(struct sender *s, int grace_ms)
{
	if (!s || s->stop)
		return;
	pthread_mutex_lock(&s->lock);
	s->stopping = s->stop = 1;
	s->deadline_us = now_us() + grace_ms * 1000LL;
	pthread_mutex_unlock(&s->lock);
	wake_sender(s);
	pthread_join(s->thread, NULL);
}

static void free_chain(struct hl_send *t)
{
	while (t) {
		struct hl_send *next = t->next;
		send_free(t);
		t = next;
	}
}

void sender_free(struct sender *s)
{
	if (!s)
		return;
	sender_stop(s, 0);
	free_chain(s->incoming);
	free_chain(s->settled);
	pthread_mutex_destroy(&s->lock);
	sender_close(s);
}

/* ---- settled sends, for the scheduler --------------------------------------- */

void sender_on_settled(struct sender *s, void (*wake)(void *arg), void *arg)
{
	pthread_mutex_lock(&s->lock);
	s->wake = wake;
	s->wake_arg = arg;
	pthread_mutex_unlock(&s->lock);
}

int sender_settled(const struct sender *s)
{
	return s ? atomic_load(&s->nsettled) : 0;
}

struct hl_send *sender_take(struct sender *s, int max)
{
	pthread_mutex_lock(&s->lock);
	struct hl_send *head = s->settled, *last = NULL;
	int n = 0;
	for (struct hl_send *t = head; t && n < max; t = t->next, n++)
		last = t;
	if (last) {
		s->settled = last->next;
		last->next = NULL;
		if (!s->settled)
			s->settled_tail = NULL;
		atomic_fetch_sub(&s->nsettled, n);
	}
	pthread_mutex_unlock(&s->lock);
	return last ? head : NULL;
}

struct hl_send *send_next(const struct hl_send *t)
{
	return t->next;
}

void send_outcome(const struct hl_send *t, struct hl_outcome *o, struct hl_mod **owner,
		  int (**settle_fn)(struct hl_job_run *, const struct hl_outcome *))
{
	*o = (struct hl_outcome){ .location_id = t->location_id, .id = t->id, .kind = t->kind,
				  .reason = t->reason, .reference = t->reference,
				  .retry_after_s = t->after_s };
	*owner = t->owner;
	*settle_fn = t->settle;
}

void sender_release(struct hl_send *chain)
{
	free_chain(chain);
}

void sender_put_back(struct sender *s, struct hl_send *chain)
{
	if (!chain)
		return;
	int n = 1;
	struct hl_send *last = chain;
	for (; last->next; last = last->next)
		n++;
	pthread_mutex_lock(&s->lock);
	last->next = s->settled;
	s->settled = chain;
	if (!s->settled_tail)
		s->settled_tail = last;
	atomic_fetch_add(&s->nsettled, n);
	pthread_mutex_unlock(&s->lock);
}

void sender_snapshot(struct sender *s, struct sender_stat *out)
{
	memset(out, 0, sizeof(*out));
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	*out = s->stat;
	pthread_mutex_unlock(&s->lock);
	for (int i = 0; i < s->nlanes; i++)
		out->in_flight += atomic_load(&s->lanes[i].in_flight);
}

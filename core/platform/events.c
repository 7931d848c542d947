/* SPDX-License-Identifier: MIT */
/*
 * events.c: the events of events.h: checking and recording what a module
 * publishes (hl_publish), the hand-over after a commit, the bounded queue
 * and its delivery to the handlers. Running a handler in a transaction is
 * the scheduler's job (jobs.c); this file never touches the database.
 *
 * A request's pending events live in a thread-local list: each HTTP worker
 * thread serves one request at a time, and http.c ends every request with
 * events_request_end, so the list never outlives its request.
 *
 * The queue is a FIFO under `lock`. `queued` is also an atomic so the
 * scheduler can test it under its own lock without taking this one (the
 * lock order is queue lock, then the scheduler's, in the wake call).
 */
#include "platform/events.h"
#include "lib/arena.h"
#include "lib/json.h"
#include "lib/log.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOG_EVERY_US (10 * 1000000LL) /* repeated complaints: one line per 10 s */

struct event {
	struct event *next;
	struct hl_event ev; /* name and data point into text */
	size_t size;        /* the allocation, for the byte bound */
	char text[];        /* name, NUL, data, NUL */
};

/* A complaint that may repeat fast: logged at once, then once per
 * LOG_EVERY_US with the number left unsaid. */
struct quiet_log {
	long long last_us;
	long long unsaid;
};

struct events {
	pthread_mutex_t lock;
	struct event_list queue;
	_Atomic int queued;
	const struct mod_handler *handlers;
	int nhandlers;
	event_listener *listener;
	void *listener_arg;
	event_waker *wake;
	void *wake_arg;
	struct quiet_log drops;    /* under lock */
	struct quiet_log failures; /* scheduler thread only */
	_Atomic long long published, delivered, failed, dropped;
};

static __thread struct event_list request_events;

/* ---- names and data ----------------------------------------------------- */

/* The characters of a name, dots at their places, in n bytes. */
static int name_chars_ok(const char *s, size_t n)
{
	if (!n || s[0] == '.' || s[n - 1] == '.')
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '.' ? s[i + 1] == '.' : !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
						   c == '_'))
			return 0;
	}
	return 1;
}

int events_name_ok(const char *name)
{
	size_t n = name ? strnlen(name, EVENT_NAME_MAX + 1) : 0;
	return n <= EVENT_NAME_MAX && name_chars_ok(name, n) && memchr(name, '.', n);
}

int events_pattern_ok(const char *pattern)
{
	size_t n = pattern ? strnlen(pattern, EVENT_NAME_MAX + 1) : 0;
	if (n > 2 && n <= EVENT_NAME_MAX && !strcmp(pattern + n - 2, ".*"))
		return name_chars_ok(pattern, n - 2);
	return events_name_ok(pattern);
}

int events_match(const char *pattern, const char *name)
{
	size_t n = strlen(pattern);
	if (n > 2 && !strcmp(pattern + n - 2, ".*"))
		return !strncmp(pattern, name, n - 1) && name[n - 1];
	return !strcmp(pattern, name);
}

/* A JSON object's text: '{' after any white space, and valid JSON. */
static int is_object(const char *data, size_t len)
{
	size_t lead = strspn(data, " \t\r\n");
	if (data[lead] != '{')
		return 0;
	struct arena a = { 0 };
	struct json_doc doc;
	size_t err_at;
	int ok = !json_parse(&doc, &a, data, len, (int)(len / 2 + 2), &err_at) &&
		 json_type(&doc, 0) == HL_JSON_OBJECT;
	arena_release(&a);
	return ok;
}

/* ---- pending lists ---------------------------------------------------- */

static const char *why_refused(const char *name, const char *data, size_t len)
{
	if (!events_name_ok(name))
		return "is not an event name (noun.verb of a-z, 0-9, _ and .)";
	if (!data)
		return NULL;
	if (len > EVENT_DATA_MAX)
		return "has data over 64 KB";
	if (!is_object(data, len))
		return "has data that is not a JSON object";
	return NULL;
}

/* One event in one allocation: the strings follow the struct. */
static struct event *event_new(const char *name, int64_t location_id, int64_t subject_id,
			       int64_t assigned_to, const char *data, size_t len)
{
	size_t nlen = strlen(name);
	size_t size = sizeof(struct event) + nlen + len + 2;
	struct event *e = malloc(size);
	if (!e)
		return NULL;
	memcpy(e->text, name, nlen + 1);
	memcpy(e->text + nlen + 1, data, len + 1);
	e->next = NULL;
	e->size = size;
	e->ev = (struct hl_event){ .name = e->text, .location_id = location_id,
				   .subject_id = subject_id, .data = e->text + nlen + 1,
				   .assigned_to = assigned_to };
	return e;
}

int event_list_add(struct event_list *l, const char *name, int64_t location_id,
		   int64_t subject_id, int64_t assigned_to, const char *data)
{
	size_t len = data ? strnlen(data, EVENT_DATA_MAX + 1) : 0;
	const char *why = why_refused(name, data, len);
	if (why) {
		log_error("an event '%.*s' %s: not published", EVENT_NAME_MAX,
			  name ? name : "(null)", why);
		return len > EVENT_DATA_MAX && events_name_ok(name) ? HL_ETOOBIG : HL_EINVAL;
	}
	if (l->n >= EVENTS_QUEUE_MAX || l->bytes + len > EVENTS_QUEUE_BYTES) {
		log_error("an event '%s': one transaction published more than the queue holds", name);
		return HL_ETOOBIG;
	}
	struct event *e = event_new(name, location_id, subject_id, assigned_to, data ? data : "{}",
				    data ? len : 2);
	if (!e)
		return HL_ENOMEM;
	if (l->tail)
		l->tail->next = e;
	else
		l->head = e;
	l->tail = e;
	l->n++;
	l->bytes += e->size;
	return 0;
}

void event_list_clear(struct event_list *l)
{
	for (struct event *e = l->head, *next; e; e = next) {
		next = e->next;
		free(e);
	}
	memset(l, 0, sizeof(*l));
}

void event_list_move(struct event_list *to, struct event_list *from)
{
	if (!from->head)
		return;
	if (to->tail)
		to->tail->next = from->head;
	else
		to->head = from->head;
	to->tail = from->tail;
	to->n += from->n;
	to->bytes += from->bytes;
	memset(from, 0, sizeof(*from));
}

HL_API int hl_publish_assigned(struct hl_req *req, const char *name, int64_t subject_id,
			       int64_t assigned_to, const char *data)
{
	if (!req)
		return HL_EINVAL;
	return event_list_add(&request_events, name, hl_location_id(req), subject_id, assigned_to,
			      data);
}

int events_publish_private(const char *name, int64_t user, int64_t subject_id)
{
	if (user <= 0)
		return HL_EINVAL;
	return event_list_add(&request_events, name, 0, subject_id, user, "{}");
}

HL_API int hl_publish(struct hl_req *req, const char *name, int64_t subject_id, const char *data)
{
	return hl_publish_assigned(req, name, subject_id, 0, data);
}

/* ---- the queue -------------------------------------------------------- */

int events_new(struct events **out, const struct mod_handler *handlers, int n)
{
	struct events *ev = calloc(1, sizeof(*ev));
	*out = ev;
	if (!ev)
		return HL_ENOMEM;
	pthread_mutex_init(&ev->lock, NULL);
	ev->handlers = handlers;
	ev->nhandlers = n;
	return 0;
}

void events_free(struct events *ev)
{
	if (!ev)
		return;
	if (ev->queue.n)
		log_info("  events: %d not delivered at the stop", ev->queue.n);
	event_list_clear(&ev->queue);
	pthread_mutex_destroy(&ev->lock);
	free(ev);
}

/* Whether quiet_log `q` may speak now, with `more` saying how many lines
 * it kept back; counts the silence otherwise. */
static int may_log(struct quiet_log *q, char more[static 64])
{
	long long now = now_us();
	if (q->last_us && now - q->last_us < LOG_EVERY_US) {
		q->unsaid++;
		return 0;
	}
	more[0] = '\0';
	if (q->unsaid)
		snprintf(more, 64, " (and %lld more since the last such line)", q->unsaid);
	q->unsaid = 0;
	q->last_us = now;
	return 1;
}

static int has_handler(const struct events *ev, const char *name)
{
	for (int i = 0; i < ev->nhandlers; i++)
		if (events_match(ev->handlers[i].h.event, name))
			return 1;
	return 0;
}

/* Queue `e`: 1, or 0 when the queue is full (queue lock held). */
static int enqueue(struct events *ev, struct event *e)
{
	struct event_list *q = &ev->queue;
	char more[64];
	e->next = NULL;
	if (q->n >= EVENTS_QUEUE_MAX || q->bytes + e->size > EVENTS_QUEUE_BYTES) {
		ev->dropped++;
		if (may_log(&ev->drops, more))
			log_warn("[event] the queue is full (%d events): %s dropped%s", q->n,
				 e->ev.name, more);
		return 0;
	}
	if (q->tail)
		q->tail->next = e;
	else
		q->head = e;
	q->tail = e;
	q->n++;
	q->bytes += e->size;
	return 1;
}

void events_commit(struct events *ev, struct event_list *l)
{
	if (!ev || !l->n) {
		event_list_clear(l);
		return;
	}
	pthread_mutex_lock(&ev->lock);
	for (struct event *e = l->head, *next; e; e = next) {
		next = e->next;
		ev->published++;
		if (ev->listener)
			ev->listener(ev->listener_arg, &e->ev);
		int queued = has_handler(ev, e->ev.name) && enqueue(ev, e);
		ev->queued = ev->queue.n;
		if (ev->wake)
			ev->wake(ev->wake_arg, &e->ev, queued);
		if (!queued)
			free(e);
	}
	memset(l, 0, sizeof(*l));
	if (ev->listener)
		ev->listener(ev->listener_arg, NULL); /* the hand-over is whole */
	pthread_mutex_unlock(&ev->lock);
}

void events_request_end(struct events *ev, int committed)
{
	if (committed)
		events_commit(ev, &request_events);
	else
		event_list_clear(&request_events);
}

void events_listen(struct events *ev, event_listener *fn, void *arg)
{
	pthread_mutex_lock(&ev->lock);
	ev->listener = fn;
	ev->listener_arg = arg;
	pthread_mutex_unlock(&ev->lock);
}

void events_on_queue(struct events *ev, event_waker *wake, void *arg)
{
	pthread_mutex_lock(&ev->lock);
	ev->wake = wake;
	ev->wake_arg = arg;
	pthread_mutex_unlock(&ev->lock);
}

int events_queued(const struct events *ev)
{
	return ev ? ev->queued : 0;
}

/* ---- delivery ----------------------------------------------------------- */

static struct event *take(struct events *ev)
{
	pthread_mutex_lock(&ev->lock);
	struct event *e = ev->queue.head;
	if (e) {
		ev->queue.head = e->next;
		if (!e->next)
			ev->queue.tail = NULL;
		ev->queue.n--;
		ev->queue.bytes -= e->size;
		ev->queued = ev->queue.n;
	}
	pthread_mutex_unlock(&ev->lock);
	return e;
}

static void handler_failed(struct events *ev, const struct mod_handler *h,
			   const struct hl_event *e, int rc)
{
	char more[64];
	ev->failed++;
	if (may_log(&ev->failures, more))
		log_error("[event] %s: the handler of '%s' failed on %s (%s); its writes were"
			  " rolled back%s", h->module, h->h.event, e->name, hl_strerror(rc), more);
}

int events_deliver(struct events *ev, event_call *call, void *arg, long long budget_us)
{
	long long until = now_us() + budget_us;
	struct event *e;
	while (now_us() < until && (e = take(ev))) {
		for (int i = 0; i < ev->nhandlers; i++) {
			const struct mod_handler *h = &ev->handlers[i];
			if (!events_match(h->h.event, e->ev.name))
				continue;
			int rc = call(arg, h, &e->ev);
			if (rc < 0)
				handler_failed(ev, h, &e->ev, rc);
			else
				ev->delivered++;
		}
		free(e);
	}
	return ev->queued > 0;
}

void events_snapshot(struct events *ev, struct event_stat *out)
{
	memset(out, 0, sizeof(*out));
	if (!ev)
		return;
	out->published = ev->published;
	out->delivered = ev->delivered;
	out->failed = ev->failed;
	out->dropped = ev->dropped;
	out->queued = ev->queued;
	out->handlers = ev->nhandlers;
}

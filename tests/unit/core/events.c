/* SPDX-License-Identifier: MIT */
/*
 * Tests core/platform/events.c without a server: which names and handler patterns
 * are taken, what a pending list accepts, that a hand-over shows every
 * event to the listener (the live channel's hook) but queues only those a
 * handler takes, the queue's bound, and delivery to the handlers in their
 * order with failures counted. test_events.py sees the same through HTTP.
 */
#include "platform/events.h"
#include "request/request.h"

#include <stdlib.h>
#include <string.h>

#include "../test.h"

static void names_and_patterns(void)
{
	CHECK(events_name_ok("contact.created"));
	CHECK(events_name_ok("a.b"));
	CHECK(events_name_ok("deal_2.stage.moved"));
	CHECK(!events_name_ok(NULL));
	CHECK(!events_name_ok(""));
	CHECK(!events_name_ok("contact"));
	CHECK(!events_name_ok(".contact.x"));
	CHECK(!events_name_ok("contact.x."));
	CHECK(!events_name_ok("contact..x"));
	CHECK(!events_name_ok("Contact.created"));
	CHECK(!events_name_ok("contact.cre ated"));
	CHECK(!events_name_ok("contact.*"));

	char name[EVENT_NAME_MAX + 2];
	memset(name, 'x', sizeof(name));
	name[1] = '.';
	name[EVENT_NAME_MAX] = '\0';
	CHECK(events_name_ok(name));
	name[EVENT_NAME_MAX] = 'x';
	name[EVENT_NAME_MAX + 1] = '\0';
	CHECK(!events_name_ok(name));

	CHECK(events_pattern_ok("contact.*"));
	CHECK(events_pattern_ok("contact.tag.*"));
	CHECK(events_pattern_ok("contact.created"));
	CHECK(!events_pattern_ok("*"));
	CHECK(!events_pattern_ok(".*"));
	CHECK(!events_pattern_ok("contact*"));
	CHECK(!events_pattern_ok("contact.*.x"));
	CHECK(!events_pattern_ok("Contact.*"));
	CHECK(!events_pattern_ok(NULL));

	CHECK(events_match("contact.*", "contact.created"));
	CHECK(events_match("contact.*", "contact.tag.added"));
	CHECK(!events_match("contact.*", "contacts.created"));
	CHECK(!events_match("contact.*", "contact"));
	CHECK(events_match("contact.created", "contact.created"));
	CHECK(!events_match("contact.created", "contact.created.too"));
}

static void pending_lists(void)
{
	struct event_list l = { 0 };
	CHECK_INT(event_list_add(&l, "a.b", 1, 2, 0, NULL), 0);
	CHECK_INT(event_list_add(&l, "a.b", 1, 2, 0, " {\"k\": [1, {\"x\": null}]} "), 0);
	CHECK_INT(event_list_add(&l, "a", 1, 2, 0, NULL), HL_EINVAL);
	CHECK_INT(event_list_add(&l, "a.b", 1, 2, 0, "[]"), HL_EINVAL);
	CHECK_INT(event_list_add(&l, "a.b", 1, 2, 0, "{\"k\":}"), HL_EINVAL);
	CHECK_INT(event_list_add(&l, "a.b", 1, 2, 0, "{} {}"), HL_EINVAL);
	char *big = malloc(EVENT_DATA_MAX + 16);
	memset(big, ' ', EVENT_DATA_MAX + 15);
	big[0] = '{';
	big[EVENT_DATA_MAX + 14] = '}';
	big[EVENT_DATA_MAX + 15] = '\0';
	CHECK_INT(event_list_add(&l, "a.b", 1, 2, 0, big), HL_ETOOBIG);
	free(big);
	CHECK_INT(l.n, 2);
	event_list_clear(&l);
	CHECK_INT(l.n, 0);
	CHECK(l.head == NULL);
	/* Without a queue a hand-over only frees. */
	CHECK_INT(event_list_add(&l, "a.b", 1, 2, 0, NULL), 0);
	events_commit(NULL, &l);
	CHECK_INT(l.n, 0);
}

/* ---- hand-over and delivery ------------------------------------------------ */

struct log {
	int n;
	char what[16][48];
};

/* Logs each event, and "end" after the last of a hand-over. */
static void listen(void *arg, const struct hl_event *e)
{
	struct log *lg = arg;
	if (lg->n < 16 && !e)
		snprintf(lg->what[lg->n++], sizeof(lg->what[0]), "end");
	else if (lg->n < 16)
		snprintf(lg->what[lg->n++], sizeof(lg->what[0]), "%s@%lld#%lld%s", e->name,
			 (long long)e->location_id, (long long)e->subject_id, e->data);
}

static int noop(struct hl_job_run *run, const struct hl_event *ev)
{
	(void)run;
	(void)ev;
	return 0;
}

static const struct mod_handler handlers[] = {
	{ .h = { .event = "thing.*", .handle = noop }, .module = "m1" },
	{ .h = { .event = "thing.created", .handle = noop }, .module = "m1" },
	{ .h = { .event = "thing.broken", .handle = noop }, .module = "m2" },
};

/* An event_call that logs "handler:event" and fails for thing.broken. */
static int call(void *arg, const struct mod_handler *h, const struct hl_event *e)
{
	struct log *lg = arg;
	if (lg->n < 16)
		snprintf(lg->what[lg->n++], sizeof(lg->what[0]), "%s:%s", h->h.event, e->name);
	return strcmp(h->h.event, "thing.broken") ? 0 : HL_EINVAL;
}

static void hand_over_and_deliver(void)
{
	struct events *ev;
	struct log heard = { 0 }, called = { 0 };
	CHECK_INT(events_new(&ev, handlers, 3), 0);
	events_listen(ev, listen, &heard);
	struct event_list l = { 0 };
	event_list_add(&l, "thing.created", 4, 5, 0, "{\"a\":1}");
	event_list_add(&l, "other.thing", 4, 0, 0, NULL);
	event_list_add(&l, "thing.broken", 6, 0, 0, NULL);
	events_commit(ev, &l);
	CHECK_INT(heard.n, 4);
	CHECK_STR(heard.what[0], "thing.created@4#5{\"a\":1}");
	CHECK_STR(heard.what[1], "other.thing@4#0{}");
	CHECK_STR(heard.what[2], "thing.broken@6#0{}");
	CHECK_STR(heard.what[3], "end");
	CHECK_INT(events_queued(ev), 2); /* nothing takes other.thing */

	/* A request's events: handed over only when it committed. */
	struct hl_req req = { .location_id = 9 };
	CHECK_INT(hl_publish(&req, "thing.lost", 1, NULL), 0);
	events_request_end(ev, 0);
	CHECK_INT(hl_publish(&req, "thing.kept", 1, NULL), 0);
	CHECK_INT(hl_publish(&req, "Thing.bad", 1, NULL), HL_EINVAL);
	events_request_end(ev, 1);
	CHECK_INT(heard.n, 6);
	CHECK_STR(heard.what[4], "thing.kept@9#1{}");
	CHECK_STR(heard.what[5], "end");

	CHECK_INT(events_deliver(ev, call, &called, 10 * 1000000LL), 0);
	CHECK_INT(called.n, 5);
	CHECK_STR(called.what[0], "thing.*:thing.created");
	CHECK_STR(called.what[1], "thing.created:thing.created");
	CHECK_STR(called.what[2], "thing.*:thing.broken");
	CHECK_STR(called.what[3], "thing.broken:thing.broken");
	CHECK_STR(called.what[4], "thing.*:thing.kept");

	struct event_stat st;
	events_snapshot(ev, &st);
	CHECK_INT(st.published, 4);
	CHECK_INT(st.delivered, 4);
	CHECK_INT(st.failed, 1);
	CHECK_INT(st.dropped, 0);
	CHECK_INT(st.queued, 0);
	CHECK_INT(st.handlers, 3);
	events_free(ev);
	events_snapshot(NULL, &st);
	CHECK_INT(st.published, 0);
}

static int wakes_queued, wakes_not;

static void wake(void *arg, const struct hl_event *e, int queued)
{
	(void)arg;
	(void)e;
	if (queued)
		wakes_queued++;
	else
		wakes_not++;
}

static void full_queue_drops_the_newest(void)
{
	struct events *ev;
	CHECK_INT(events_new(&ev, handlers, 1), 0);
	events_on_queue(ev, wake, NULL);
	struct event_list l = { 0 };
	for (int i = 0; i < EVENTS_QUEUE_MAX; i++)
		event_list_add(&l, "thing.n", 1, i, 0, NULL);
	CHECK_INT(event_list_add(&l, "thing.n", 1, -1, 0, NULL), HL_ETOOBIG);
	events_commit(ev, &l);
	for (int i = 0; i < 3; i++)
		event_list_add(&l, "thing.late", 1, i, 0, NULL);
	events_commit(ev, &l);
	/* Each event is told, the late ones as queued by nothing. */
	CHECK_INT(wakes_queued, EVENTS_QUEUE_MAX);
	CHECK_INT(wakes_not, 3);
	struct event_stat st;
	events_snapshot(ev, &st);
	CHECK_INT(st.queued, EVENTS_QUEUE_MAX);
	CHECK_INT(st.dropped, 3);
	events_on_queue(ev, NULL, NULL);
	events_free(ev); /* frees what is still queued */
}

TEST_MAIN(names_and_patterns, pending_lists, hand_over_and_deliver, full_queue_drops_the_newest)

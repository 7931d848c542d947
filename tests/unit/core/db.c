/* SPDX-License-Identifier: MIT */
/*
 * Tests the lending of read connections in core/db/db.c (included, to see
 * its queue of waiters): when every connection is out, the requests that
 * wait get them in the order they came, a connection given back goes to
 * the first of them and not to a newcomer, and one that stops waiting
 * leaves the queue without breaking it.
 */
#include "../../../core/db/db.c"

#include "../test.h"
#include "../temp_db.h"

/* A request waiting on its own thread for up to wait_ms. */
struct borrower {
	pthread_t thread;
	struct db *db;
	long long wait_ms;
	_Atomic(struct hl_db *) got;
	atomic_int done;
};

static void *borrow(void *arg)
{
	struct borrower *b = arg;
	atomic_store(&b->got, lend(b->db, b->wait_ms));
	atomic_store(&b->done, 1);
	return NULL;
}

static int queued(struct db *db)
{
	int n = 0;
	pthread_mutex_lock(&db->pool_lock);
	for (struct pool_waiter *w = db->waiters; w; w = w->next)
		n++;
	pthread_mutex_unlock(&db->pool_lock);
	return n;
}

/* Start b waiting and return once it stands in the queue, n long. */
static void start_waiting(struct borrower *b, struct db *db, long long wait_ms, int n)
{
	b->db = db;
	b->wait_ms = wait_ms;
	atomic_store(&b->got, NULL);
	atomic_store(&b->done, 0);
	pthread_create(&b->thread, NULL, borrow, b);
	while (queued(db) < n && !atomic_load(&b->done))
		sched_yield();
}

/* Return c and wait until b, the first in the queue, has it. */
static void give_back(struct db *db, struct hl_db *c, struct borrower *b)
{
	db_return(db, c);
	pthread_join(b->thread, NULL);
}

static void waiters_are_served_in_the_order_they_came(void)
{
	struct temp_db f;
	if (temp_db_open(&f, "db"))
		return;
	struct hl_db *one = db_lend(f.db), *two = db_lend(f.db);
	CHECK(one && two && one != two);
	CHECK(db_lend_now(f.db) == NULL);

	struct borrower first, second;
	start_waiting(&first, f.db, 10000, 1);
	start_waiting(&second, f.db, 10000, 2);
	CHECK_INT(queued(f.db), 2);

	give_back(f.db, one, &first);
	CHECK(atomic_load(&first.got) == one);
	CHECK_INT(atomic_load(&second.done), 0);
	/* The connection went to the waiter, not to the free list: a newcomer
	 * finds none. */
	CHECK(db_lend_now(f.db) == NULL);

	give_back(f.db, two, &second);
	CHECK(atomic_load(&second.got) == two);
	CHECK_INT(queued(f.db), 0);

	db_return(f.db, one);
	db_return(f.db, two);
	struct hl_db *again = db_lend_now(f.db);
	CHECK(again == one || again == two);
	db_return(f.db, again);
	temp_db_close(&f);
}

/* The queue's order after waiters leave it from its middle and its end,
 * linked by hand: no thread, no clock. */
static void a_waiter_that_gives_up_leaves_the_queue(void)
{
	struct temp_db f;
	if (temp_db_open(&f, "db"))
		return;
	struct hl_db *one = db_lend(f.db), *two = db_lend(f.db);
	struct pool_waiter w[4];
	memset(w, 0, sizeof(w));
	for (int i = 0; i < 3; i++)
		join_queue(f.db, &w[i]);
	leave_queue(f.db, &w[1]); /* from the middle */
	join_queue(f.db, &w[3]);  /* behind the last, through the queue's end */
	CHECK(f.db->waiters == &w[0] && w[0].next == &w[2] && w[2].next == &w[3] && !w[3].next);
	leave_queue(f.db, &w[3]); /* the end: the one before is the end again */
	CHECK(f.db->waiters_end == &w[2].next);
	leave_queue(f.db, &w[0]); /* the first */
	CHECK(f.db->waiters == &w[2]);
	leave_queue(f.db, &w[2]);
	CHECK(f.db->waiters == NULL && f.db->waiters_end == &f.db->waiters);

	/* A real wait that runs out leaves the queue empty, and the
	 * connection given back next goes to the free list. */
	struct borrower alone;
	start_waiting(&alone, f.db, 50, 1);
	pthread_join(alone.thread, NULL);
	CHECK(atomic_load(&alone.got) == NULL);
	CHECK_INT(queued(f.db), 0);
	db_return(f.db, one);
	CHECK(db_lend_now(f.db) == one);

	db_return(f.db, one);
	db_return(f.db, two);
	temp_db_close(&f);
}

TEST_MAIN(waiters_are_served_in_the_order_they_came, a_waiter_that_gives_up_leaves_the_queue)

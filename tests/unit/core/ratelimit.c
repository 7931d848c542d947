/* SPDX-License-Identifier: MIT */
/*
 * Tests core/lib/ratelimit.c on a table of 64 slots, small enough to fill: a
 * full strict table refuses only keys it has counted up to their limit,
 * never pushes a counted key out, and a refund to zero frees the slot.
 */
#define LIMITER_SLOTS 64
#include "../../../core/lib/ratelimit.c" /* its statics, with a small table */

#include "../test.h"

#define MAX 3

static void key(char out[32], const char *what, int i)
{
	snprintf(out, 32, "%s:%d", what, i);
}

/* Hits `n` keys once each; how many were refused. */
static int fill(struct limiter *l, const char *what, int n)
{
	char k[32];
	struct limit out;
	int refused = 0;
	for (int i = 0; i < n; i++) {
		key(k, what, i);
		refused += !limiter_hit(l, k, MAX, &out);
	}
	return refused;
}

static int used_slots(struct limiter *l)
{
	int n = 0;
	for (int i = 0; i < SLOTS; i++)
		n += l->slots[i].window != 0;
	return n;
}

static void a_full_strict_table_refuses_no_one_new(void)
{
	struct limiter *l = limiter_new(900, 1);
	struct limit out;
	CHECK_INT(fill(l, "guess", 10 * SLOTS), 0);
	CHECK_INT(used_slots(l), SLOTS);
	/* A key with no slot has nothing recorded: let through, every time. */
	int ok = 1;
	for (int i = 0; i < 2 * MAX; i++)
		ok &= limiter_hit(l, "account:new", MAX, &out);
	CHECK(ok);
	CHECK_INT(out.remaining, MAX);
	CHECK(!limiter_over(l, "account:new", MAX, &out));
	limiter_free(l);
}

static void a_full_strict_table_keeps_counting_who_it_holds(void)
{
	struct limiter *l = limiter_new(900, 1);
	struct limit out;
	for (int i = 0; i < MAX; i++)
		CHECK(limiter_hit(l, "account:victim", MAX, &out));
	CHECK_INT(fill(l, "guess", 10 * SLOTS), 0);
	/* The victim's counter was not pushed out by the flood. */
	CHECK(limiter_over(l, "account:victim", MAX, &out));
	CHECK(!limiter_hit(l, "account:victim", MAX, &out));
	CHECK_INT(out.remaining, 0);
	limiter_free(l);
}

static void a_refund_to_zero_frees_the_slot(void)
{
	struct limiter *l = limiter_new(900, 1);
	struct limit out;
	char k[32];
	for (int i = 0; i < 10 * SLOTS; i++) { /* good sign-ins: counted, then taken back */
		key(k, "good", i);
		limiter_hit(l, k, MAX, &out);
		limiter_refund(l, k);
	}
	CHECK_INT(used_slots(l), 0);
	/* So a new key is counted, and refused past its limit. */
	for (int i = 0; i < MAX; i++)
		CHECK(limiter_hit(l, "account:new", MAX, &out));
	CHECK(!limiter_hit(l, "account:new", MAX, &out));
	/* A refund that leaves some count keeps the slot. */
	limiter_refund(l, "account:new");
	CHECK_INT(used_slots(l), 1);
	CHECK(limiter_over(l, "account:new", MAX - 1, &out));
	limiter_free(l);
}

static void a_full_lenient_table_reuses_the_oldest(void)
{
	struct limiter *l = limiter_new(60, 0);
	struct limit out;
	CHECK_INT(fill(l, "ip", 10 * SLOTS), 0);
	CHECK_INT(used_slots(l), SLOTS);
	/* A new key gets a slot and is counted up to its limit. */
	for (int i = 0; i < MAX; i++)
		CHECK(limiter_hit(l, "ip:new", MAX, &out));
	CHECK(!limiter_hit(l, "ip:new", MAX, &out));
	limiter_free(l);
}

TEST_MAIN(a_full_strict_table_refuses_no_one_new,
	  a_full_strict_table_keeps_counting_who_it_holds,
	  a_refund_to_zero_frees_the_slot,
	  a_full_lenient_table_reuses_the_oldest)

/* SPDX-License-Identifier: MIT */
/*
 * Tests core/lib/tally.c: a key counts up to its max and no further, a give
 * takes one back, a key that holds nothing is forgotten (its memory
 * freed: the sanitizer build would report a leak), and keys in one chain
 * keep their own counts.
 */
#include "../../../core/lib/tally.c" /* its statics: the chains */

#include "../test.h"

static int entries(struct tally *t)
{
	int n = 0;
	for (int i = 0; i < BUCKETS; i++)
		for (struct entry *e = t->bucket[i]; e; e = e->next)
			n++;
	return n;
}

static void a_key_holds_up_to_its_max(void)
{
	struct tally *t = tally_new();
	for (int i = 0; i < 3; i++)
		CHECK_INT(tally_take(t, "user:7", 3), 0);
	CHECK_INT(tally_take(t, "user:7", 3), HL_ETOOBIG);
	CHECK_INT(tally_count(t, "user:7"), 3);
	CHECK_INT(tally_take(t, "user:8", 3), 0); /* another key is not held back */
	tally_give(t, "user:7");
	CHECK_INT(tally_take(t, "user:7", 3), 0);
	CHECK_INT(tally_take(t, "nobody", 0), HL_ETOOBIG);
	CHECK_INT(tally_count(t, "nobody"), 0);
	tally_free(t);
}

static void a_key_that_holds_nothing_is_forgotten(void)
{
	struct tally *t = tally_new();
	char key[32];
	for (int i = 0; i < 5000; i++) { /* more keys than buckets: chains */
		snprintf(key, sizeof(key), "address:10.0.%d.%d", i / 256, i % 256);
		CHECK_INT(tally_take(t, key, 2), 0);
	}
	CHECK_INT(entries(t), 5000);
	for (int i = 0; i < 5000; i += 2) {
		snprintf(key, sizeof(key), "address:10.0.%d.%d", i / 256, i % 256);
		tally_give(t, key);
	}
	CHECK_INT(entries(t), 2500);
	CHECK_INT(tally_count(t, "address:10.0.0.1"), 1);
	CHECK_INT(tally_count(t, "address:10.0.0.0"), 0);
	tally_give(t, "never-taken"); /* harmless */
	tally_free(t);                /* frees the 2,500 left */
}

TEST_MAIN(a_key_holds_up_to_its_max,
	  a_key_that_holds_nothing_is_forgotten)

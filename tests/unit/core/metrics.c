/* SPDX-License-Identifier: MIT */
/*
 * metrics.c: the latency buckets and percentiles of core/http/metrics.c, and
 * the slow-query fingerprints of core/db/slowsql.c.
 */
#include "http/metrics.h"
#include "db/slowsql.h"

#include <math.h>
#include <stdlib.h>

#include "../test.h"

/* Every value falls in a bucket whose middle is within 3.2 % of it. */
static void buckets_are_within_a_few_percent(void)
{
	int worst_ok = 1, monotonic = 1, prev = -1;
	for (uint64_t us = 1; us < 100000000; us += us / 97 + 1) {
		int b = metrics_bucket(us);
		double mid = metrics_bucket_middle(b);
		if (us >= 16 && fabs(mid - (double)us) / (double)us > 0.032)
			worst_ok = 0;
		if (b < prev)
			monotonic = 0;
		prev = b;
	}
	CHECK(worst_ok);
	CHECK(monotonic);
	CHECK_INT(metrics_bucket(0), 0);
	CHECK_INT(metrics_bucket(15), 15);
	CHECK_INT(metrics_bucket(16), 16);
	CHECK_INT(metrics_bucket(UINT64_MAX), METRICS_BUCKETS - 1);
}

static void percentiles_follow_the_values(void)
{
	struct route_metrics *rm = calloc(1, sizeof(*rm));
	/* 1 .. 1000 ms, one request each. */
	for (uint64_t ms = 1; ms <= 1000; ms++)
		rm->bucket[metrics_bucket(ms * 1000)]++;
	double p50 = metrics_percentile(rm, 0.50), p99 = metrics_percentile(rm, 0.99);
	CHECK(fabs(p50 - 500000) / 500000 < 0.035);
	CHECK(fabs(p99 - 990000) / 990000 < 0.035);
	CHECK(metrics_percentile(rm, 0.95) < p99);
	memset(rm, 0, sizeof(*rm));
	CHECK(metrics_percentile(rm, 0.5) == 0);
	free(rm);
}

static const char *print(const char *sql)
{
	static char out[200];
	sql_fingerprint(sql, out, sizeof(out));
	return out;
}

static void fingerprints_hide_every_literal(void)
{
	CHECK_STR(print("SELECT * FROM contacts WHERE email = 'ann@x.test' AND id > 42"),
		  "SELECT * FROM contacts WHERE email = ? AND id > ?");
	CHECK_STR(print("select 'it''s', -1.5e3, 0x1F, X'00ff', ?1, :loc, @a, $b"),
		  "select ?, -?, ?, ?, ?, ?, ?, ?");
	CHECK_STR(print("SELECT \"a'b\", [x 1], t1.c2 FROM t1  -- note 7\n  WHERE v IN (1,2)"),
		  "SELECT \"a'b\", [x 1], t1.c2 FROM t1 WHERE v IN (?,?)");
	CHECK_STR(print("  SELECT /* 'hidden' */ 1 "), "SELECT ?");
	CHECK_STR(print("SELECT 'unterminated"), "SELECT ?");
	char tiny[8];
	CHECK_INT((long long)sql_fingerprint("SELECT 123456789", tiny, sizeof(tiny)), 6);
	CHECK_STR(tiny, "SELECT");
}

TEST_MAIN(buckets_are_within_a_few_percent,
	  percentiles_follow_the_values,
	  fingerprints_hide_every_literal)

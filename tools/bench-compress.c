/* SPDX-License-Identifier: MIT */
/*
 * bench-compress: what compressing an answer costs per KB, with the
 * server's own compressors (compress_into, at the quality it picks for the
 * size) and heap settings (heap_tune), on a list page of 500 contacts in
 * the API's JSON shape (about 105 KB), or on an answer saved to FILE
 * (curl -H 'Accept-Encoding: identity' ... > FILE).
 *
 *   bench-compress [ROUNDS [FILE]]   (default 7; the best round is printed)
 */
#include "lib/compress.h"
#include "lib/heap.h"
#include "lib/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const first[] = { "Anna", "Ben", "Carla", "Dmitri", "Eve", "Farah", "Gus" };
static const char *const last[] = { "Smith", "Jones", "Garcia", "Kowalski", "Nguyen", "Okafor" };

static void page(struct buf *b)
{
	buf_printf(b, "{\"data\":[");
	for (int i = 0; i < 500; i++)
		buf_printf(b, "%s{\"id\":%d,\"first_name\":\"%s%d\",\"last_name\":\"%s\","
			      "\"email\":\"person%d@example%d.test\",\"phone\":\"+1 555 %07d\","
			      "\"company_name\":\"Company %d\",\"created_at\":\"2026-0%d-1%dT10:%02d:00Z\","
			      "\"updated_at\":\"2026-11-2%dT08:%02d:00Z\",\"tags\":[\"lead\"]}",
			   i ? "," : "", 100000 - i, first[i % 7], i % 13, last[(i * 5) % 6], i, i % 40,
			   i * 7919 % 10000000, i % 97, 1 + i % 9, i % 10, i % 60, i % 9, i % 60);
	buf_printf(b, "],\"next_cursor\":\"99500\"}");
}

int main(int argc, char **argv)
{
	char detail[256];
	int rounds = argc > 1 ? atoi(argv[1]) : 7, per_round = 20;
	struct buf in = { 0 }, out = { 0 };
	heap_tune(detail, sizeof(detail));
	if (argc > 2 && buf_read_file(&in, argv[2], 64u << 20)) {
		fprintf(stderr, "bench-compress: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	if (argc <= 2)
		page(&in);
	if (in.oom || rounds < 1 || argc > 3) {
		fprintf(stderr, "usage: bench-compress [ROUNDS [FILE]]\n");
		return 2;
	}
	const enum coding codings[] = { CODING_GZIP, CODING_BR };
	for (int k = 0; k < 2; k++) {
		double best = 1e18;
		for (int r = 0; r < rounds; r++) {
			long long t = now_us();
			for (int i = 0; i < per_round; i++) {
				out.len = 0;
				compress_into(codings[k], in.data, in.len, &out);
			}
			double us = (double)(now_us() - t) / per_round;
			best = us < best ? us : best;
		}
		printf("%-4s %zu -> %zu bytes (%.1f%%), %.0f us an answer, %.2f us per KB\n",
		       coding_name(codings[k]), in.len, out.len, 100.0 * (double)out.len / (double)in.len,
		       best, best / ((double)in.len / 1024.0));
	}
	buf_release(&in);
	buf_release(&out);
	compress_thread_release();
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * csv: the CSV reader behind imports (core/lib/csv.c). Every record of the
 * input is read with hl_csv_next and its fields fetched; then the input is
 * read again as the import job does across its slices, reopening the
 * reader at the offset and line the first pass gave after record k (k
 * from the input's first byte; the end when there are fewer), and the
 * rest must come out the same.
 */
#include <hyperlevel/hyperlevel.h>

#include "fuzz.h"

struct pass {
	uint64_t digest;    /* of every outcome and field from record `from` on */
	size_t offset;      /* where the reader stood after record `from` - 1 */
	long line;
};

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ull;
	return h;
}

static void check_fields(struct hl_csv *c, int n, size_t size, uint64_t *h)
{
	for (int i = 0; i < n; i++) {
		size_t len;
		const char *f = hl_csv_field(c, i, &len);
		/* No NUL inside a field: a NUL byte refuses the record. */
		FUZZ_CHECK(f && strlen(f) == len && len <= size);
		*h = mix(*h, &len, sizeof(len));
		*h = mix(*h, f, len);
	}
	size_t len = 1;
	FUZZ_CHECK(!hl_csv_field(c, n, &len) && !len && !hl_csv_field(c, -1, NULL));
}

/* Read from (offset, line) to the end; the digest covers records from
 * number `from` on, and the position before that record is kept. */
static struct pass read_all(const char *data, size_t size, size_t offset, long line, int from)
{
	struct pass p = { .digest = 0xcbf29ce484222325ull, .offset = offset, .line = line };
	struct hl_csv *c = hl_csv_open(data, size, offset, line);
	FUZZ_CHECK(c);
	size_t last = hl_csv_offset(c);
	for (int k = 0;; k++) {
		if (k == from) {
			p.offset = hl_csv_offset(c);
			p.line = hl_csv_line(c);
		}
		int n = hl_csv_next(c);
		FUZZ_CHECK(n >= 0 || n == HL_EINVAL);
		FUZZ_CHECK(hl_csv_offset(c) <= size && hl_csv_offset(c) >= last);
		FUZZ_CHECK(hl_csv_record_line(c) <= hl_csv_line(c));
		if (n == HL_EINVAL)
			FUZZ_CHECK(hl_csv_error(c));
		if (k >= from) {
			p.digest = mix(p.digest, &n, sizeof(n));
			long l = hl_csv_record_line(c);
			p.digest = mix(p.digest, &l, sizeof(l));
			check_fields(c, n > 0 ? n : 0, size, &p.digest);
		}
		if (!n) {
			if (k < from) { /* fewer records: resume at the end */
				p.offset = hl_csv_offset(c);
				p.line = hl_csv_line(c);
				long l = hl_csv_record_line(c);
				p.digest = mix(mix(p.digest, &n, sizeof(n)), &l, sizeof(l));
			}
			break;
		}
		FUZZ_CHECK(hl_csv_offset(c) > last); /* each record moves on */
		last = hl_csv_offset(c);
	}
	hl_csv_close(c);
	return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	int from = data[0] % 8;
	char *text = malloc(size);
	FUZZ_CHECK(text);
	memcpy(text, data, size);
	struct pass whole = read_all(text, size, 0, 1, from);
	struct pass resumed = read_all(text, size, whole.offset, whole.line, 0);
	FUZZ_CHECK(whole.digest == resumed.digest);
	free(text);
	return 0;
}

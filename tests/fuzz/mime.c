/* SPDX-License-Identifier: MIT */
/*
 * mime: reading mail that arrives (modules/email/parse.c, over GMime), as
 * POST /api/email/inbound reads it. Whatever the bytes, the parse ends;
 * every string it gives is valid UTF-8 (the thread and the JSON take
 * nothing else); each kept attachment is within the limit and one over
 * it is named without its bytes; a bounce names why.
 */
#include <glib.h>

#include "fuzz.h"
#include "parse.h"

#define LIMIT 4096

static void check_text(const char *s)
{
	FUZZ_CHECK(!s || g_utf8_validate(s, -1, NULL));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	if (!ready) {
		received_init();
		ready = 1;
	}
	struct received r;
	FUZZ_CHECK(received_parse((const char *)data, size, LIMIT, &r) == 0);
	const char *strings[] = { r.from, r.from_name, r.to, r.subject, r.message_id,
				  r.text, r.warning, r.bounced_id, r.bounced_to, r.bounce_reason };
	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		check_text(strings[i]);
	FUZZ_CHECK(!r.message_id || (r.message_id[0] == '<' && strchr(r.message_id, '>')));
	FUZZ_CHECK(!r.bounce || r.bounce_reason);
	FUZZ_CHECK(r.nanswers <= ANSWERS_MAX);
	for (size_t i = 0; i < r.nanswers; i++) {
		const char *id = r.answers[i];
		FUZZ_CHECK(id[0] == '<' && id[strlen(id) - 1] == '>' && strlen(id) > 2);
		for (size_t k = 0; k < i; k++)
			FUZZ_CHECK(strcmp(r.answers[k], id));
	}
	for (size_t i = 0; i < r.nattachments; i++) {
		const struct attachment *a = &r.attachments[i];
		check_text(a->name);
		FUZZ_CHECK(a->name && a->type);
		FUZZ_CHECK(a->too_big ? !a->data && a->len > LIMIT : a->len <= LIMIT);
	}
	received_free(&r);
	return 0;
}

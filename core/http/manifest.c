/* SPDX-License-Identifier: MIT */
/*
 * manifest.c: reading a web folder's manifest.json (manifest.h) with the
 * core's JSON reader, into pairs kept for the life of the process. It
 * checks only the shape (an object of strings); what a name may look like
 * is its users' rule.
 */
#include "http/manifest.h"
#include "lib/arena.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "lib/log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pair {
	const char *name, *built;
};

struct manifest {
	struct arena arena; /* the pairs' strings */
	struct pair *pairs;
	int n;
};

/* The whole file into `text`. HL_ENOENT when there is none; other
 * failures are logged. */
static int read_text(const char *path, struct buf *text)
{
	if (!buf_read_file(text, path, MANIFEST_MAX_BYTES))
		return 0;
	switch (errno) {
	case ENOENT:
		return HL_ENOENT;
	case ENOMEM:
		return HL_ENOMEM;
	case EFBIG:
		log_warn("%s: over %d bytes", path, MANIFEST_MAX_BYTES);
		return HL_EINVAL;
	case EINVAL:
		log_warn("%s: not a regular file", path);
		return HL_EIO;
	default:
		log_warn("%s: cannot be read: %s", path, strerror(errno));
		return HL_EIO;
	}
}

/* The pairs of the object at the document's root; HL_EINVAL, logged. */
static int take_pairs(struct manifest *m, const struct json_doc *d, const char *path)
{
	if (json_type(d, 0) != HL_JSON_OBJECT) {
		log_warn("%s: not a JSON object", path);
		return HL_EINVAL;
	}
	int n = json_count(d, 0);
	if (n && !(m->pairs = calloc((size_t)n, sizeof(*m->pairs))))
		return HL_ENOMEM;
	for (int key = json_next_key(d, 0, -1); key >= 0; key = json_next_key(d, 0, key)) {
		const char *name = json_string(d, key, &m->arena);
		const char *built = json_string(d, key + 1, &m->arena);
		if (!built) {
			log_warn("%s: the value of \"%s\" is not a string", path, name);
			return HL_EINVAL;
		}
		m->pairs[m->n++] = (struct pair){ name, built };
	}
	return 0;
}

int manifest_read(struct manifest **out, const char *dir)
{
	char *path = NULL;
	struct buf text = BUF_INIT;
	struct arena scratch = { 0 }; /* the parser's tokens */
	struct manifest *m = NULL;
	struct json_doc doc;
	size_t err_at = 0;
	int rc = 0;
	*out = NULL;
	if (asprintf(&path, "%s/%s", dir, MANIFEST_NAME) < 0) {
		path = NULL;
		rc = HL_ENOMEM;
		goto out;
	}
	if ((rc = read_text(path, &text))) {
		if (rc == HL_ENOENT)
			rc = 0;
		goto out;
	}
	if (!(m = calloc(1, sizeof(*m)))) {
		rc = HL_ENOMEM;
		goto out;
	}
	if (json_parse(&doc, &scratch, text.data ? text.data : "", text.len, MANIFEST_MAX_BYTES / 4,
		       &err_at)) {
		log_warn("%s: not valid JSON (at byte %zu)", path, err_at);
		rc = HL_EINVAL;
		goto out;
	}
	if ((rc = take_pairs(m, &doc, path)))
		goto out;
	*out = m;
	m = NULL;
out:
	manifest_free(m);
	arena_release(&scratch);
	buf_release(&text);
	free(path);
	return rc;
}

const char *manifest_lookup(const struct manifest *m, const char *name)
{
	for (int i = 0; m && i < m->n; i++)
		if (!strcmp(m->pairs[i].name, name))
			return m->pairs[i].built;
	return NULL;
}

void manifest_free(struct manifest *m)
{
	if (!m)
		return;
	arena_release(&m->arena);
	free(m->pairs);
	free(m);
}

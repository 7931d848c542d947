/* SPDX-License-Identifier: MIT */
/*
 * manifest.c: reading a web folder's manifest.json (manifest.h) with the
 * core's JSON reader, into pairs kept for the life of the process. It
 * checks only the shape (an object of strings); what a name may look like
 * is its users' rule.
 */
#include "manifest.h"
#include "arena.h"
#include "json.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct pair {
	const char *name, *built;
};

struct manifest {
	struct arena arena; /* the pairs' strings */
	struct pair *pairs;
	int n;
};

/* The whole file into *text (NUL-terminated, malloc'ed). HL_ENOENT when
 * there is none; other failures are logged. */
static int read_text(const char *path, char **text, size_t *len)
{
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	int rc = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT)
			return HL_ENOENT;
		log_warn("%s: cannot be read: %s", path, strerror(errno));
		return HL_EIO;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		log_warn("%s: not a regular file", path);
		rc = HL_EIO;
		goto out;
	}
	if (st.st_size > MANIFEST_MAX_BYTES) {
		log_warn("%s: over %d bytes", path, MANIFEST_MAX_BYTES);
		rc = HL_EINVAL;
		goto out;
	}
	if (!(buf = malloc((size_t)st.st_size + 1))) {
		rc = HL_ENOMEM;
		goto out;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n <= 0) {
			log_warn("%s: cannot be read: %s", path, n ? strerror(errno) : "cut short");
			rc = HL_EIO;
			goto out;
		}
		got += (size_t)n;
	}
	buf[got] = '\0';
	*text = buf;
	*len = got;
	buf = NULL;
out:
	close(fd);
	free(buf);
	return rc;
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
	char *path = NULL, *text = NULL;
	struct arena scratch = { 0 }; /* the parser's tokens */
	struct manifest *m = NULL;
	struct json_doc doc;
	size_t len = 0, err_at = 0;
	int rc = 0;
	*out = NULL;
	if (asprintf(&path, "%s/%s", dir, MANIFEST_NAME) < 0) {
		path = NULL;
		rc = HL_ENOMEM;
		goto out;
	}
	if ((rc = read_text(path, &text, &len))) {
		if (rc == HL_ENOENT)
			rc = 0;
		goto out;
	}
	if (!(m = calloc(1, sizeof(*m)))) {
		rc = HL_ENOMEM;
		goto out;
	}
	if (json_parse(&doc, &scratch, text, len, MANIFEST_MAX_BYTES / 4, &err_at)) {
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
	free(text);
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

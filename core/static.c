/* SPDX-License-Identifier: MIT */
/*
 * static.c: the browser app's files, from the web folder.
 *
 * Only files inside the folder can be reached: the path is decoded segment
 * by segment, "." and ".." segments are refused, and the file's real path
 * (symlinks resolved) must still lie inside the folder's real path. A path
 * without a file extension that names no file is a page of the app and gets
 * index.html; anything else missing is a real 404.
 */
#include "log.h"
#include "request.h"
#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct media {
	const char *ext, *type;
};

static const struct media media[] = {
	{ ".html", "text/html; charset=utf-8" },
	{ ".js", "text/javascript; charset=utf-8" },
	{ ".mjs", "text/javascript; charset=utf-8" },
	{ ".css", "text/css; charset=utf-8" },
	{ ".json", "application/json; charset=utf-8" },
	{ ".webmanifest", "application/manifest+json" },
	{ ".svg", "image/svg+xml" },
	{ ".png", "image/png" },
	{ ".ico", "image/x-icon" },
	{ ".woff2", "font/woff2" },
	{ ".txt", "text/plain; charset=utf-8" },
};

static const char *media_type(const char *path)
{
	const char *dot = strrchr(path, '.');
	for (size_t i = 0; dot && i < sizeof(media) / sizeof(media[0]); i++)
		if (!strcmp(dot, media[i].ext))
			return media[i].type;
	return "application/octet-stream";
}

/* The decoded path relative to the web folder, or NULL when unsafe. */
static char *safe_relative(struct hl_req *r)
{
	char *rel = request_decode(r, r->path + 1, r->path_len - 1, 0);
	if (!rel || strchr(rel, '\\'))
		return NULL;
	for (char *seg = rel; seg;) {
		char *slash = strchr(seg, '/');
		size_t len = slash ? (size_t)(slash - seg) : strlen(seg);
		if ((len == 1 && seg[0] == '.') || (len == 2 && seg[0] == '.' && seg[1] == '.'))
			return NULL;
		seg = slash ? slash + 1 : NULL;
	}
	return rel;
}

/* Read the file at `path` (already checked) into the answer. */
static int send_file(struct hl_req *r, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return HL_ENOENT;
	}
	request_reset_answer(r);
	buf_reserve(&r->out, (size_t)st.st_size);
	ssize_t got = 0;
	while (!r->out.oom && (size_t)got < (size_t)st.st_size) {
		ssize_t n = read(fd, r->out.data + r->out.len + got, (size_t)st.st_size - (size_t)got);
		if (n <= 0)
			break;
		got += n;
	}
	close(fd);
	if (r->out.oom || got != st.st_size)
		return HL_EIO;
	r->out.len += (size_t)got;
	r->status = 200;
	r->content_type = media_type(path);
	r->cache_control = "no-cache";
	r->replied = 1;
	return 0;
}

/* The real path of web_root/rel, if it exists inside web_root. */
static char *inside(struct hl_req *r, const char *rel)
{
	char *joined = hl_sprintf(r, "%s/%s", r->srv->web_root, rel);
	char real[PATH_MAX];
	if (!realpath(joined, real))
		return NULL;
	size_t n = strlen(r->srv->web_root);
	if (strncmp(real, r->srv->web_root, n) || real[n] != '/')
		return NULL;
	return hl_strndup(r, real, strlen(real));
}

void static_serve(struct hl_req *r)
{
	char *rel = safe_relative(r);
	if (!rel) {
		hl_reply_error(r, 404, "not_found", "nothing here");
		return;
	}
	const char *last = strrchr(rel, '/');
	last = last ? last + 1 : rel;
	char *file = *rel ? inside(r, rel) : NULL;
	struct stat st;
	if (file && !stat(file, &st) && S_ISDIR(st.st_mode))
		file = inside(r, hl_sprintf(r, "%s/index.html", rel));
	else if (!file && !strchr(last, '.'))
		file = inside(r, "index.html"); /* a page of the app */
	if (!file || send_file(r, file))
		hl_reply_error(r, 404, "not_found", "nothing here");
}

/* SPDX-License-Identifier: MIT */
/*
 * conf.c: reading and changing the `key = value` files of conf.h.
 */
#include "lib/conf.h"
#include "lib/log.h"

#include <hyperlevel/hyperlevel.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static int parse_line(char *s, char **key, char **value)
{
	char *eq = strchr(s, '=');
	if (!eq)
		return -1;
	*eq = '\0';
	*key = trim(s);
	*value = trim(eq + 1);
	if (!**key || strspn(*key, "abcdefghijklmnopqrstuvwxyz0123456789_.-") != strlen(*key))
		return -1;
	size_t n = strlen(*value);
	if (n >= 2 && (*value)[0] == '"' && (*value)[n - 1] == '"') {
		(*value)[n - 1] = '\0';
		(*value)++;
	}
	return 0;
}

int conf_read(const char *path, conf_fn *fn, void *arg)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return HL_EIO;
	char line[4096];
	int lineno = 0, rc = 0;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		char *s = trim(line);
		if (!*s || *s == '#')
			continue;
		char *key, *value;
		if (parse_line(s, &key, &value)) {
			log_error("%s:%d: expected 'name = value'", path, lineno);
			rc = HL_EINVAL;
			break;
		}
		rc = fn(arg, key, value, lineno);
		if (rc)
			break;
	}
	fclose(f);
	return rc;
}

/* Whether `line` sets `key`. */
static int sets(const char *line, const char *key)
{
	char copy[4096], *k, *v;
	snprintf(copy, sizeof(copy), "%s", line);
	char *s = trim(copy);
	return *s && *s != '#' && !parse_line(s, &k, &v) && !strcmp(k, key);
}

/* Whether `line` is a setting (not blank, not a comment). */
static int is_setting(const char *line)
{
	while (isspace((unsigned char)*line))
		line++;
	return *line && *line != '#';
}

/* Whether the file `f` sets `key` anywhere; rewinds it. */
static int file_sets(FILE *f, const char *key)
{
	char line[4096];
	int found = 0;
	while (f && !found && fgets(line, sizeof(line), f))
		found = sets(line, key);
	if (f)
		rewind(f);
	return found;
}

/* The new text of a conf: `old` (NULL: none) with `key` set, on the line
 * that set it, or on a new one before the first setting. */
static int write_set(FILE *out, FILE *old, const char *key, const char *value)
{
	char line[4096];
	int present = file_sets(old, key), done = 0, ended = 1;
	while (old && fgets(line, sizeof(line), old)) {
		if (!done && (present ? sets(line, key) : is_setting(line))) {
			fprintf(out, "%s = %s\n", key, value);
			done = 1;
			if (present)
				continue;
		}
		fputs(line, out);
		ended = line[strlen(line) - 1] == '\n';
	}
	if (!done)
		fprintf(out, "%s%s = %s\n", ended ? "" : "\n", key, value);
	return ferror(out) || (old && ferror(old)) ? HL_EIO : 0;
}

int conf_set(const char *path, const char *key, const char *value)
{
	/* A symlinked conf is changed where it lies. */
	char real[4096], tmp[4200];
	if (!realpath(path, real))
		snprintf(real, sizeof(real), "%s", path);
	snprintf(tmp, sizeof(tmp), "%s.new", real);
	struct stat st;
	int existed = !stat(real, &st);
	FILE *old = fopen(real, "r");
	if (!old && errno != ENOENT) {
		log_error("%s: cannot be read: %s", real, strerror(errno));
		return HL_EIO;
	}
	FILE *out = fopen(tmp, "w");
	int rc = out ? write_set(out, old, key, value) : HL_EIO;
	if (out && (fflush(out) || fsync(fileno(out))))
		rc = HL_EIO;
	/* The package's conf may be root:hyperlevel 0640: keep that. */
	if (out && existed && !rc && (fchown(fileno(out), st.st_uid, st.st_gid) ||
				       fchmod(fileno(out), st.st_mode & 07777)))
		rc = HL_EIO;
	if (out && !existed && !rc && fchmod(fileno(out), 0644))
		rc = HL_EIO;
	if (out && fclose(out))
		rc = HL_EIO;
	if (old)
		fclose(old);
	if (!rc && rename(tmp, real))
		rc = HL_EIO;
	if (rc) {
		log_error("%s: cannot be written: %s", real, strerror(errno));
		unlink(tmp);
	}
	return rc;
}

int conf_bool(const char *s)
{
	static const char *yes[] = { "yes", "on", "true", "1" };
	static const char *no[] = { "no", "off", "false", "0" };
	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i]))
			return 1;
		if (!strcasecmp(s, no[i]))
			return 0;
	}
	return -1;
}

int conf_int(const char *s, long long min, long long max, long long *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (!*s || *end || errno || v < min || v > max || isspace((unsigned char)*s) || *s == '+')
		return HL_EINVAL;
	*out = v;
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * conf.c: the `key = value` file reader of conf.h.
 */
#include "conf.h"
#include "log.h"

#include <hyperlevel/hyperlevel.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

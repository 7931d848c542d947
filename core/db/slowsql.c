/* SPDX-License-Identifier: MIT */
/*
 * slowsql.c: slow statements as fingerprints (slowsql.h), from SQLite's
 * profile trace, which reports each statement's run time when it ends.
 */
#include "db/slowsql.h"
#include "lib/log.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

struct out {
	char *p;
	size_t n, cap;
};

static void put(struct out *o, char c)
{
	if (c == ' ' && (o->n == 0 || o->p[o->n - 1] == ' '))
		return; /* collapse spaces, none leading */
	if (o->n + 1 < o->cap)
		o->p[o->n++] = c;
}

static int is_word(char c)
{
	return isalnum((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80;
}

/* The end of the quoted run starting at s (quote doubled inside). */
static const char *skip_quoted(const char *s, char quote)
{
	for (s++; *s; s++)
		if (*s == quote) {
			if (s[1] != quote)
				return s + 1;
			s++;
		}
	return s;
}

static const char *skip_number(const char *s)
{
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		for (s += 2; isxdigit((unsigned char)*s); s++)
			;
	while (isdigit((unsigned char)*s) || *s == '.')
		s++;
	if ((*s == 'e' || *s == 'E') &&
	    (isdigit((unsigned char)s[1]) || ((s[1] == '+' || s[1] == '-') && isdigit((unsigned char)s[2]))))
		for (s += 2; isdigit((unsigned char)*s); s++)
			;
	return s;
}

/* One token of `s`: a literal or parameter becomes '?', a comment or a
 * run of spaces one space, anything else is copied. Returns its end. */
static const char *token(const char *s, struct out *o)
{
	const char *start = s;
	int prev_word = o->n && is_word(o->p[o->n - 1]);
	if (*s == '\'' || ((*s == 'x' || *s == 'X') && s[1] == '\'' && !prev_word)) {
		put(o, '?');
		return skip_quoted(*s == '\'' ? s : s + 1, '\'');
	}
	if ((isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))) && !prev_word) {
		put(o, '?');
		return skip_number(s);
	}
	if (*s == '?' || ((*s == ':' || *s == '@' || *s == '$') && is_word(s[1]))) {
		for (s++; is_word(*s); s++)
			;
		put(o, '?');
		return s;
	}
	if (*s == '"' || *s == '`') {
		s = skip_quoted(s, *s);
	} else if (*s == '[') {
		s += strcspn(s, "]");
		s += *s == ']';
	} else if (s[0] == '-' && s[1] == '-') {
		put(o, ' ');
		return s + strcspn(s, "\n");
	} else if (s[0] == '/' && s[1] == '*') {
		const char *end = strstr(s + 2, "*/");
		put(o, ' ');
		return end ? end + 2 : s + strlen(s);
	} else if (isspace((unsigned char)*s)) {
		put(o, ' ');
		return s + 1;
	} else if (is_word(*s)) {
		while (is_word(*s))
			s++;
	} else {
		s++;
	}
	for (; start < s; start++)
		put(o, *start);
	return s;
}

size_t sql_fingerprint(const char *sql, char *buf, size_t cap)
{
	struct out o = { buf, 0, cap };
	if (!cap)
		return 0;
	while (*sql)
		sql = token(sql, &o);
	if (o.n && buf[o.n - 1] == ' ')
		o.n--;
	buf[o.n] = '\0';
	return o.n;
}

static int on_profile(unsigned type, void *ctx, void *stmt, void *ns)
{
	long long ms = *(int64_t *)ns / 1000000;
	if (type != SQLITE_TRACE_PROFILE || ms < (long long)(intptr_t)ctx)
		return 0;
	const char *sql = sqlite3_sql(stmt);
	char print[600];
	sql_fingerprint(sql ? sql : "", print, sizeof(print));
	log_info("[slow-sql] %lld ms %s", ms, print);
	return 0;
}

void slowsql_watch(sqlite3 *db, long long ms)
{
	if (ms > 0)
		sqlite3_trace_v2(db, SQLITE_TRACE_PROFILE, on_profile, (void *)(intptr_t)ms);
}

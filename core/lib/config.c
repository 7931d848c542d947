/* SPDX-License-Identifier: MIT */
/*
 * config.c: the settings table and the four sources it is read from.
 */
#include "lib/config.h"
#include "lib/conf.h"
#include "lib/log.h"
#include "paths.h"

#include <hyperlevel/hyperlevel.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum kind { STR, INT, BOOL };

struct setting {
	const char *name;
	enum kind kind;
	size_t offset;
	const char *def;
	long long min, max;
	const char *help;
	int live; /* read on each use: SIGHUP changes it at once */
};

#define S(field, kind, def, min, max, help) \
	{ #field, kind, offsetof(struct config, field), def, min, max, help, 0 }
#define LIVE(field, kind, def, min, max, help) \
	{ #field, kind, offsetof(struct config, field), def, min, max, help, 1 }

static const struct setting settings[] = {
	S(config, STR, HL_SYSCONFDIR "/hyperlevel/hyperlevel.conf", 0, 0,
	  "the config file (absent default: built-in values)"),
	S(data_dir, STR, HL_LOCALSTATEDIR "/lib/hyperlevel", 0, 0,
	  "where the database, its WAL and backups live"),
	S(bind, STR, "127.0.0.1", 0, 0, "address to listen on"),
	S(public_url, STR, "", 0, 0,
	  "the address people and providers reach the server at (https://crm.example.com):"
	  " links in messages, providers' callbacks; empty: none"),
	S(port, INT, "4700", 1, 65535, "port to listen on"),
	S(modules_dir, STR, HL_MODULES_PATH, 0, 0,
	  "where the module .so files are: folders separated by ':'"),
	S(plugins_dir, STR, HL_SYSCONFDIR "/hyperlevel/plugins.d", 0, 0,
	  "where NAME.conf enables and configures each module"),
	S(web_dir, STR, HL_DATADIR "/hyperlevel/webui", 0, 0,
	  "the browser app's files"),
	S(template_dir, STR, HL_DATADIR "/hyperlevel/dev/module", 0, 0,
	  "where new-module finds the module templates (the hyperlevel-dev package)"),
	S(threads, INT, "128", 4, 4096,
	  "HTTP worker threads; each holds one open connection"),
	S(read_connections, INT, "0", 0, 256,
	  "SQLite read connections; 0: twice the cores"),
	LIVE(max_body_kb, INT, "1024", 1, 1048576, "largest request body accepted"),
	S(header_timeout_s, INT, "10", 1, 3600,
	  "a request's head must arrive within this; also the longest an answer may wait"
	  " for the client to read"),
	S(keep_alive_s, INT, "15", 1, 3600, "an idle connection is closed after this"),
	S(body_timeout_s, INT, "20", 1, 3600,
	  "a request body gets this long, plus a second per min_rate_kb KB received"),
	S(min_rate_kb, INT, "16", 1, 1048576,
	  "the slowest a body may arrive, or a streamed answer be read, in KB a second"),
	S(reader_wait_ms, INT, "5000", 1, 600000,
	  "the longest a request waits for a read connection before a 503"),
	LIVE(query_timeout_ms, INT, "10000", 0, 3600000,
	  "a request's statements are stopped after this long on one connection (503); 0: never"),
	S(sqlite_cache_mb, INT, "32", 1, 65536, "SQLite page cache"),
	S(sqlite_mmap_mb, INT, "0", 0, 1048576,
	  "memory-mapped part of the database; each write makes every reader map it anew"),
	LIVE(slow_request_ms, INT, "300", 0, 3600000, "log slower requests; 0: off"),
	S(slow_query_ms, INT, "0", 0, 3600000, "time every statement, log slower ones; 0: off"),
	S(result_cache, BOOL, "yes", 0, 0, "cache answers of read-only routes"),
	S(log_plans, BOOL, "no", 0, 0,
	  "log each statement's query plan when first prepared (for tests)"),
	S(password_least_work, BOOL, "no", 0, 0,
	  "hash new passwords with the least work argon2id allows (for tests only: such"
	  " hashes are cheap to guess)"),
	S(cache_mb, INT, "64", 1, 65536, "memory for cached answers, in MB"),
	LIVE(metrics_token, STR, "", 0, 0,
	  "a token scrapers send (Authorization: Bearer) for GET /metrics; empty: admins only"),
	S(backups, BOOL, "yes", 0, 0,
	  "serve also copies the database into DATA_DIR/backups once a day"),
	LIVE(backup_keep, INT, "14", 1, 1000, "backups kept; older ones are deleted after a good copy"),
	S(jobs, BOOL, "yes", 0, 0, "run the modules' tick jobs"),
	S(allow_root, BOOL, "no", 0, 0,
	  "let root run the server and the commands that write its data folder"),
	LIVE(session_days, INT, "14", 1, 365, "a session ends after this many days unused"),
	LIVE(trusted_proxies, STR, "", 0, 0,
	  "proxy addresses whose X-Forwarded-For/-Proto are believed"),
	S(live_connections, INT, "10000", 0, 1000000,
	  "open live-update streams (GET /api/live) at most; 0: none"),
	S(live_per_user, INT, "20", 1, 1000000,
	  "live-update streams one user may hold open at once (429 past it)"),
	S(live_per_address, INT, "200", 1, 1000000,
	  "live-update streams one address may hold open at once (429 past it; callers on"
	  " this machine only with rate_limit_loopback)"),
	S(live_backlog_kb, INT, "256", 16, 65536,
	  "a live client that lets more than this wait unread is cut off"),
	S(live_ping_s, INT, "30", 1, 3600,
	  "a quiet live stream is pinged after this, and closed when it stays silent as long"),
	S(live_check_s, INT, "30", 1, 3600,
	  "how often a live stream's session is checked again (a signed-out one is closed)"),
	LIVE(rate_limit, INT, "1200", 0, 1000000,
	  "API requests a minute per token, user or address; 0: off"),
	LIVE(rate_limit_loopback, BOOL, "no", 0, 0,
	  "limit callers on this machine too (no: benches are not limited)"),
	LIVE(login_attempts, INT, "10", 1, 10000, "failed sign-ins per account per 15 minutes"),
	LIVE(login_attempts_per_client, INT, "50", 1, 100000,
	  "failed sign-ins per address per 15 minutes"),
	LIVE(log_file, STR, "", 0, 0,
	  "append the log to this file, reopened on SIGHUP (empty: standard error)"),
};

#define NSETTINGS (sizeof(settings) / sizeof(settings[0]))

static const struct setting *find(const char *name)
{
	for (size_t i = 0; i < NSETTINGS; i++)
		if (!strcmp(settings[i].name, name))
			return &settings[i];
	return NULL;
}

/* Store `value` into the setting; logs "<source>: ..." on bad values. */
static int set(struct config *c, const struct setting *s, const char *value,
	       const char *source)
{
	char *field = (char *)c + s->offset;
	long long v = 0;
	switch (s->kind) {
	case STR: {
		char *dup = strdup(value);
		if (!dup)
			return HL_ENOMEM;
		free(*(char **)field);
		*(char **)field = dup;
		return 0;
	}
	case INT:
		if (conf_int(value, s->min, s->max, &v)) {
			log_error("%s: '%s' is not an integer between %lld and %lld",
				  source, value, s->min, s->max);
			return HL_EINVAL;
		}
		break;
	case BOOL:
		v = conf_bool(value);
		if (v < 0) {
			log_error("%s: '%s' is not yes or no", source, value);
			return HL_EINVAL;
		}
		break;
	}
	*(long long *)field = v;
	return 0;
}

static void env_name(const struct setting *s, char *out, size_t n)
{
	snprintf(out, n, "PGHL_%s", s->name);
	for (char *p = out; *p; p++)
		*p = (char)toupper((unsigned char)*p);
}

static void flag_name(const struct setting *s, char *out, size_t n)
{
	snprintf(out, n, "--%s", s->name);
	for (char *p = out; *p; p++)
		if (*p == '_')
			*p = '-';
}

static int from_file(void *arg, const char *key, const char *value, int line)
{
	struct config *c = arg;
	const struct setting *s = find(key);
	char source[PATH_MAX + 64];
	snprintf(source, sizeof(source), "%s:%d: %s", c->config, line, key);
	if (!s || s->offset == offsetof(struct config, config)) {
		log_error("%s:%d: unknown setting '%s'", c->config, line, key);
		return HL_EINVAL;
	}
	return set(c, s, value, source);
}

/* The flags in argv, each "--name value" or "--name=value". A value that is
 * not a known flag is left in place and counted. */
static int from_flags(struct config *c, int argc, char **argv, int *rest, int pass)
{
	int kept = 0;
	for (int i = 0; i < argc; i++) {
		char *arg = argv[i];
		if (strncmp(arg, "--", 2)) {
			argv[kept++] = arg;
			continue;
		}
		char name[128];
		const char *value = strchr(arg, '=');
		size_t len = value ? (size_t)(value - arg) : strlen(arg);
		const struct setting *s = NULL;
		for (size_t k = 0; k < NSETTINGS && !s; k++) {
			flag_name(&settings[k], name, sizeof(name));
			if (strlen(name) == len && !strncmp(arg, name, len))
				s = &settings[k];
		}
		if (!s) {
			log_error("unknown option '%.*s' (see --help)", (int)len, arg);
			return HL_EINVAL;
		}
		if (value)
			value++;
		else if (i + 1 < argc)
			value = argv[++i];
		else {
			log_error("option '%s' needs a value", arg);
			return HL_EINVAL;
		}
		/* Pass 0 reads only --config, so the file can be read before the
		 * other flags override it. */
		int is_config = s->offset == offsetof(struct config, config);
		if (pass == 0 ? is_config : !is_config) {
			char source[160];
			snprintf(source, sizeof(source), "%.*s", (int)len, arg);
			if (set(c, s, value, source))
				return HL_EINVAL;
		}
	}
	if (pass == 1)
		*rest = kept;
	return 0;
}

static int from_env(struct config *c, int config_only)
{
	for (size_t i = 0; i < NSETTINGS; i++) {
		const struct setting *s = &settings[i];
		int is_config = s->offset == offsetof(struct config, config);
		if (config_only != is_config)
			continue;
		char name[128];
		env_name(s, name, sizeof(name));
		const char *value = getenv(name);
		if (value && set(c, s, value, name))
			return HL_EINVAL;
	}
	return 0;
}

int config_load(struct config *c, int argc, char **argv, int *rest)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < NSETTINGS; i++)
		if (set(c, &settings[i], settings[i].def, "default"))
			return HL_EINVAL;
	/* Where the file is comes first, from the environment or a flag. An
	 * explicitly named file must exist; the default one may be absent. */
	int explicit_file = getenv("PGHL_CONFIG") != NULL;
	for (int i = 0; i < argc; i++)
		if (!strncmp(argv[i], "--config", 8))
			explicit_file = 1;
	char **copy = malloc(sizeof(char *) * (size_t)(argc + 1));
	if (!copy)
		return HL_ENOMEM;
	memcpy(copy, argv, sizeof(char *) * (size_t)argc);
	int rc = from_env(c, 1);
	if (!rc)
		rc = from_flags(c, argc, copy, rest, 0);
	free(copy);
	if (rc)
		return rc;
	rc = conf_read(c->config, from_file, c);
	if (rc == HL_EIO && (errno != ENOENT || explicit_file)) {
		log_error("%s: %s", c->config, strerror(errno));
		return HL_EINVAL;
	}
	if (rc && rc != HL_EIO)
		return HL_EINVAL;
	if (from_env(c, 0) || from_flags(c, argc, argv, rest, 1))
		return HL_EINVAL;
	return 0;
}

void config_reload(struct config *live, const struct config *fresh, char *changed,
		   size_t changed_size, char *restart, size_t restart_size)
{
	changed[0] = restart[0] = '\0';
	for (size_t i = 0; i < NSETTINGS; i++) {
		const struct setting *s = &settings[i];
		char *now = (char *)live + s->offset;
		const char *next = (const char *)fresh + s->offset;
		int same = s->kind == STR
			? !strcmp(*(char **)now ? *(char **)now : "", *(char *const *)next ? *(char *const *)next : "")
			: *(long long *)now == *(const long long *)next;
		if (same)
			continue;
		char *list = s->live ? changed : restart;
		size_t size = s->live ? changed_size : restart_size, len = strlen(list);
		snprintf(list + len, size - len, "%s%s", len ? ", " : "", s->name);
		if (!s->live)
			continue;
		if (s->kind != STR) {
			__atomic_store_n((long long *)now, *(const long long *)next, __ATOMIC_RELAXED);
			continue;
		}
		char *copy = strdup(*(char *const *)next ? *(char *const *)next : "");
		char **grown = realloc(live->retired, sizeof(char *) * (size_t)(live->nretired + 1));
		if (!copy || !grown) {
			free(copy);
			if (grown)
				live->retired = grown;
			continue; /* out of memory: the old text stays */
		}
		live->retired = grown;
		live->retired[live->nretired++] = __atomic_exchange_n((char **)now, copy,
								      __ATOMIC_RELEASE);
	}
}

void config_free(struct config *c)
{
	for (int i = 0; i < c->nretired; i++)
		free(c->retired[i]);
	free(c->retired);
	c->retired = NULL;
	c->nretired = 0;
	for (size_t i = 0; i < NSETTINGS; i++)
		if (settings[i].kind == STR) {
			char **p = (char **)((char *)c + settings[i].offset);
			free(*p);
			*p = NULL;
		}
}

void config_print(const struct config *c, FILE *out)
{
	for (size_t i = 0; i < NSETTINGS; i++) {
		const struct setting *s = &settings[i];
		const char *field = (const char *)c + s->offset;
		const char *text = s->kind == STR ? *(char *const *)field : NULL;
		if (text && *text && strstr(s->name, "token")) /* a secret stays out of logs */
			fprintf(out, "%s = (set, not shown)\n", s->name);
		else if (text)
			fprintf(out, "%s = %s\n", s->name, text);
		else if (s->kind == BOOL)
			fprintf(out, "%s = %s\n", s->name, *(const long long *)field ? "yes" : "no");
		else
			fprintf(out, "%s = %lld\n", s->name, *(const long long *)field);
	}
}

void config_usage(FILE *out)
{
	for (size_t i = 0; i < NSETTINGS; i++) {
		const struct setting *s = &settings[i];
		char flag[128], env[128];
		flag_name(s, flag, sizeof(flag));
		env_name(s, env, sizeof(env));
		fprintf(out, "  %-22s %-26s %s\n  %-22s %-26s default: %s\n",
			flag, env, s->help, "", "", s->def);
	}
}

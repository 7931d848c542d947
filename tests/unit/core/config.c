/* SPDX-License-Identifier: MIT */
/*
 * Tests core/lib/config.c and core/lib/conf.c: defaults, then the config file, the
 * PGHL_* environment and the flags overriding each other in that order, the
 * errors each source can give, and the conf_* parsers.
 */
#include "lib/conf.h"
#include "lib/config.h"

#include <hyperlevel/hyperlevel.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../test.h"

extern char **environ;

static char dir[] = "/tmp/hl-config-XXXXXX";
static char conf_path[PATH_MAX];    /* DIR/hyperlevel.conf, written by write_conf */
static char missing_path[PATH_MAX]; /* DIR/missing.conf, never written */
static char flag_config[PATH_MAX + 16];

/* Start from an environment without PGHL_* variables. */
static void clear_env(void)
{
	for (int again = 1; again;) {
		again = 0;
		for (char **e = environ; *e; e++)
			if (!strncmp(*e, "PGHL_", 5)) {
				char name[128];
				size_t n = strcspn(*e, "=");
				snprintf(name, sizeof(name), "%.*s", (int)n, *e);
				unsetenv(name);
				again = 1;
				break;
			}
	}
}

static void write_conf(const char *text)
{
	FILE *f = fopen(conf_path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* config_load with the flags given as a NULL-terminated list. */
static int load(struct config *c, const char *const *flags)
{
	char *argv[16] = { NULL };
	int argc = 0, rest = -1;
	while (flags && flags[argc] && argc < 15) {
		argv[argc] = (char *)flags[argc];
		argc++;
	}
	return config_load(c, argc, argv, &rest);
}

static void setup(void)
{
	clear_env();
	CHECK(mkdtemp(dir) != NULL);
	snprintf(conf_path, sizeof(conf_path), "%s/hyperlevel.conf", dir);
	snprintf(missing_path, sizeof(missing_path), "%s/missing.conf", dir);
	snprintf(flag_config, sizeof(flag_config), "--config=%s", conf_path);
}

static void defaults_without_any_source(void)
{
	struct config c;
	CHECK_INT(load(&c, NULL), 0);
	CHECK_STR(c.config, HL_SYSCONFDIR "/hyperlevel/hyperlevel.conf");
	CHECK_STR(c.data_dir, HL_LOCALSTATEDIR "/lib/hyperlevel");
	CHECK_STR(c.bind, "127.0.0.1");
	CHECK_INT(c.port, 4700);
	CHECK_INT(c.threads, 128);
	CHECK_INT(c.read_connections, 0);
	CHECK_INT(c.sqlite_cache_mb, 32);
	CHECK_INT(c.sqlite_mmap_mb, 0);
	CHECK_INT(c.result_cache, 1);
	CHECK_INT(c.backup_keep, 14);
	config_free(&c);
	CHECK(c.bind == NULL);
}

static void file_overrides_defaults(void)
{
	write_conf("# settings\n\nport = 4801\n  bind=0.0.0.0  \nresult_cache = no\n"
		   "data_dir = /srv/hl\n");
	struct config c;
	const char *flags[] = { "--config", conf_path, NULL };
	CHECK_INT(load(&c, flags), 0);
	CHECK_STR(c.config, conf_path);
	CHECK_INT(c.port, 4801);
	CHECK_STR(c.bind, "0.0.0.0");
	CHECK_INT(c.result_cache, 0);
	CHECK_STR(c.data_dir, "/srv/hl");
	CHECK_INT(c.threads, 128); /* not in the file: the default */
	config_free(&c);
}

static void environment_overrides_file(void)
{
	write_conf("port = 4801\nbind = 0.0.0.0\n");
	setenv("PGHL_PORT", "4802", 1);
	setenv("PGHL_DATA_DIR", "/env/data", 1);
	struct config c;
	const char *flags[] = { flag_config, NULL };
	CHECK_INT(load(&c, flags), 0);
	CHECK_INT(c.port, 4802);
	CHECK_STR(c.data_dir, "/env/data");
	CHECK_STR(c.bind, "0.0.0.0");
	config_free(&c);
	clear_env();
}

static void flags_override_environment(void)
{
	write_conf("port = 4801\nthreads = 8\n");
	setenv("PGHL_PORT", "4802", 1);
	setenv("PGHL_THREADS", "9", 1);
	struct config c;
	const char *spaced[] = { flag_config, "--port", "5000", "--data-dir", "/flag/data", NULL };
	CHECK_INT(load(&c, spaced), 0);
	CHECK_INT(c.port, 5000);
	CHECK_INT(c.threads, 9);
	CHECK_STR(c.data_dir, "/flag/data");
	config_free(&c);
	const char *joined[] = { "--port=5001", flag_config, "--threads=10", NULL };
	CHECK_INT(load(&c, joined), 0);
	CHECK_INT(c.port, 5001);
	CHECK_INT(c.threads, 10);
	config_free(&c);
	clear_env();
}

static void non_flag_arguments_are_kept_and_counted(void)
{
	char *argv[] = { "a", "--port", "5000", "b", NULL };
	struct config c;
	int rest = -1;
	CHECK_INT(config_load(&c, 4, argv, &rest), 0);
	CHECK_INT(rest, 2);
	CHECK_STR(argv[0], "a");
	CHECK_STR(argv[1], "b");
	CHECK_INT(c.port, 5000);
	config_free(&c);
}

static void config_named_in_environment_is_read(void)
{
	write_conf("port = 4811\n");
	setenv("PGHL_CONFIG", conf_path, 1);
	struct config c;
	CHECK_INT(load(&c, NULL), 0);
	CHECK_INT(c.port, 4811);
	config_free(&c);
	unsetenv("PGHL_CONFIG");
}

static void named_missing_file_is_an_error(void)
{
	struct config c;
	const char *flags[] = { "--config", missing_path, NULL };
	CHECK_INT(load(&c, flags), HL_EINVAL);
	config_free(&c);
	setenv("PGHL_CONFIG", missing_path, 1);
	CHECK_INT(load(&c, NULL), HL_EINVAL);
	config_free(&c);
	unsetenv("PGHL_CONFIG");
	/* The default file is absent here, and that is fine. */
	CHECK(access(HL_SYSCONFDIR "/hyperlevel/hyperlevel.conf", F_OK) != 0);
	CHECK_INT(load(&c, NULL), 0);
	config_free(&c);
}

static void bad_flags_are_rejected(void)
{
	static const char *const bad[][3] = {
		{ "--no-such-flag", "1", NULL },
		{ "--port", "12ab", NULL },
		{ "--port", "", NULL },
		{ "--port", "0", NULL },
		{ "--port", "65536", NULL },
		{ "--port=99999999999999999999", NULL, NULL },
		{ "--threads", "3", NULL },
		{ "--jobs", "maybe", NULL },
		{ "--result-cache=", NULL, NULL },
		{ "--port", NULL, NULL },   /* no value */
		{ "--data_dir", "/x", NULL }, /* flags use '-' */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct config c;
		int rc = load(&c, bad[i]);
		if (rc != HL_EINVAL)
			printf("flags %s %s: rc %d\n", bad[i][0], bad[i][1] ? bad[i][1] : "", rc);
		CHECK_INT(rc, HL_EINVAL);
		config_free(&c);
	}
}

static void bad_file_lines_are_rejected(void)
{
	static const char *const bad[] = {
		"no_such_key = 1\n",
		"config = /etc/other.conf\n", /* the file cannot name another */
		"port = twelve\n",
		"port = 70000\n",
		"backups = perhaps\n",
		"port 4700\n",
		"Port = 4700\n",
		" = 4700\n",
	};
	const char *flags[] = { flag_config, NULL };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct config c;
		write_conf(bad[i]);
		int rc = load(&c, flags);
		if (rc != HL_EINVAL)
			printf("file line '%s': rc %d\n", bad[i], rc);
		CHECK_INT(rc, HL_EINVAL);
		config_free(&c);
	}
}

static void bad_environment_is_rejected(void)
{
	struct config c;
	setenv("PGHL_PORT", "http", 1);
	CHECK_INT(load(&c, NULL), HL_EINVAL);
	config_free(&c);
	unsetenv("PGHL_PORT");
	setenv("PGHL_JOBS", "2", 1);
	CHECK_INT(load(&c, NULL), HL_EINVAL);
	config_free(&c);
	unsetenv("PGHL_JOBS");
}

static void bools_are_read_from_every_source(void)
{
	struct config c;
	CHECK_INT(load(&c, NULL), 0);
	CHECK(c.jobs);
	CHECK_INT(c.backups, 1);
	config_free(&c);
	write_conf("result_cache = off\nbackups = false\n");
	setenv("PGHL_BACKUPS", "on", 1);
	const char *flags[] = { flag_config, "--jobs", "no", NULL };
	CHECK_INT(load(&c, flags), 0);
	CHECK(!c.jobs);
	CHECK_INT(c.result_cache, 0);
	CHECK_INT(c.backups, 1);
	config_free(&c);
	clear_env();
}

static void quoted_values_keep_spaces(void)
{
	write_conf("bind = \"  0.0.0.0  \"\ndata_dir = \"/srv/my data\"\nweb_dir = \"\"\n");
	struct config c;
	const char *flags[] = { flag_config, NULL };
	CHECK_INT(load(&c, flags), 0);
	CHECK_STR(c.bind, "  0.0.0.0  ");
	CHECK_STR(c.data_dir, "/srv/my data");
	CHECK_STR(c.web_dir, "");
	config_free(&c);
}

struct seen {
	char text[256];
};

static int collect(void *arg, const char *key, const char *value, int line)
{
	struct seen *s = arg;
	size_t n = strlen(s->text);
	snprintf(s->text + n, sizeof(s->text) - n, "%d:%s=%s;", line, key, value);
	return !strcmp(key, "stop") ? 42 : 0;
}

static void conf_read_reports_lines_and_stops(void)
{
	struct seen s = { "" };
	write_conf("# comment\n\na = 1\n  b.c-d_2  =  two words \ne = \"\"\n");
	CHECK_INT(conf_read(conf_path, collect, &s), 0);
	CHECK_STR(s.text, "3:a=1;4:b.c-d_2=two words;5:e=;");
	s.text[0] = '\0';
	write_conf("a = 1\nstop = 1\nb = 2\n");
	CHECK_INT(conf_read(conf_path, collect, &s), 42);
	CHECK_STR(s.text, "1:a=1;2:stop=1;");
	s.text[0] = '\0';
	write_conf("a = 1\njust words\nb = 2\n");
	CHECK_INT(conf_read(conf_path, collect, &s), HL_EINVAL);
	CHECK_STR(s.text, "1:a=1;");
	errno = 0;
	CHECK_INT(conf_read(missing_path, collect, &s), HL_EIO);
	CHECK_INT(errno, ENOENT);
}

static void conf_bool_accepts_the_usual_words(void)
{
	static const char *const yes[] = { "yes", "on", "true", "1", "YES", "True" };
	static const char *const no[] = { "no", "off", "false", "0", "NO", "Off" };
	static const char *const neither[] = { "", "2", "y", "n", "yess", " yes", "yes ", "enabled" };
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		CHECK_INT(conf_bool(yes[i]), 1);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		CHECK_INT(conf_bool(no[i]), 0);
	for (size_t i = 0; i < sizeof(neither) / sizeof(neither[0]); i++)
		CHECK_INT(conf_bool(neither[i]), -1);
}

static void conf_int_checks_syntax_and_range(void)
{
	long long v = 7;
	CHECK_INT(conf_int("0", 0, 10, &v), 0);
	CHECK_INT(v, 0);
	CHECK_INT(conf_int("10", 0, 10, &v), 0);
	CHECK_INT(v, 10);
	CHECK_INT(conf_int("-5", -10, 10, &v), 0);
	CHECK_INT(v, -5);
	CHECK_INT(conf_int("9223372036854775807", LLONG_MIN, LLONG_MAX, &v), 0);
	CHECK_INT(v, LLONG_MAX);
	CHECK_INT(conf_int("-9223372036854775808", LLONG_MIN, LLONG_MAX, &v), 0);
	CHECK_INT(v, LLONG_MIN);
	v = 7;
	CHECK_INT(conf_int("11", 0, 10, &v), HL_EINVAL);
	CHECK_INT(conf_int("-1", 0, 10, &v), HL_EINVAL);
	CHECK_INT(conf_int("", 0, 10, &v), HL_EINVAL);
	CHECK_INT(conf_int("5x", 0, 10, &v), HL_EINVAL);
	CHECK_INT(conf_int("0x5", 0, 10, &v), HL_EINVAL);
	CHECK_INT(conf_int("5.0", 0, 10, &v), HL_EINVAL);
	CHECK_INT(conf_int("9223372036854775808", LLONG_MIN, LLONG_MAX, &v), HL_EINVAL);
	CHECK_INT(conf_int("-9223372036854775809", LLONG_MIN, LLONG_MAX, &v), HL_EINVAL);
	CHECK_INT(v, 7); /* untouched on failure */
}

static void cleanup(void)
{
	clear_env();
	unlink(conf_path);
	CHECK_INT(rmdir(dir), 0);
}

TEST_MAIN(setup,
	  defaults_without_any_source,
	  file_overrides_defaults,
	  environment_overrides_file,
	  flags_override_environment,
	  non_flag_arguments_are_kept_and_counted,
	  config_named_in_environment_is_read,
	  named_missing_file_is_an_error,
	  bad_flags_are_rejected,
	  bad_file_lines_are_rejected,
	  bad_environment_is_rejected,
	  bools_are_read_from_every_source,
	  quoted_values_keep_spaces,
	  conf_read_reports_lines_and_stops,
	  conf_bool_accepts_the_usual_words,
	  conf_int_checks_syntax_and_range,
	  cleanup)

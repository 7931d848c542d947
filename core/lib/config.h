/* SPDX-License-Identifier: MIT */
/*
 * config.h: the server's settings, from one table that drives the config
 * file, the PGHL_* environment, the command-line flags, --help and
 * `hyperlevel check-config`.
 *
 * Precedence, lowest first: built-in default, config file, environment,
 * flag. A setting `data_dir` is PGHL_DATA_DIR in the environment and
 * --data-dir on the command line.
 */
#ifndef HL_CONFIG_H
#define HL_CONFIG_H

#include <stdio.h>

struct config {
	char *config;
	char *data_dir;
	char *bind;
	char *public_url;
	long long port;
	char *modules_dir;
	char *plugins_dir;
	char *web_dir;
	char *template_dir;
	long long threads;
	long long read_connections;
	long long max_body_kb;
	long long header_timeout_s;
	long long keep_alive_s;
	long long body_timeout_s;
	long long min_rate_kb;
	long long reader_wait_ms;
	long long query_timeout_ms;
	long long sqlite_cache_mb;
	long long sqlite_mmap_mb;
	long long slow_request_ms;
	long long slow_query_ms;
	long long result_cache;
	long long log_plans;
	long long password_least_work;
	long long cache_mb;
	char *metrics_token;
	long long backups;
	long long backup_keep;
	long long jobs;
	long long allow_root;
	long long session_days;
	char *trusted_proxies;
	long long rate_limit;
	long long rate_limit_loopback;
	long long login_attempts;
	long long login_attempts_per_client;
	long long live_connections;
	long long live_per_user;
	long long live_per_address;
	long long live_backlog_kb;
	long long live_ping_s;
	long long live_check_s;
	char *log_file;
	/* Texts a reload replaced, freed with the rest: a worker may still
	 * be reading the old one. */
	char **retired;
	int nretired;
};

/* A setting SIGHUP may change while workers read it (config_reload):
 * read it with this, once per use. */
#define CONFIG_LIVE(cfg, field) __atomic_load_n(&(cfg)->field, __ATOMIC_ACQUIRE)

/* Fill `c` with defaults, then the config file, environment and flags.
 * `argv` holds only the flags (the subcommand removed); the non-flag
 * arguments that remain are counted into *rest. Returns 0, or HL_EINVAL
 * after logging one line naming the source and the setting. */
int config_load(struct config *c, int argc, char **argv, int *rest);
void config_free(struct config *c);
/* SIGHUP: `fresh` (read again with config_load) into `live`, the settings
 * a running server reads on each use (the limits, timeouts and tokens
 * README's table marks "at once"): each one that changed is stored whole
 * with an atomic store, its name added to `changed`; the names of those
 * that changed but take a restart go to `restart` (both comma-separated,
 * empty when none). Nothing is freed that a thread may be reading. */
void config_reload(struct config *live, const struct config *fresh, char *changed,
		   size_t changed_size, char *restart, size_t restart_size);
/* The settings in force, one "name = value" a line. */
void config_print(const struct config *c, FILE *out);
/* The flags with their environment names and defaults, for --help. */
void config_usage(FILE *out);

#endif

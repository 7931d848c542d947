/* SPDX-License-Identifier: MIT */
/*
 * main.c: the hyperlevel command: its subcommands, and the start and stop
 * of the server, each start-up step timed and printed.
 *
 * Exit codes: 0 done; 1 the server could not start or run (database, port,
 * a refused module, a failed migration); 2 a bad command line or setting.
 */
#include "admin/admin.h"
#include "auth/audit.h"
#include "auth/credentials.h"
#include "auth/password.h"
#include "db/backup.h"
#include "db/db.h"
#include "db/migrate.h"
#include "http/cache.h"
#include "http/http.h"
#include "http/live.h"
#include "http/metrics.h"
#include "http/pages.h"
#include "http/styles.h"
#include "lib/config.h"
#include "lib/heap.h"
#include "lib/log.h"
#include "lib/ratelimit.h"
#include "main/scaffold.h"
#include "platform/events.h"
#include "platform/jobs.h"
#include "platform/module.h"
#include "platform/sender.h"
#include "request/router.h"
#include "server.h"

#include <curl/curl.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXIT_RUN 1
#define EXIT_USAGE 2

static long long step_start;

static void step(const char *name, const char *detail)
{
	long long now = now_us();
	log_info("  %-14s %7.1f ms%s%s", name, (double)(now - step_start) / 1000.0,
		 detail ? "  " : "", detail ? detail : "");
	step_start = now;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hyperlevel [COMMAND] [OPTIONS]\n\n"
		"commands:\n"
		"  serve          run the server in the foreground (the default)\n"
		"  migrate        apply pending database migrations and exit\n"
		"  modules        list the modules, their versions and states\n"
		"  modules enable NAME, modules disable NAME\n"
		"                 turn a module on or off in its plugins.d conf, checking\n"
		"                 what requires it (takes effect at the next start)\n"
		"  modules purge NAME\n"
		"                 after a backup, drop a disabled module's tables and forget\n"
		"                 its migrations and job state (the server must be stopped)\n"
		"  new-module NAME [DIR] [--force]\n"
		"                 start a module outside the source tree: a folder (./NAME)\n"
		"                 with a route, a migration, a job, a page, tests, a Makefile\n"
		"                 and Debian packaging, from the hyperlevel-dev templates\n"
		"  check-config   check the settings and modules, print the settings\n"
		"  create-admin EMAIL NAME [AGENCY]\n"
		"                 make an agency administrator (and the agency, if there is\n"
		"                 none); the password is read from standard input\n"
		"  backup         copy the database into DATA_DIR/backups now, check the copy\n"
		"                 and prune old ones (works while the server runs)\n\n"
		"options (each also settable in the config file and the environment):\n");
	config_usage(out);
	fprintf(out, "\n  --help, --version\n\n"
		     "exit codes: 0 done, 1 could not start or run, 2 bad command line or setting\n");
}

/* How long a message on its way at a stop has to end. */
#define SEND_GRACE_MS 5000

struct core {
	char **args;    /* the command's own arguments */
	int nargs;
	char **flags;   /* the command line's settings, as given, for SIGHUP */
	int nflags;
	struct config cfg;
	struct server srv;
	struct jobs *jobs;
	struct mod_job *job_list; /* what the scheduler runs besides its own */
	int force;      /* new-module --force */
};

static int load_modules(struct core *c)
{
	if (!(c->srv.router = router_new()) || health_register(c->srv.router) ||
	    accounts_register(c->srv.router) || sessions_register(c->srv.router) ||
	    users_register(c->srv.router) || links_register(c->srv.router) ||
	    logo_register(c->srv.router) ||
	    audit_log_register(c->srv.router) ||
	    notices_register(c->srv.router) ||
	    doctor_register(c->srv.router) ||
	    metrics_register(c->srv.router) || modules_report_register(c->srv.router) ||
	    pages_register(c->srv.router) || live_register(c->srv.router))
		return HL_ENOMEM;
	const char *url = c->cfg.public_url;
	if (*url && strncmp(url, "https://", 8) && strncmp(url, "http://", 7)) {
		log_error("public_url = %s: not an http:// or https:// address", url);
		return HL_EINVAL;
	}
	inbox_set_public_url(url);
	return modules_load(&c->srv.modules, &c->cfg, c->srv.router);
}

/* An upgrade (a newer package, a module enabled again) changes the
 * schema of a database in use: a checked copy is made first, unless the
 * administrator turned backups off. One that fails stops the start. */
static int backup_before_upgrade(struct core *c, struct hl_db *w)
{
	int core = migrate_pending(w, "core", core_migrations_count);
	int modules = core < 0 ? 0 : modules_pending(c->srv.modules, w);
	if (core < 0 || modules < 0)
		return HL_EDB;
	if (!core && !modules)
		return 0;
	if (!c->cfg.backups) {
		log_warn("%d migration%s to apply and backups = no: no copy is made first",
			 core + modules, core + modules == 1 ? "" : "s");
		return 0;
	}
	/* A start that failed after its copy (a migration that fails) must
	 * not copy again on each retry, pruning the good days away. */
	struct backup_info made;
	if (!backup_newest(c->cfg.data_dir, &made) && made.when >= db_modified(c->srv.db)) {
		step("backup", "the newest is newer than the database");
		return 0;
	}
	int rc = backup_make(&c->cfg, &made);
	char detail[PATH_MAX + 64];
	snprintf(detail, sizeof(detail), "%s, before %d migration%s", rc ? "failed" : made.path,
		 core + modules, core + modules == 1 ? "" : "s");
	step("backup", detail);
	return rc;
}

static int open_and_migrate(struct core *c)
{
	int rc = db_open(&c->srv.db, &c->cfg);
	if (rc)
		return rc;
	step("database open", db_path(c->srv.db));
	struct hl_db *w = db_write_lock(c->srv.db);
	int applied = 0;
	rc = backup_before_upgrade(c, w);
	if (!rc)
		rc = migrate_owner(w, "core", "migrations/", core_migrations, core_migrations_count,
			   &applied);
	if (applied)
		log_info("  core: %d migration%s applied", applied, applied == 1 ? "" : "s");
	if (!rc)
		rc = modules_migrate(c->srv.modules, w);
	if (!rc)
		hl_exec(w, "PRAGMA optimize");
	db_write_unlock(c->srv.db, w);
	if (!rc)
		rc = db_learn_tables(c->srv.db);
	if (!rc) {
		int n = 0;
		const struct hl_record_kind *kinds = c->srv.modules
			? modules_records(c->srv.modules, &n) : NULL;
		rc = audit_kinds_new(&c->srv.audit_kinds, c->srv.db, kinds, n);
	}
	if (!rc)
		step("migrations", NULL);
	return rc;
}

/* SIGHUP: the settings read again from the same sources, those read on
 * each use put in force, the log reopened; the rest wait for a restart,
 * and the log says which. No connection is touched. */
static void reload(struct core *c)
{
	struct config fresh;
	int rest;
	if (config_load(&fresh, c->nflags, c->flags, &rest)) {
		config_free(&fresh);
		log_error("SIGHUP: no setting was changed (the line above says why)");
		return;
	}
	char changed[1024], restart[1024];
	config_reload(&c->cfg, &fresh, changed, sizeof(changed), restart, sizeof(restart));
	config_free(&fresh);
	log_open(c->cfg.log_file);
	log_info("SIGHUP: settings read again; %s%s%s%s", changed[0] ? "in force now: " : "none changed",
		 changed, restart[0] ? "; these need a restart: " : "", restart);
}

static int wait_for_signal(struct core *c)
{
	sigset_t set;
	int sig = 0;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	while (!sigwait(&set, &sig) && sig == SIGHUP)
		reload(c);
	return sig;
}

/* The event queue, and the scheduler that also delivers its events; with
 * jobs = no, handlers never run, so nothing is queued for them. */
static int start_jobs(struct core *c)
{
	char detail[64];
	int njobs, nhandlers;
	struct mod_job *mods = modules_jobs(c->srv.modules, &njobs);
	/* The core's jobs above the scheduler's layer first (the account
	 * links' mail), then the modules'. */
	struct mod_job *jobs = c->job_list = calloc((size_t)njobs + 1, sizeof(*jobs));
	if (!jobs)
		return HL_ENOMEM;
	jobs[0] = links_mail_job;
	if (njobs)
		memcpy(jobs + 1, mods, (size_t)njobs * sizeof(*jobs));
	njobs++;
	struct mod_handler *handlers = modules_handlers(c->srv.modules, &nhandlers);
	if (!c->cfg.jobs && nhandlers)
		log_warn("jobs = no: %d event handler%s will not run", nhandlers,
			 nhandlers == 1 ? "" : "s");
	int rc = events_new(&c->srv.events, handlers, c->cfg.jobs ? nhandlers : 0);
	if (!rc && c->cfg.live_connections && !(rc = live_new(&c->srv.live, &c->cfg, c->srv.db)))
		events_listen(c->srv.events, live_publish, c->srv.live);
	/* Sending is driven by jobs (hl_job_send): no jobs, no sender. */
	int nchannels;
	const struct mod_channel *channels = modules_channels(c->srv.modules, &nchannels);
	if (!rc && c->cfg.jobs)
		rc = sender_start(&c->srv.sender, channels, nchannels);
	if (!rc && c->cfg.jobs)
		rc = jobs_start(&c->jobs, jobs, njobs, c->srv.db, c->srv.events, c->srv.sender);
	if (rc)
		return rc;
	snprintf(detail, sizeof(detail), "%d job%s, %d event handler%s", c->cfg.jobs ? njobs : 0,
		 njobs == 1 ? "" : "s", c->cfg.jobs ? nhandlers : 0, nhandlers == 1 ? "" : "s");
	step("jobs", detail);
	return 0;
}

/* After the requests and jobs that publish have stopped: every live
 * connection is told and closed. */
static void stop_live(struct core *c)
{
	if (c->srv.live)
		events_listen(c->srv.events, NULL, NULL);
	live_free(c->srv.live);
	c->srv.live = NULL;
}

static int serve(struct core *c)
{
	char detail[PATH_MAX + 64];
	heap_tune(detail, sizeof(detail));
	step("heap", detail);
	int rc = open_and_migrate(c);
	if (!rc)
		rc = start_jobs(c);
	if (rc)
		return rc;
	if (c->cfg.backups && (rc = backup_start(&c->srv.backup, &c->cfg)))
		return rc;
	if (!(c->srv.api_limit = limiter_new(60, 0)) || !(c->srv.login_limit = limiter_new(900, 1)) ||
	    !(c->srv.login_guess_limit = limiter_new(900, 0)))
		return HL_ENOMEM;
	if ((rc = credentials_new(&c->srv.credentials, db_changes(c->srv.db))) ||
	    (rc = cache_new(&c->srv.cache, &c->cfg, db_changes(c->srv.db))) ||
	    (rc = cache_prepare(c->srv.cache, c->srv.router)))
		return rc;
	int nroutes;
	router_entries(c->srv.router, &nroutes);
	if (!(c->srv.metrics = metrics_new(nroutes, (int)c->cfg.threads)))
		return HL_ENOMEM;
	c->srv.jobs = c->jobs;
	char real[PATH_MAX];
	if (realpath(c->cfg.web_dir, real))
		c->srv.web_root = strdup(real);
	else
		log_warn("%s: %s; only the API is served", c->cfg.web_dir, strerror(errno));
	if ((rc = pages_load(&c->srv.pages, c->srv.modules, c->srv.web_root)) ||
	    (rc = static_load(&c->srv)))
		return rc;
	if ((rc = http_start(&c->srv)))
		return rc;
	snprintf(detail, sizeof(detail), "http://%s:%lld", c->cfg.bind, c->cfg.port);
	step("listening", detail);
	int sig = wait_for_signal(c);
	log_info("%s received: finishing open requests", sig == SIGINT ? "SIGINT" : "SIGTERM");
	http_stop(&c->srv);
	backup_stop(c->srv.backup);
	c->srv.backup = NULL;
	/* What is on its way gets a few seconds to end, and its outcome is
	 * recorded by the scheduler's last round. */
	jobs_stop(c->jobs, SEND_GRACE_MS);
	c->jobs = NULL;
	sender_free(c->srv.sender);
	c->srv.sender = NULL;
	stop_live(c);
	log_info("stopped");
	return 0;
}

static void core_release(struct core *c)
{
	http_stop(&c->srv);
	backup_stop(c->srv.backup);
	jobs_stop(c->jobs, 0);
	free(c->job_list);
	sender_free(c->srv.sender);
	stop_live(c);
	events_free(c->srv.events);
	audit_kinds_free(c->srv.audit_kinds);
	db_close(c->srv.db);
	modules_free(c->srv.modules);
	router_free(c->srv.router);
	limiter_free(c->srv.api_limit);
	limiter_free(c->srv.login_limit);
	limiter_free(c->srv.login_guess_limit);
	cache_free(c->srv.cache);
	credentials_free(c->srv.credentials);
	metrics_free(c->srv.metrics);
	free(c->srv.web_root);
	pages_free(c->srv.pages);
	free(c->srv.document_csp);
	free(c->srv.document_map);
	free(c->srv.signed_in_head);
	styles_free(c->srv.styles);
	config_free(&c->cfg);
	free(c->flags);
}

static int create_admin(struct core *c)
{
	char password[1100] = "";
	if (!fgets(password, sizeof(password), stdin))
		password[0] = '\0';
	password[strcspn(password, "\r\n")] = '\0';
	if (open_and_migrate(c))
		return EXIT_RUN;
	int rc = users_create_admin(c->srv.db, c->args[0], c->args[1],
				    c->nargs > 2 ? c->args[2] : "My agency", password);
	sodium_memzero(password, sizeof(password));
	if (rc)
		return rc == HL_EINVAL ? EXIT_USAGE : EXIT_RUN;
	printf("%s can now sign in\n", c->args[0]);
	return 0;
}

/* `hyperlevel backup`: a copy made the way the daily thread makes it, from
 * a read-only connection of its own and without the data folder's lock, so
 * it works beside a running server; it needs no modules and no migration.
 * SIGINT and SIGTERM are let through: a copy cut short leaves only a
 * temporary file, which the next backup removes. */
static int backup_now(struct core *c)
{
	struct backup_info made;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	if (backup_make(&c->cfg, &made))
		return EXIT_RUN;
	printf("%s (%lld bytes)\n", made.path, made.bytes);
	return 0;
}

/* `hyperlevel modules [enable|disable|purge NAME]`; `loaded` is what
 * loading them returned (a refused module still leaves the list). */
static int modules_command(struct core *c, int loaded)
{
	if (!c->nargs) {
		modules_print(c->srv.modules, stdout);
		return loaded ? EXIT_RUN : 0;
	}
	int on = !strcmp(c->args[0], "enable"), purge = !strcmp(c->args[0], "purge");
	if ((!on && !purge && strcmp(c->args[0], "disable")) || c->nargs != 2) {
		log_error("usage: hyperlevel modules [enable NAME | disable NAME | purge NAME]");
		return EXIT_USAGE;
	}
	int rc = purge ? modules_purge(c->srv.modules, &c->cfg, c->args[1])
		       : modules_set_enabled(c->srv.modules, &c->cfg, c->args[1], on);
	return !rc ? 0 : rc == HL_ENOENT ? EXIT_USAGE : EXIT_RUN;
}

static int run(struct core *c, const char *cmd)
{
	if (!strcmp(cmd, "backup"))
		return backup_now(c);
	if (!strcmp(cmd, "new-module")) {
		int rc = scaffold_module(&c->cfg, c->args[0], c->nargs > 1 ? c->args[1] : NULL,
					 c->force);
		return !rc ? 0 : rc == HL_EIO ? EXIT_RUN : EXIT_USAGE;
	}
	int rc = load_modules(c);
	if (!strcmp(cmd, "modules"))
		return modules_command(c, rc);
	if (rc)
		return EXIT_RUN;
	char detail[64];
	snprintf(detail, sizeof(detail), "%d module%s loaded", modules_loaded(c->srv.modules),
		 modules_loaded(c->srv.modules) == 1 ? "" : "s");
	step("modules", detail);
	if (!strcmp(cmd, "check-config")) {
		config_print(&c->cfg, stdout);
		printf("configuration is valid\n");
		return 0;
	}
	if (!strcmp(cmd, "migrate"))
		return open_and_migrate(c) ? EXIT_RUN : 0;
	if (!strcmp(cmd, "create-admin"))
		return create_admin(c);
	return serve(c) ? EXIT_RUN : 0;
}

/* The commands that write the data folder, which root may run only when
 * told to: what it made would be root's, and the service's user could not
 * open it. */
static int writes_data(const char *cmd, const struct core *c)
{
	return !strcmp(cmd, "serve") || !strcmp(cmd, "migrate") || !strcmp(cmd, "create-admin") ||
	       !strcmp(cmd, "backup") ||
	       (!strcmp(cmd, "modules") && c->nargs && !strcmp(c->args[0], "purge"));
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int min_args, max_args;
	} commands[] = {
		{ "serve", 0, 0 }, { "migrate", 0, 0 }, { "modules", 0, 2 },
		{ "check-config", 0, 0 }, { "create-admin", 2, 3 }, { "backup", 0, 0 },
		{ "new-module", 1, 2 },
	};
	struct core c;
	memset(&c, 0, sizeof(c));
	c.srv.cfg = &c.cfg;
	step_start = now_us();
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--version")) {
			printf("hyperlevel %s (module ABI %d.%d)\n", HL_VERSION, HL_ABI_MAJOR, HL_ABI_MINOR);
			return 0;
		}
	}
	const char *cmd = "serve";
	if (argc == 1 || argv[1][0] == '-' || !strcmp(argv[1], "serve"))
		heap_restart_without_thread_caches(argv);
	if (argc > 1 && argv[1][0] != '-') {
		cmd = argv[1];
		argv++;
		argc--;
	}
	size_t k = 0;
	while (k < sizeof(commands) / sizeof(commands[0]) && strcmp(cmd, commands[k].name))
		k++;
	if (k == sizeof(commands) / sizeof(commands[0])) {
		log_error("unknown command '%s' (see --help)", cmd);
		return EXIT_USAGE;
	}
	/* --force is new-module's own word, not a setting. */
	for (int i = 1; !strcmp(cmd, "new-module") && i < argc; i++)
		if (!strcmp(argv[i], "--force")) {
			c.force = 1;
			memmove(argv + i, argv + i + 1, sizeof(char *) * (size_t)(argc - i));
			argc--, i--;
		}
	/* A developer may not read the server's settings (the package makes
	 * them root:hyperlevel 0640), and new-module needs none of them. */
	if (!strcmp(cmd, "new-module") && !getenv("PGHL_CONFIG") &&
	    access(HL_SYSCONFDIR "/hyperlevel/hyperlevel.conf", R_OK))
		setenv("PGHL_CONFIG", "/dev/null", 1);
	int rest = 0;
	/* config_load moves the arguments that are not settings to the
	 * front: SIGHUP reads the settings again from a copy made before. */
	c.nflags = argc - 1;
	if (!(c.flags = malloc(sizeof(char *) * (size_t)argc)))
		fatal("out of memory");
	memcpy(c.flags, argv + 1, sizeof(char *) * (size_t)argc);
	if (config_load(&c.cfg, argc - 1, argv + 1, &rest)) {
		config_free(&c.cfg);
		free(c.flags);
		return EXIT_USAGE;
	}
	if (rest > commands[k].max_args) {
		log_error("unexpected argument '%s' (see --help)", argv[1 + commands[k].max_args]);
		config_free(&c.cfg);
		free(c.flags);
		return EXIT_USAGE;
	}
	if (rest < commands[k].min_args) {
		log_error("%s needs %d arguments (see --help)", cmd, commands[k].min_args);
		config_free(&c.cfg);
		free(c.flags);
		return EXIT_USAGE;
	}
	c.args = argv + 1;
	c.nargs = rest;
	if (writes_data(cmd, &c) && geteuid() == 0 && !c.cfg.allow_root) {
		log_error("refusing to run as root: the files of %s would belong to root; run it as"
			  " its own user (systemctl start hyperlevel, or sudo -u hyperlevel"
			  " hyperlevel %s), or set allow_root = yes", c.cfg.data_dir, cmd);
		config_free(&c.cfg);
		free(c.flags);
		return EXIT_RUN;
	}
	/* Signals go to sigwait in main, never to a worker thread: block them
	 * before any thread starts, so every thread inherits the mask. */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (sodium_init() < 0)
		fatal("libsodium could not be initialised");
	if (curl_global_init(CURL_GLOBAL_DEFAULT))
		fatal("libcurl could not be initialised");
	password_least_work((int)c.cfg.password_least_work);
	if (!strcmp(cmd, "serve") && log_open(c.cfg.log_file)) {
		core_release(&c);
		return EXIT_RUN;
	}
	if (!strcmp(cmd, "serve"))
		log_info("hyperlevel %s starting", HL_VERSION);
	if (!strcmp(cmd, "serve") && c.cfg.password_least_work)
		log_warn("password_least_work = yes: new passwords get hashes made for tests,"
			 " cheap to guess");
	step("config", c.cfg.config);
	int code = run(&c, cmd);
	core_release(&c);
	return code;
}

/* SPDX-License-Identifier: MIT */
/*
 * module.h: finding, checking, loading and initialising modules.
 *
 * A module is MODULES_DIR/NAME.so, configured by PLUGINS_DIR/NAME.conf
 * (`enabled = yes|no` plus its own settings). The loader checks, in this
 * order, before it calls any function of the module (only the module's
 * ELF constructors, which dlopen runs, come earlier): the file's permissions,
 * that dlopen (RTLD_NOW | RTLD_LOCAL) resolves every symbol, the descriptor
 * (ABI major equal, minor not newer, size, name); then that every required
 * module is loadable; then it calls the inits in dependency order. Each
 * refusal is logged as one line naming the file and the reason. A module's
 * registrations are undone when its init fails.
 *
 * States: FOUND -> DISABLED (enabled = no, or a required module is)
 *               -> REFUSED  (a check failed; `reason` says which)
 *               -> LOADED   (init succeeded)
 * A module never leaves LOADED: there is no unloading (threads and timers
 * crash after dlclose); changing modules takes a restart.
 */
#ifndef HL_MODULE_H
#define HL_MODULE_H

#include <hyperlevel/hyperlevel.h>

#include "lib/config.h"
#include "request/router.h"

#include <stdio.h>

enum mod_state { MOD_FOUND, MOD_DISABLED, MOD_REFUSED, MOD_LOADED };

struct modules;

/* A job of a loaded module, for the scheduler. */
struct mod_job {
	char *name;             /* "MODULE.JOB" */
	struct hl_job job;
	struct hl_mod *mod;
};

/* An event handler of a loaded module, for the event queue. */
struct mod_handler {
	struct hl_event_handler h;
	const char *module;     /* the module's name, for the log */
	struct hl_mod *mod;
};

/* A channel a loaded module delivers (hl_module.channels), for the
 * sender. */
struct mod_channel {
	struct hl_channel c;
	const char *module;     /* the module's name, for the log */
	struct hl_mod *mod;
};

/* Find and load every module. Returns 0 when every enabled module loaded;
 * HL_EINVAL when one or more were refused (each logged); HL_ENOMEM. The set
 * is returned in *out either way, for listings. Routes go into `r`. */
int modules_load(struct modules **out, const struct config *cfg, struct router *r);
void modules_free(struct modules *set);

/* Apply each loaded module's migrations, in load order. */
int modules_migrate(struct modules *set, struct hl_db *w);
/* How many steps modules_migrate would apply to a database that has some
 * applied (migrate_pending); HL_EDB. */
int modules_pending(struct modules *set, struct hl_db *w);
/* Make again what the loaded modules keep by the days of sub-account
 * `location` (their hl_module.recounts), in w's transaction: after its
 * time zone changed. 0, or HL_EDB (logged) when an entry fails. */
int modules_recount(const struct modules *set, struct hl_db *w, int64_t location);

/* The jobs of all loaded modules; count in *n. */
struct mod_job *modules_jobs(struct modules *set, int *n);

/* The kinds of record the loaded modules declare (hl_module.records),
 * in load order; count in *n. Owned by the set; fixed once loaded. */
const struct hl_record_kind *modules_records(const struct modules *set, int *n);

/* The channels the loaded modules deliver, one provider each; count in
 * *n. */
const struct mod_channel *modules_channels(const struct modules *set, int *n);

/* The setting public_url, for hl_public_url (inbox.c): a "/" at its end
 * is dropped. */
void inbox_set_public_url(const char *url);

/* The inbox of the loaded module that keeps messages (hl_module.inbox),
 * and that module in *owner; NULL when none does. */
const struct hl_inbox *modules_inbox(const struct modules *set, const struct hl_mod **owner);

/* The event handlers of all loaded modules, in load order and, within a
 * module, in table order; count in *n. */
struct mod_handler *modules_handlers(struct modules *set, int *n);

/* The word for a state: "found", "disabled", "refused" or "loaded". */
const char *mod_state_name(enum mod_state s);
/* `hyperlevel modules`: one line per module with its state. */
void modules_print(const struct modules *set, FILE *out);
/* The same as a JSON array of {name, version, state, summary, reason,
 * requires, wants}: version and summary null when the module was not opened. */
void modules_write_json(const struct modules *set, struct hl_json *j);
int modules_loaded(const struct modules *set);
/* The pages of the i-th loaded module (0 <= i < modules_loaded, in load
 * order), in table order; its name in *name, the count in *n. */
const struct hl_page *modules_pages(const struct modules *set, int i, const char **name,
				    int *n);
/* Every module found, loaded or not, for the doctor: how many, and the
 * i-th's name, state and reason (why disabled or refused, else NULL). */
int modules_count(const struct modules *set);
enum mod_state modules_state(const struct modules *set, int i, const char **name,
			     const char **reason);

/* For the `hyperlevel modules` commands: the module called `name` (NULL
 * when none was found), its state, its file (NULL when only a conf names
 * it) and its conf (NULL when it has none). */
struct hl_mod *modules_find(const struct modules *set, const char *name);
struct hl_mod *modules_at(const struct modules *set, int i);
enum mod_state mod_state(const struct hl_mod *m);
const char *mod_name(const struct hl_mod *m);
const char *mod_file(const struct hl_mod *m);
const char *mod_conf(const struct hl_mod *m);
/* HL_ABI_MINOR as the module was built: by which the core reads what it
 * hands over in a call. */
unsigned mod_abi_minor(const struct hl_mod *m);
/* What the module's conf says: 1 enabled (or no `enabled` line), 0
 * disabled, -1 neither yes nor no. A module the conf enables may still be
 * off, when a module it requires is. */
int mod_enabled_in_conf(const struct hl_mod *m);
/* Why the module is disabled or refused (NULL when it is not). */
const char *mod_reason(const struct hl_mod *m);
/* The modules `m` requires, from its descriptor; a module the loader left
 * closed (a disabled one) is opened for it, without its init being
 * called. NULL when it requires none or cannot be opened (logged). */
const char *const *mod_requires(struct hl_mod *m);

/* Whether `name` may not name a module: "core" owns the core's records
 * and SQLite keeps names beginning with "sqlite" (a module's tables are
 * named after it). */
int module_name_reserved(const char *name);
/* The module's migrations; a disabled module is opened and its init run
 * for them (it then counts as loaded, so only for a command that exits
 * after). NULL, *n 0, when it has none or cannot be opened (logged). */
const struct hl_migration *mod_migrations(struct hl_mod *m, int *n);
/* `hyperlevel modules enable|disable NAME` (modules_admin.c): set
 * `enabled` in NAME's conf after checking the dependencies. 0 (also when
 * nothing changes); HL_ENOENT for no such module, HL_EINVAL when another
 * module is in the way, HL_EIO, each after one line saying why. */
int modules_set_enabled(const struct modules *set, const struct config *cfg, const char *name,
			int on);

/* The modules enabled in their conf that require `name`, comma-separated,
 * into `out`; how many. */
int modules_required_by(const struct modules *set, const char *name, char *out, size_t size);
/* `hyperlevel modules purge NAME` (modules_purge.c): after a backup, drop
 * a disabled module's tables and forget its migrations and job state. 0;
 * HL_ENOENT, HL_EINVAL (enabled, or required), HL_EDB, HL_EIO, each after
 * one line saying why. */
int modules_purge(const struct modules *set, const struct config *cfg, const char *name);

/* A module's setting after init (NULL when not set). */
const char *mod_setting(const struct hl_mod *m, const char *key);
/* The SQL of event `name`'s line (hl_event_line) among the modules loaded
 * with `m`, the first in load order; NULL when none describes it. */
const char *mod_event_line(const struct hl_mod *m, const char *name);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * module.c: the module loader of module.h, and the registration functions a
 * module's init calls (hl_add_routes_, hl_add_migrations_, hl_add_jobs_,
 * hl_add_event_handlers_, hl_add_pages_, hl_setting).
 */
#include "platform/module.h"
#include "db/migrate.h"
#include "lib/conf.h"
#include "lib/log.h"
#include "platform/events.h"
#include "platform/page_rules.h"
#include "request/request.h"
#include "server.h"

#include <ctype.h>
#include <dirent.h>
#include <strings.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct kv {
	char *key, *value;
	int line;
	int used;
};

struct hl_mod {
	char *name;
	char *path;       /* the .so, or NULL when only a conf names it */
	char *conf_path;  /* the conf, or NULL when there is none */
	char *shadowed;   /* a second NAME.so in a later modules folder: refused */
	enum mod_state state;
	char *reason;     /* why DISABLED or REFUSED */
	void *dl;
	/* The module's descriptor read by its declared size into a zeroed
	 * copy; desc points to it once every check passed, else NULL. */
	struct hl_module descriptor;
	const struct hl_module *desc;
	struct kv *settings;
	int nsettings;
	int in_init;
	int failed;       /* a registration call failed during init */
	int mark;         /* for the dependency walk: 1 visiting, 2 done */
	unsigned absent_wants; /* bit i: wants[i] was not loaded at init */
	struct hl_migration *migrations;
	int nmigrations;
	struct hl_job *jobs;
	int njobs;
	struct hl_event_handler *handlers;
	int nhandlers;
	struct hl_page *pages;
	int npages;
	struct hl_channel *channels;
	int nchannels;
	struct hl_inbox inbox;   /* its descriptor's, when has_inbox */
	int has_inbox;
	struct hl_service *services;
	int nservices;
	struct hl_record_kind *records;
	int nrecords;
	struct modules *set;
};

struct modules {
	struct hl_mod **mods;
	int n;
	struct hl_mod **order; /* loaded modules in dependency order */
	int norder;
	struct mod_job *jobs;
	int njobs;
	struct mod_handler *handlers;
	int nhandlers;
	struct mod_channel *channels;
	int nchannels;
	struct hl_record_kind *records; /* every loaded module's, load order */
	int nrecords;
	const struct hl_mod *inbox; /* the loaded module that keeps messages, or NULL */
	struct router *router;
};

/* A table's entry `i`, `size` bytes apart, copied into `dst` (`dst_size`
 * bytes, zeroed first): members added after the module was built keep
 * their zero defaults, and those of a newer build are left out. */
static void copy_entry(void *dst, size_t dst_size, const void *table, size_t i, size_t size)
{
	memset(dst, 0, dst_size);
	memcpy(dst, (const char *)table + i * size, size < dst_size ? size : dst_size);
}

static void set_state(struct hl_mod *m, enum mod_state s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_state(struct hl_mod *m, enum mod_state s, const char *fmt, ...)
{
	m->state = s;
	free(m->reason);
	m->reason = NULL;
	if (fmt) {
		va_list ap;
		va_start(ap, fmt);
		if (vasprintf(&m->reason, fmt, ap) < 0)
			m->reason = NULL;
		va_end(ap);
	}
	if (s == MOD_REFUSED)
		log_error("%s: refused: %s", m->path ? m->path : m->conf_path,
			  m->reason ? m->reason : "out of memory");
}

/* ---- registration, called from a module's init ---------------------- */

/* Remember why a registration call failed: the module fails to load even
 * if its init ignores the error (what it registered is then undone). */
static int registration_failed(struct hl_mod *mod, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int registration_failed(struct hl_mod *mod, int rc, const char *fmt, ...)
{
	if (!mod->failed) {
		va_list ap;
		va_start(ap, fmt);
		free(mod->reason);
		if (vasprintf(&mod->reason, fmt, ap) < 0)
			mod->reason = NULL;
		va_end(ap);
		mod->failed = rc;
	}
	return rc;
}

static int check_init(struct hl_mod *mod, const char *what)
{
	if (mod && mod->in_init)
		return 0;
	log_error("%s: %s called outside init", mod ? mod->path : "?", what);
	return HL_ESTATE;
}

HL_API int hl_add_routes_(struct hl_mod *mod, const struct hl_route *t, size_t n, size_t size)
{
	int rc = check_init(mod, "hl_add_routes");
	if (rc)
		return rc;
	if (size < HL_ROUTE_SIZE_1_0)
		return registration_failed(mod, HL_EABI, "route table entries are too small");
	for (size_t i = 0; i < n; i++) {
		struct hl_route r;
		copy_entry(&r, sizeof(r), t, i, size);
		const char *why;
		rc = router_add(mod->set->router, &r, mod->name, mod, &why);
		if (rc == HL_EEXIST)
			return registration_failed(mod, rc, "route %s %s is already registered by"
						   " module '%s'", r.method, r.pattern, why);
		if (rc)
			return registration_failed(mod, rc, "route %s %s: %s",
						   r.method ? r.method : "(null)",
						   r.pattern ? r.pattern : "(null)", why ? why : hl_strerror(rc));
	}
	return 0;
}

HL_API int hl_add_migrations_(struct hl_mod *mod, const struct hl_migration *t, size_t n,
			      size_t size)
{
	int rc = check_init(mod, "hl_add_migrations");
	if (rc)
		return rc;
	if (size < HL_MIGRATION_SIZE_1_0)
		return registration_failed(mod, HL_EABI, "migration table entries are too small");
	struct hl_migration *grown = realloc(mod->migrations,
					     sizeof(*grown) * (mod->nmigrations + n));
	if (!grown)
		return registration_failed(mod, HL_ENOMEM, "out of memory");
	mod->migrations = grown;
	for (size_t i = 0; i < n; i++) {
		struct hl_migration m;
		copy_entry(&m, sizeof(m), t, i, size);
		if (!m.name || !*m.name || !m.sql)
			return registration_failed(mod, HL_EINVAL, "migration %zu has no name or no SQL",
						   i + 1);
		for (int k = 0; k < mod->nmigrations; k++)
			if (!strcmp(mod->migrations[k].name, m.name))
				return registration_failed(mod, HL_EEXIST,
							   "migration '%s' is listed twice", m.name);
		mod->migrations[mod->nmigrations++] = m;
	}
	return 0;
}

HL_API int hl_add_jobs_(struct hl_mod *mod, const struct hl_job *t, size_t n, size_t size)
{
	int rc = check_init(mod, "hl_add_jobs");
	if (rc)
		return rc;
	if (size < HL_JOB_SIZE_1_0)
		return registration_failed(mod, HL_EABI, "job table entries are too small");
	struct hl_job *grown = realloc(mod->jobs, sizeof(*grown) * (mod->njobs + n));
	if (!grown)
		return registration_failed(mod, HL_ENOMEM, "out of memory");
	mod->jobs = grown;
	for (size_t i = 0; i < n; i++) {
		struct hl_job j;
		copy_entry(&j, sizeof(j), t, i, size);
		if (!j.name || !*j.name || !j.slice || !j.period_ms)
			return registration_failed(mod, HL_EINVAL,
						   "job %zu needs a name, a slice and a period", i + 1);
		if (j.wake_on && !events_pattern_ok(j.wake_on))
			return registration_failed(mod, HL_EINVAL, "job '%s' wakes on '%.*s', which is"
						   " not an event name (noun.verb of a-z, 0-9, _ and .)"
						   " nor a prefix ending in .*", j.name, EVENT_NAME_MAX,
						   j.wake_on);
		for (int k = 0; k < mod->njobs; k++)
			if (!strcmp(mod->jobs[k].name, j.name))
				return registration_failed(mod, HL_EEXIST, "job '%s' is listed twice",
							   j.name);
		mod->jobs[mod->njobs++] = j;
	}
	return 0;
}

HL_API int hl_add_event_handlers_(struct hl_mod *mod, const struct hl_event_handler *t,
				  size_t n, size_t size)
{
	int rc = check_init(mod, "hl_add_event_handlers");
	if (rc)
		return rc;
	if (size < HL_EVENT_HANDLER_SIZE_1_1)
		return registration_failed(mod, HL_EABI, "event handler table entries are too small");
	struct hl_event_handler *grown = realloc(mod->handlers,
						 sizeof(*grown) * (mod->nhandlers + n));
	if (!grown)
		return registration_failed(mod, HL_ENOMEM, "out of memory");
	mod->handlers = grown;
	for (size_t i = 0; i < n; i++) {
		struct hl_event_handler h;
		copy_entry(&h, sizeof(h), t, i, size);
		if (!h.handle)
			return registration_failed(mod, HL_EINVAL, "event handler %zu has no function",
						   i + 1);
		if (!events_pattern_ok(h.event))
			return registration_failed(mod, HL_EINVAL, "event handler %zu: '%.*s' is not"
						   " an event name (noun.verb of a-z, 0-9, _ and .)"
						   " nor a prefix ending in .*", i + 1,
						   EVENT_NAME_MAX, h.event ? h.event : "(null)");
		mod->handlers[mod->nhandlers++] = h;
	}
	return 0;
}

/* Who already has a page at `path`: the core, a loaded module or this one
 * (NULL: nobody). */
static const char *page_owner(const struct hl_mod *mod, const char *path)
{
	size_t ncore;
	const struct hl_page *core = pages_core(&ncore);
	for (size_t i = 0; i < ncore; i++)
		if (page_same_path(core[i].path, path))
			return "core";
	for (int i = 0; i <= mod->set->norder; i++) {
		const struct hl_mod *m = i < mod->set->norder ? mod->set->order[i] : mod;
		for (int k = 0; k < m->npages; k++)
			if (page_same_path(m->pages[k].path, path))
				return m->name;
	}
	return NULL;
}

HL_API int hl_add_pages_(struct hl_mod *mod, const struct hl_page *t, size_t n, size_t size)
{
	int rc = check_init(mod, "hl_add_pages");
	if (rc)
		return rc;
	if (size < HL_PAGE_SIZE_1_5)
		return registration_failed(mod, HL_EABI, "page table entries are too small");
	struct hl_page *grown = realloc(mod->pages, sizeof(*grown) * (mod->npages + n));
	if (!grown)
		return registration_failed(mod, HL_ENOMEM, "out of memory");
	mod->pages = grown;
	for (size_t i = 0; i < n; i++) {
		struct hl_page p;
		copy_entry(&p, sizeof(p), t, i, size);
		const char *why, *owner;
		rc = page_check(&p, &why);
		if (rc)
			return registration_failed(mod, rc, "page %zu (%s): %s", i + 1,
						   p.path ? p.path : "no path", why ? why : hl_strerror(rc));
		if ((owner = page_owner(mod, p.path)))
			return registration_failed(mod, HL_EEXIST, "page %zu (%s): module '%s' has a"
						   " page there already", i + 1, p.path, owner);
		mod->pages[mod->npages++] = p;
	}
	return 0;
}

static struct kv *find_setting(const struct hl_mod *m, const char *key)
{
	for (int i = 0; i < m->nsettings; i++)
		if (!strcmp(m->settings[i].key, key))
			return &m->settings[i];
	return NULL;
}

HL_API const char *hl_setting(struct hl_mod *mod, const char *key, const char *def)
{
	if (check_init(mod, "hl_setting"))
		return def;
	struct kv *kv = find_setting(mod, key);
	if (!kv)
		return def;
	kv->used = 1;
	return kv->value;
}

HL_API int hl_setting_int(struct hl_mod *mod, const char *key, long long def, long long min,
			  long long max, long long *out)
{
	const char *v = hl_setting(mod, key, NULL);
	*out = def;
	if (!v)
		return 0;
	if (conf_int(v, min, max, out)) {
		struct kv *kv = find_setting(mod, key);
		return registration_failed(mod, HL_EINVAL, "%s:%d: %s: '%s' is not an integer"
					   " between %lld and %lld", mod->conf_path, kv->line,
					   key, v, min, max);
	}
	return 0;
}

const char *mod_setting(const struct hl_mod *m, const char *key)
{
	struct kv *kv = find_setting(m, key);
	return kv ? kv->value : NULL;
}

const char *mod_event_line(const struct hl_mod *m, const char *name)
{
	const struct modules *set = m->set;
	for (int i = 0; name && i < set->norder; i++) {
		const struct hl_module *d = set->order[i]->desc;
		const struct hl_table *t = d ? &d->event_lines : NULL;
		if (!t || !t->count || t->size < HL_EVENT_LINE_SIZE_1_25)
			continue;
		for (size_t k = 0; k < t->count; k++) {
			struct hl_event_line e;
			copy_entry(&e, sizeof(e), t->entries, k, t->size);
			if (e.event && e.sql && !strcmp(e.event, name))
				return e.sql;
		}
	}
	return NULL;
}

/* ---- discovery -------------------------------------------------------- */

struct hl_mod *modules_find(const struct modules *set, const char *name)
{
	for (int i = 0; i < set->n; i++)
		if (!strcmp(set->mods[i]->name, name))
			return set->mods[i];
	return NULL;
}

static struct hl_mod *add_mod(struct modules *set, const char *name)
{
	struct hl_mod **grown = realloc(set->mods, sizeof(*grown) * (size_t)(set->n + 1));
	if (!grown)
		return NULL;
	set->mods = grown;
	struct hl_mod *m = calloc(1, sizeof(*m));
	if (!m || !(m->name = strdup(name))) {
		free(m);
		return NULL;
	}
	m->set = set;
	set->mods[set->n++] = m;
	return m;
}

static int has_suffix(const char *s, const char *suffix, size_t *stem)
{
	size_t n = strlen(s), k = strlen(suffix);
	*stem = n - k;
	return n > k && !strcmp(s + n - k, suffix);
}

static int by_name(const void *a, const void *b)
{
	return strcmp((*(struct hl_mod *const *)a)->name, (*(struct hl_mod *const *)b)->name);
}

/* Add a module for each NAME.so in `dir` or NAME.conf in `confdir`; a
 * missing folder is fine when `optional`. */
static int discover(struct modules *set, const char *dir, const char *suffix, int is_conf,
		    int optional)
{
	DIR *d = opendir(dir);
	if (!d) {
		if (errno == ENOENT && optional)
			return 0;
		log_error("%s: %s", dir, strerror(errno));
		return HL_EIO;
	}
	struct dirent *e;
	int rc = 0;
	while (!rc && (e = readdir(d))) {
		size_t stem;
		if (e->d_name[0] == '.' || !has_suffix(e->d_name, suffix, &stem))
			continue;
		char name[256];
		snprintf(name, sizeof(name), "%.*s", (int)stem, e->d_name);
		struct hl_mod *m = modules_find(set, name);
		if (!m && !(m = add_mod(set, name))) {
			rc = HL_ENOMEM;
			break;
		}
		char **slot = is_conf ? &m->conf_path : m->path ? &m->shadowed : &m->path;
		if (*slot)
			continue; /* a third copy: the second is reason enough */
		if (asprintf(slot, "%s/%s", dir, e->d_name) < 0) {
			*slot = NULL;
			rc = HL_ENOMEM;
		}
	}
	closedir(d);
	return rc;
}

/* Each folder of the modules path ("a:b"), in order; all but the first
 * may be missing (the local folder of locally built modules, say). */
static int discover_modules(struct modules *set, const char *path)
{
	int rc = 0, first = 1;
	for (const char *p = path; !rc && *p; first = 0) {
		size_t n = strcspn(p, ":");
		char *dir = strndup(p, n);
		rc = !dir ? HL_ENOMEM : n ? discover(set, dir, ".so", 0, !first) : 0;
		free(dir);
		p += n + (p[n] == ':');
	}
	return rc;
}

static int keep_setting(void *arg, const char *key, const char *value, int line)
{
	struct hl_mod *m = arg;
	struct kv *grown = realloc(m->settings, sizeof(*grown) * (size_t)(m->nsettings + 1));
	if (!grown)
		return HL_ENOMEM;
	m->settings = grown;
	struct kv *kv = &m->settings[m->nsettings];
	if (find_setting(m, key)) {
		log_error("%s:%d: '%s' is set twice", m->conf_path, line, key);
		return HL_EINVAL;
	}
	kv->key = strdup(key);
	kv->value = strdup(value);
	kv->line = line;
	kv->used = 0;
	m->nsettings++;
	if (!kv->key || !kv->value)
		return HL_ENOMEM;
	return 0;
}

/* Read the conf and decide FOUND or DISABLED (or REFUSED for a conf with
 * no module file, or a malformed conf). */
int module_name_reserved(const char *name)
{
	return !strcmp(name, "core") || !strncasecmp(name, "sqlite", 6);
}

static void read_conf(struct hl_mod *m, const char *modules_dir)
{
	if (module_name_reserved(m->name)) {
		set_state(m, MOD_REFUSED, "'%s' is the server's own name (core, sqlite*): rename"
			  " the module", m->name);
		return;
	}
	if (m->conf_path) {
		int rc = conf_read(m->conf_path, keep_setting, m);
		if (rc) {
			set_state(m, MOD_REFUSED, "%s cannot be read%s", m->conf_path,
				  rc == HL_EIO ? "" : " (see above)");
			return;
		}
	}
	struct kv *en = find_setting(m, "enabled");
	int enabled = en ? conf_bool(en->value) : 1;
	if (en)
		en->used = 1;
	if (enabled < 0) {
		set_state(m, MOD_REFUSED, "%s:%d: enabled must be yes or no", m->conf_path, en->line);
		return;
	}
	if (m->shadowed)
		set_state(m, MOD_REFUSED, "it is also %s: keep one of the two", m->shadowed);
	else if (!enabled)
		set_state(m, MOD_DISABLED, "disabled in %s", m->conf_path);
	else if (!m->path) {
		/* Its package removed (its conf stays until purged), or a
		 * misspelt conf: nothing of it runs, so the rest may start. */
		set_state(m, MOD_DISABLED, "there is no %s.so in %s", m->name, modules_dir);
		log_warn("%s: not loaded: %s", m->conf_path, m->reason ? m->reason : "out of memory");
	}
	else
		set_state(m, MOD_FOUND, NULL);
}

/* ---- checks before any module code runs ------------------------------ */

/* The bytes the module's hl_module symbol really has (its ELF size), so
 * that a descriptor is never read past its end; SIZE_MAX when the loader
 * cannot tell. */
static size_t descriptor_symbol_size(const void *d)
{
	Dl_info info;
	const ElfW(Sym) *sym = NULL;
	if (!dladdr1(d, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym || !sym->st_size)
		return SIZE_MAX;
	return sym->st_size;
}

static void open_module(struct hl_mod *m)
{
	struct stat st;
	if (stat(m->path, &st)) {
		set_state(m, MOD_REFUSED, "%s", strerror(errno));
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		set_state(m, MOD_REFUSED, "not a regular file");
		return;
	}
	if (st.st_mode & S_IWOTH) {
		set_state(m, MOD_REFUSED, "the file is writable by others (chmod o-w %s)", m->path);
		return;
	}
	m->dl = dlopen(m->path, RTLD_NOW | RTLD_LOCAL);
	if (!m->dl) {
		const char *err = dlerror();
		const char *sym = err ? strstr(err, "undefined symbol: ") : NULL;
		if (sym && !strncmp(sym + 18, "hl_", 3))
			set_state(m, MOD_REFUSED, "it needs a newer HyperLevel core: it uses %s,"
				  " which this server (module ABI %d.%d) does not have",
				  sym + 18, HL_ABI_MAJOR, HL_ABI_MINOR);
		else
			set_state(m, MOD_REFUSED, "cannot load: %s", err ? err : "unknown error");
		return;
	}
	const struct hl_module *d = dlsym(m->dl, "hl_module");
	if (!d) {
		set_state(m, MOD_REFUSED, "no hl_module descriptor: not a HyperLevel module");
		return;
	}
	size_t symbol_size = descriptor_symbol_size(d);
	if (symbol_size < offsetof(struct hl_module, name) ||
	    (symbol_size < SIZE_MAX && symbol_size < d->size)) {
		set_state(m, MOD_REFUSED, "the hl_module descriptor is %zu bytes, too short for"
			  " what it says it holds", symbol_size);
		return;
	}
	if (d->abi_major != HL_ABI_MAJOR) {
		set_state(m, MOD_REFUSED, "built for module ABI %u.%u; this server implements %d.%d",
			  d->abi_major, d->abi_minor, HL_ABI_MAJOR, HL_ABI_MINOR);
		return;
	}
	if (d->abi_minor > HL_ABI_MINOR) {
		set_state(m, MOD_REFUSED, "built for module ABI %u.%u, newer than this server's %d.%d",
			  d->abi_major, d->abi_minor, HL_ABI_MAJOR, HL_ABI_MINOR);
		return;
	}
	if (d->size < HL_MODULE_SIZE_1_0) {
		set_state(m, MOD_REFUSED, "descriptor is %u bytes, smaller than ABI %d.0's", d->size,
			  HL_ABI_MAJOR);
		return;
	}
	copy_entry(&m->descriptor, sizeof(m->descriptor), d, 0, d->size);
	d = &m->descriptor;
	if (!d->name || strcmp(d->name, m->name) || !d->version) {
		set_state(m, MOD_REFUSED, "descriptor must have name \"%s\" and a version",
			  m->name);
		return;
	}
	m->desc = d;
}

/* ---- dependency order and init -------------------------------------- */

/* Whether required module `req` is loadable. One that is turned off turns
 * `m` off too, with a warning, so that the server starts with any module
 * disabled; one that is missing or refused refuses `m`. */
static int requirement_ok(struct hl_mod *m, const char *req)
{
	struct hl_mod *r = modules_find(m->set, req);
	if (r && r->state == MOD_DISABLED) {
		set_state(m, MOD_DISABLED, "it requires module '%s', which is %s", req,
			  r->reason ? r->reason : "disabled");
		log_warn("%s: not loaded: %s", m->path, m->reason ? m->reason : "out of memory");
	} else if (!r || !r->path)
		set_state(m, MOD_REFUSED, "it requires module '%s', which is not installed", req);
	else if (r->state == MOD_REFUSED)
		set_state(m, MOD_REFUSED, "it requires module '%s', which was refused", req);
	else
		return 1;
	return 0;
}

static void undo(struct hl_mod *m)
{
	router_remove_module(m->set->router, m);
	free(m->migrations);
	m->migrations = NULL;
	m->nmigrations = 0;
	free(m->jobs);
	m->jobs = NULL;
	m->njobs = 0;
	free(m->handlers);
	m->handlers = NULL;
	m->nhandlers = 0;
	free(m->pages);
	m->pages = NULL;
	m->npages = 0;
	free(m->channels);
	m->channels = NULL;
	m->nchannels = 0;
	m->has_inbox = 0;
	free(m->services);
	m->services = NULL;
	m->nservices = 0;
	free(m->records);
	m->records = NULL;
	m->nrecords = 0;
}

/* Whether `name` may name a channel: [a-z0-9_], 1 to 16 bytes. */
static int channel_name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	return n >= 1 && n <= 16 && strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") == n;
}

/* The module that delivers `channel` among those loaded so far (NULL:
 * none). */
static const char *provider_of(const struct modules *set, const char *channel)
{
	for (int i = 0; i < set->norder; i++)
		for (int k = 0; k < set->order[i]->nchannels; k++)
			if (!strcmp(set->order[i]->channels[k].name, channel))
				return set->order[i]->name;
	return NULL;
}

/* The descriptor's channels (ABI 1.18), checked. */
static int add_channels(struct hl_mod *m, const struct hl_table *t)
{
	if (t->size < HL_CHANNEL_SIZE_1_18)
		return registration_failed(m, HL_EABI, "channel table entries are too small");
	if (!(m->channels = calloc(t->count, sizeof(*m->channels))))
		return registration_failed(m, HL_ENOMEM, "out of memory");
	for (size_t i = 0; i < t->count; i++) {
		struct hl_channel c;
		copy_entry(&c, sizeof(c), t->entries, i, t->size);
		if (!channel_name_ok(c.name) || !c.label || !c.prepare)
			return registration_failed(m, HL_EINVAL, "channel %zu needs a name (a-z, 0-9"
						   " and _, at most 16), a label and a prepare", i + 1);
		const char *other = provider_of(m->set, c.name);
		for (int k = 0; !other && k < m->nchannels; k++)
			if (!strcmp(m->channels[k].name, c.name))
				other = m->name;
		if (other)
			return registration_failed(m, HL_EEXIST, "channel '%s' is delivered by module"
						   " '%s' already", c.name, other);
		m->channels[m->nchannels++] = c;
	}
	return 0;
}

/* The descriptor's inbox (ABI 1.18): one entry, and one module per
 * server. */
static int add_inbox(struct hl_mod *m, const struct hl_table *t)
{
	if (t->size < HL_INBOX_SIZE_1_18)
		return registration_failed(m, HL_EABI, "inbox entries are too small");
	if (t->count != 1)
		return registration_failed(m, HL_EINVAL, "the inbox is one entry");
	copy_entry(&m->inbox, sizeof(m->inbox), t->entries, 0, t->size);
	if (!m->inbox.receive || !m->inbox.report)
		return registration_failed(m, HL_EINVAL, "the inbox needs receive and report");
	for (int i = 0; i < m->set->norder; i++)
		if (m->set->order[i]->has_inbox)
			return registration_failed(m, HL_EEXIST, "module '%s' keeps the messages already",
						   m->set->order[i]->name);
	m->has_inbox = 1;
	return 0;
}

/* The module offering service `name` among those loaded so far and `m`
 * (NULL: none), and the service in *out. */
static const struct hl_mod *service_of(const struct modules *set, const struct hl_mod *m,
				       const char *name, const struct hl_service **out)
{
	for (int i = 0; i <= set->norder; i++) {
		const struct hl_mod *o = i < set->norder ? set->order[i] : m;
		for (int k = 0; o && k < o->nservices; k++)
			if (!strcmp(o->services[k].name, name)) {
				*out = &o->services[k];
				return o;
			}
	}
	return NULL;
}

/* The descriptor's services (ABI 1.18): named after their module. */
static int add_services(struct hl_mod *m, const struct hl_table *t)
{
	if (t->size < HL_SERVICE_SIZE_1_18)
		return registration_failed(m, HL_EABI, "service table entries are too small");
	if (!(m->services = calloc(t->count, sizeof(*m->services))))
		return registration_failed(m, HL_ENOMEM, "out of memory");
	size_t own = strlen(m->name);
	for (size_t i = 0; i < t->count; i++) {
		struct hl_service v;
		const struct hl_service *other;
		copy_entry(&v, sizeof(v), t->entries, i, t->size);
		if (!v.name || !v.call || strncmp(v.name, m->name, own) || v.name[own] != '.' ||
		    !v.name[own + 1])
			return registration_failed(m, HL_EINVAL, "service %zu needs a function and a"
						   " name of the module's, %s.something", i + 1, m->name);
		if (service_of(m->set, m, v.name, &other))
			return registration_failed(m, HL_EEXIST, "service '%s' is listed twice", v.name);
		m->services[m->nservices++] = v;
	}
	return 0;
}

/* The module that declares table `table` a record among those loaded so
 * far and `m` (NULL: none). */
static const char *record_owner(const struct modules *set, const struct hl_mod *m,
				const char *table)
{
	for (int i = 0; i <= set->norder; i++) {
		const struct hl_mod *o = i < set->norder ? set->order[i] : m;
		for (int k = 0; o && k < o->nrecords; k++)
			if (!strcmp(o->records[k].table, table))
				return o->name;
	}
	return NULL;
}

/* The descriptor's records (ABI 1.22), checked. */
static int add_records(struct hl_mod *m, const struct hl_table *t)
{
	if (t->size < HL_RECORD_KIND_SIZE_1_22)
		return registration_failed(m, HL_EABI, "record table entries are too small");
	if (!(m->records = calloc(t->count, sizeof(*m->records))))
		return registration_failed(m, HL_ENOMEM, "out of memory");
	for (size_t i = 0; i < t->count; i++) {
		struct hl_record_kind k;
		const char *other;
		copy_entry(&k, sizeof(k), t->entries, i, t->size);
		if (!k.table || !*k.table || !k.noun || !*k.noun || !k.name_sql)
			return registration_failed(m, HL_EINVAL, "record %zu needs a table, a noun"
						   " and a name_sql", i + 1);
		if ((other = record_owner(m->set, m, k.table)))
			return registration_failed(m, HL_EEXIST, "table '%s' is a record of module"
						   " '%s' already", k.table, other);
		m->records[m->nrecords++] = k;
	}
	return 0;
}

/* True when `sql` names parameter `name` (":location"), not a longer
 * one (":locations"). */
static int names_param(const char *sql, const char *name)
{
	size_t n = strlen(name);
	for (const char *at = sql; (at = strstr(at, name)); at += n)
		if (at[n] != '_' && !isalnum((unsigned char)at[n]))
			return 1;
	return 0;
}

/* The descriptor's event lines (ABI 1.25), checked: hl_job_event_line
 * runs each scoped, so one without :location would fail on every event. */
static int check_event_lines(struct hl_mod *m, const struct hl_table *t)
{
	if (t->size < HL_EVENT_LINE_SIZE_1_25)
		return registration_failed(m, HL_EABI, "event line table entries are too small");
	for (size_t i = 0; i < t->count; i++) {
		struct hl_event_line e;
		copy_entry(&e, sizeof(e), t->entries, i, t->size);
		if (e.event && e.sql && !names_param(e.sql, ":location"))
			return registration_failed(m, HL_EINVAL, "the line of event '%s' needs"
						   " :location in its SQL", e.event);
	}
	return 0;
}

/* The descriptor's tables, as init would add them, before it runs. */
static int add_tables(struct hl_mod *m)
{
	const struct hl_module *d = m->desc;
	int rc = 0;
	if (!rc && d->migrations.count)
		rc = hl_add_migrations_(m, d->migrations.entries, d->migrations.count,
					d->migrations.size);
	if (!rc && d->routes.count)
		rc = hl_add_routes_(m, d->routes.entries, d->routes.count, d->routes.size);
	if (!rc && d->jobs.count)
		rc = hl_add_jobs_(m, d->jobs.entries, d->jobs.count, d->jobs.size);
	if (!rc && d->handlers.count)
		rc = hl_add_event_handlers_(m, d->handlers.entries, d->handlers.count,
					    d->handlers.size);
	if (!rc && d->pages.count)
		rc = hl_add_pages_(m, d->pages.entries, d->pages.count, d->pages.size);
	if (!rc && d->channels.count)
		rc = add_channels(m, &d->channels);
	if (!rc && d->inbox.count)
		rc = add_inbox(m, &d->inbox);
	if (!rc && d->services.count)
		rc = add_services(m, &d->services);
	if (!rc && d->records.count)
		rc = add_records(m, &d->records);
	if (!rc && d->event_lines.count)
		rc = check_event_lines(m, &d->event_lines);
	return rc;
}

static void init_module(struct hl_mod *m)
{
	m->in_init = 1;
	int rc = add_tables(m);
	if (!rc && m->desc->init)
		rc = m->desc->init(m);
	m->in_init = 0;
	if (!rc)
		rc = m->failed;
	if (rc) {
		/* A registration call may have left the precise reason. */
		char *why = m->reason;
		m->reason = NULL;
		set_state(m, MOD_REFUSED, "init failed: %s", why ? why : hl_strerror(rc));
		free(why);
		undo(m);
		return;
	}
	for (int i = 0; i < m->nsettings; i++)
		if (!m->settings[i].used) {
			set_state(m, MOD_REFUSED, "%s:%d: module %s has no setting '%s'", m->conf_path,
				  m->settings[i].line, m->name, m->settings[i].key);
			undo(m);
			return;
		}
	set_state(m, MOD_LOADED, NULL);
	m->set->order[m->set->norder++] = m;
}

/* Whether `m` requires module `name`, directly or through its
 * requirements (a found module's descriptor is read; depth bounds a
 * cycle, which visit refuses). */
static int requires_module(const struct hl_mod *m, const char *name, int depth)
{
	if (!m->desc || depth > 64)
		return 0;
	for (const char *const *r = m->desc->requires; r && *r; r++) {
		const struct hl_mod *dep = modules_find(m->set, *r);
		if (!strcmp(*r, name) || (dep && requires_module(dep, name, depth + 1)))
			return 1;
	}
	return 0;
}

/* Which of m's wants are not loaded as m is initialised: what
 * hl_module_loaded and hl_json_absent_modules say for the rest of the
 * process, so that its statements and its answers agree. */
static void note_absent_wants(struct hl_mod *m)
{
	int i = 0;
	for (const char *const *want = m->desc->wants; want && *want && i < 32; want++, i++) {
		const struct hl_mod *w = modules_find(m->set, *want);
		if (!w || w->state != MOD_LOADED)
			m->absent_wants |= 1u << i;
	}
}

/* Depth-first over requirements and wants, so each module is initialised
 * after the modules it requires and those it wants that are loaded. A
 * wanted module that is absent, disabled or refused is simply not there. */
static void visit(struct hl_mod *m)
{
	if (m->mark == 2 || m->state != MOD_FOUND) {
		m->mark = 2;
		return;
	}
	if (m->mark == 1) {
		set_state(m, MOD_REFUSED, "its requirements form a cycle");
		return;
	}
	m->mark = 1;
	for (const char *const *req = m->desc->requires; req && *req; req++) {
		struct hl_mod *r = modules_find(m->set, *req);
		if (r)
			visit(r);
		if (m->state != MOD_FOUND)
			break; /* a cycle through m was found deeper down */
		if (!requirement_ok(m, *req))
			break;
	}
	for (const char *const *want = m->desc->wants; want && *want && m->state == MOD_FOUND;
	     want++) {
		struct hl_mod *w = modules_find(m->set, *want);
		/* A want only orders; one that requires m comes after it. */
		if (w && w->mark != 1 && !requires_module(w, m->name, 0))
			visit(w);
	}
	m->mark = 2;
	if (m->state == MOD_FOUND) {
		note_absent_wants(m);
		init_module(m);
	}
}

HL_API void hl_json_absent_modules(struct hl_req *req, struct hl_json *j)
{
	const struct hl_mod *mod = req->match.entry ? req->match.entry->module : NULL;
	int written = 0, i = 0;
	for (const char *const *want = mod ? mod->desc->wants : NULL; want && *want && i < 32;
	     want++, i++) {
		if (!(mod->absent_wants & (1u << i)))
			continue;
		if (!written++) {
			hl_json_key(j, "absent_modules");
			hl_json_array(j);
		}
		hl_json_string(j, *want);
	}
	if (written)
		hl_json_array_end(j);
}

static int named_in(const char *const *names, const char *name)
{
	for (; names && *names; names++)
		if (!strcmp(*names, name))
			return 1;
	return 0;
}

HL_API int hl_module_loaded(struct hl_mod *mod, const char *name)
{
	int rc = check_init(mod, "hl_module_loaded");
	if (rc)
		return rc;
	if (!name || (!named_in(mod->desc->requires, name) && !named_in(mod->desc->wants, name))) {
		log_error("%s: hl_module_loaded: '%s' is neither required nor wanted by %s",
			  mod->path, name ? name : "(null)", mod->name);
		return HL_EINVAL;
	}
	int i = 0;
	for (const char *const *want = mod->desc->wants; want && *want && i < 32; want++, i++)
		if (!strcmp(*want, name))
			return !(mod->absent_wants & (1u << i));
	struct hl_mod *m = modules_find(mod->set, name);
	return m && m->state == MOD_LOADED;
}

static int collect_jobs(struct modules *set)
{
	for (int i = 0; i < set->norder; i++) {
		struct hl_mod *m = set->order[i];
		for (int k = 0; k < m->njobs; k++) {
			struct mod_job *grown = realloc(set->jobs, sizeof(*grown) * (size_t)(set->njobs + 1));
			if (!grown)
				return HL_ENOMEM;
			set->jobs = grown;
			struct mod_job *j = &set->jobs[set->njobs];
			if (asprintf(&j->name, "%s.%s", m->name, m->jobs[k].name) < 0)
				return HL_ENOMEM;
			j->job = m->jobs[k];
			j->mod = m;
			set->njobs++;
		}
	}
	return 0;
}

static int collect_handlers(struct modules *set)
{
	int n = 0;
	for (int i = 0; i < set->norder; i++)
		n += set->order[i]->nhandlers;
	if (n && !(set->handlers = calloc((size_t)n, sizeof(*set->handlers))))
		return HL_ENOMEM;
	for (int i = 0; i < set->norder; i++) {
		struct hl_mod *m = set->order[i];
		for (int k = 0; k < m->nhandlers; k++)
			set->handlers[set->nhandlers++] = (struct mod_handler){
				.h = m->handlers[k], .module = m->name, .mod = m };
	}
	return 0;
}

static int collect_channels(struct modules *set)
{
	for (int i = 0; i < set->norder; i++)
		if (set->order[i]->has_inbox)
			set->inbox = set->order[i];
	int n = 0;
	for (int i = 0; i < set->norder; i++)
		n += set->order[i]->nchannels;
	if (n && !(set->channels = calloc((size_t)n, sizeof(*set->channels))))
		return HL_ENOMEM;
	for (int i = 0; i < set->norder; i++) {
		struct hl_mod *m = set->order[i];
		for (int k = 0; k < m->nchannels; k++)
			set->channels[set->nchannels++] = (struct mod_channel){
				.c = m->channels[k], .module = m->name, .mod = m };
	}
	return 0;
}

static int collect_records(struct modules *set)
{
	int n = 0;
	for (int i = 0; i < set->norder; i++)
		n += set->order[i]->nrecords;
	if (n && !(set->records = calloc((size_t)n, sizeof(*set->records))))
		return HL_ENOMEM;
	for (int i = 0; i < set->norder; i++)
		for (int k = 0; k < set->order[i]->nrecords; k++)
			set->records[set->nrecords++] = set->order[i]->records[k];
	return 0;
}

int modules_load(struct modules **out, const struct config *cfg, struct router *r)
{
	struct modules *set = calloc(1, sizeof(*set));
	*out = set;
	if (!set)
		return HL_ENOMEM;
	set->router = r;
	int rc = discover_modules(set, cfg->modules_dir);
	if (!rc)
		rc = discover(set, cfg->plugins_dir, ".conf", 1, 1);
	if (rc)
		return rc;
	if (set->n > 1) /* qsort(NULL, 0) is undefined */
		qsort(set->mods, (size_t)set->n, sizeof(*set->mods), by_name);
	if (!(set->order = calloc((size_t)set->n + 1, sizeof(*set->order))))
		return HL_ENOMEM;
	for (int i = 0; i < set->n; i++) {
		read_conf(set->mods[i], cfg->modules_dir);
		if (set->mods[i]->state == MOD_FOUND)
			open_module(set->mods[i]);
	}
	for (int i = 0; i < set->n; i++)
		visit(set->mods[i]);
	if ((rc = collect_jobs(set)) || (rc = collect_handlers(set)) || (rc = collect_channels(set)) ||
	    (rc = collect_records(set)))
		return rc;
	for (int i = 0; i < set->n; i++)
		if (set->mods[i]->state == MOD_REFUSED)
			return HL_EINVAL;
	return 0;
}

void modules_free(struct modules *set)
{
	if (!set)
		return;
	for (int i = 0; i < set->n; i++) {
		struct hl_mod *m = set->mods[i];
		/* No dlclose: see module.h. */
		for (int k = 0; k < m->nsettings; k++) {
			free(m->settings[k].key);
			free(m->settings[k].value);
		}
		free(m->settings);
		free(m->migrations);
		free(m->jobs);
		free(m->handlers);
		free(m->pages);
		free(m->channels);
		free(m->services);
		free(m->records);
		free(m->reason);
		free(m->path);
		free(m->conf_path);
		free(m->shadowed);
		free(m->name);
		free(m);
	}
	for (int i = 0; i < set->njobs; i++)
		free(set->jobs[i].name);
	free(set->jobs);
	free(set->handlers);
	free(set->channels);
	free(set->records);
	free(set->order);
	free(set->mods);
	free(set);
}

int modules_migrate(struct modules *set, struct hl_db *w)
{
	for (int i = 0; i < set->norder; i++) {
		struct hl_mod *m = set->order[i];
		int applied;
		int rc = migrate_owner(w, m->name, m->path, m->migrations, m->nmigrations, &applied);
		if (rc)
			return rc;
		if (applied)
			log_info("  %s: %d migration%s applied", m->name, applied, applied == 1 ? "" : "s");
	}
	return 0;
}

int modules_pending(struct modules *set, struct hl_db *w)
{
	int pending = 0;
	for (int i = 0; i < set->norder; i++) {
		struct hl_mod *m = set->order[i];
		int n = migrate_pending(w, m->name, m->nmigrations);
		if (n < 0)
			return n;
		pending += n;
	}
	return pending;
}

int modules_recount(const struct modules *set, struct hl_db *w, int64_t location)
{
	for (int i = 0; i < set->norder; i++) {
		const struct hl_module *d = set->order[i]->desc;
		for (size_t k = 0; k < d->recounts.count; k++) {
			struct hl_recount r;
			copy_entry(&r, sizeof(r), d->recounts.entries, k, d->recounts.size);
			sqlite3_stmt *st = r.sql ? hl_stmt_scoped(w, location, r.sql) : NULL;
			if (hl_step_changes(st) < 0) {
				log_error("%s: recount %s: %s", set->order[i]->name,
					  r.name ? r.name : "(unnamed)", hl_db_errmsg(w));
				return HL_EDB;
			}
		}
	}
	return 0;
}

const struct hl_record_kind *modules_records(const struct modules *set, int *n)
{
	*n = set->nrecords;
	return set->records;
}

const struct mod_channel *modules_channels(const struct modules *set, int *n)
{
	*n = set->nchannels;
	return set->channels;
}

struct mod_job *modules_jobs(struct modules *set, int *n)
{
	*n = set->njobs;
	return set->jobs;
}

struct mod_handler *modules_handlers(struct modules *set, int *n)
{
	*n = set->nhandlers;
	return set->handlers;
}

int modules_loaded(const struct modules *set)
{
	return set->norder;
}

const struct hl_page *modules_pages(const struct modules *set, int i, const char **name, int *n)
{
	const struct hl_mod *m = set->order[i];
	*name = m->name;
	*n = m->npages;
	return m->pages;
}

int modules_count(const struct modules *set)
{
	return set ? set->n : 0;
}

enum mod_state modules_state(const struct modules *set, int i, const char **name,
			     const char **reason)
{
	*name = set->mods[i]->name;
	*reason = set->mods[i]->reason;
	return set->mods[i]->state;
}

const char *mod_state_name(enum mod_state s)
{
	static const char *const words[] = {
		[MOD_FOUND] = "found", [MOD_DISABLED] = "disabled", [MOD_REFUSED] = "refused",
		[MOD_LOADED] = "loaded",
	};
	return words[s];
}

void modules_print(const struct modules *set, FILE *out)
{
	for (int i = 0; i < set->n; i++) {
		const struct hl_mod *m = set->mods[i];
		fprintf(out, "%-16s %-10s %-9s", m->name,
			m->desc ? m->desc->version : "-", mod_state_name(m->state));
		if (m->reason)
			fprintf(out, " %s", m->reason);
		else if (m->desc && m->desc->summary)
			fprintf(out, " %s", m->desc->summary);
		fputc('\n', out);
	}
}

static void write_names(struct hl_json *j, const char *key, const char *const *names)
{
	hl_json_key(j, key);
	hl_json_array(j);
	for (; names && *names; names++)
		hl_json_string(j, *names);
	hl_json_array_end(j);
}

void modules_write_json(const struct modules *set, struct hl_json *j)
{
	hl_json_array(j);
	for (int i = 0; set && i < set->n; i++) {
		const struct hl_mod *m = set->mods[i];
		hl_json_object(j);
		hl_json_key(j, "name");
		hl_json_string(j, m->name);
		hl_json_key(j, "version");
		hl_json_string(j, m->desc ? m->desc->version : NULL);
		hl_json_key(j, "state");
		hl_json_string(j, mod_state_name(m->state));
		hl_json_key(j, "summary");
		hl_json_string(j, m->desc ? m->desc->summary : NULL);
		hl_json_key(j, "reason");
		hl_json_string(j, m->reason);
		write_names(j, "requires", m->desc ? m->desc->requires : NULL);
		write_names(j, "wants", m->desc ? m->desc->wants : NULL);
		hl_json_object_end(j);
	}
	hl_json_array_end(j);
}

HL_API int hl_module_info(struct hl_req *req, int i, const char **name, const char **version,
			  const char **state)
{
	const struct modules *set = req->srv->modules;
	if (!set || i < 0 || i >= set->n)
		return HL_ENOENT;
	const struct hl_mod *m = set->mods[i];
	*name = m->name;
	*version = m->desc ? m->desc->version : NULL;
	*state = mod_state_name(m->state);
	return 0;
}

HL_API int hl_call(struct hl_req *req, const char *name, const char *in, const char **out)
{
	const struct hl_service *v;
	*out = NULL;
	if (!name || !service_of(req->srv->modules, NULL, name, &v))
		return HL_ENOENT;
	return v->call(req, in ? in : "{}", out);
}

const struct hl_inbox *modules_inbox(const struct modules *set, const struct hl_mod **owner)
{
	*owner = set ? set->inbox : NULL;
	return *owner ? &(*owner)->inbox : NULL;
}

HL_API const char *hl_channel_provider(struct hl_req *req, const char *channel)
{
	const struct modules *set = req->srv->modules;
	for (int i = 0; set && channel && i < set->nchannels; i++)
		if (!strcmp(set->channels[i].c.name, channel))
			return set->channels[i].module;
	return NULL;
}

/* ---- for the `hyperlevel modules` commands ---------------------------- */

struct hl_mod *modules_at(const struct modules *set, int i)
{
	return i >= 0 && i < set->n ? set->mods[i] : NULL;
}

enum mod_state mod_state(const struct hl_mod *m)
{
	return m->state;
}

const char *mod_name(const struct hl_mod *m)
{
	return m->name;
}

const char *mod_file(const struct hl_mod *m)
{
	return m->path;
}

const char *mod_conf(const struct hl_mod *m)
{
	return m->conf_path;
}

unsigned mod_abi_minor(const struct hl_mod *m)
{
	return m->descriptor.abi_minor;
}

const char *const *mod_requires(struct hl_mod *m)
{
	if (!m->desc && m->path && m->state == MOD_DISABLED) {
		open_module(m);
		if (m->state == MOD_REFUSED)
			return NULL;
	}
	return m->desc ? m->desc->requires : NULL;
}

const struct hl_migration *mod_migrations(struct hl_mod *m, int *n)
{
	if (m->state == MOD_DISABLED && m->path) {
		if (!m->desc)
			open_module(m);
		/* Its init only registers: run, it tells the migrations. */
		if (m->desc && m->state == MOD_DISABLED)
			init_module(m);
	}
	*n = m->nmigrations;
	return m->migrations;
}

int mod_enabled_in_conf(const struct hl_mod *m)
{
	const struct kv *en = find_setting(m, "enabled");
	return en ? conf_bool(en->value) : 1;
}

const char *mod_reason(const struct hl_mod *m)
{
	return m->reason;
}

/* SPDX-License-Identifier: MIT */
/*
 * modules_admin.c: `hyperlevel modules enable NAME` and `disable NAME`,
 * what an administrator does to an installed server's modules, as a2enmod
 * and a2dismod do for Apache. Both rewrite only the `enabled` line of
 * PLUGINS_DIR/NAME.conf (conf_set keeps every other line and comment),
 * after checking the dependencies against the modules found: a module is
 * not disabled while an enabled module requires it, nor enabled while a
 * module it requires is off or missing; each refusal names the module in
 * the way. A change takes effect at the next start: modules are never
 * loaded into, or out of, a running server (module.h says why).
 */
#include "lib/conf.h"
#include "lib/log.h"
#include "platform/module.h"

#include <stdio.h>
#include <string.h>

/* Whether `names` (NULL-terminated, or NULL) holds `name`. */
static int lists(const char *const *names, const char *name)
{
	for (; names && *names; names++)
		if (!strcmp(*names, name))
			return 1;
	return 0;
}

int modules_required_by(const struct modules *set, const char *name, char *out, size_t size)
{
	int n = 0;
	out[0] = '\0';
	for (int i = 0; i < modules_count(set); i++) {
		struct hl_mod *m = modules_at(set, i);
		if (mod_enabled_in_conf(m) != 1 || !lists(mod_requires(m), name))
			continue;
		size_t len = strlen(out);
		snprintf(out + len, size - len, "%s%s", n++ ? ", " : "", mod_name(m));
	}
	return n;
}

/* 0 when every module `m` requires is enabled and installed, else
 * HL_EINVAL after one line naming the first that is not. */
static int requirements_on(const struct modules *set, struct hl_mod *m)
{
	for (const char *const *r = mod_requires(m); r && *r; r++) {
		struct hl_mod *dep = modules_find(set, *r);
		if (!dep || !mod_file(dep)) {
			log_error("cannot enable %s: it requires module '%s', which is not installed",
				  mod_name(m), *r);
			return HL_EINVAL;
		}
		if (mod_enabled_in_conf(dep) != 1) {
			log_error("cannot enable %s: it requires module '%s', which is disabled"
				  " (hyperlevel modules enable %s)", mod_name(m), *r, *r);
			return HL_EINVAL;
		}
	}
	return 0;
}

int modules_set_enabled(const struct modules *set, const struct config *cfg, const char *name,
			int on)
{
	struct hl_mod *m = modules_find(set, name);
	if (!m || !mod_file(m)) {
		log_error("there is no module '%s' in %s (hyperlevel modules lists them)", name,
			  cfg->modules_dir);
		return HL_ENOENT;
	}
	/* The conf decides, not the state: a module left off because one it
	 * requires is off is still enabled in its own conf. */
	if (mod_enabled_in_conf(m) == on) {
		printf("%s is already %s%s%s%s\n", name, on ? "enabled" : "disabled",
		       on && mod_reason(m) ? " (but not loaded: " : "", on && mod_reason(m) ? mod_reason(m) : "",
		       on && mod_reason(m) ? ")" : "");
		return 0;
	}
	char users[1024];
	if (!on && modules_required_by(set, name, users, sizeof(users))) {
		log_error("cannot disable %s: %s require%s it (disable %s first)", name, users,
			  strchr(users, ',') ? "" : "s", strchr(users, ',') ? "them" : "it");
		return HL_EINVAL;
	}
	if (on && (!mod_requires(m) && mod_state(m) == MOD_REFUSED))
		return HL_EINVAL; /* its file could not be opened: logged */
	if (on && requirements_on(set, m))
		return HL_EINVAL;
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s.conf", cfg->plugins_dir, name);
	if (conf_set(mod_conf(m) ? mod_conf(m) : path, "enabled", on ? "yes" : "no"))
		return HL_EIO;
	printf("%s %s in %s; restart the server for it to take effect\n", name,
	       on ? "enabled" : "disabled", mod_conf(m) ? mod_conf(m) : path);
	return 0;
}

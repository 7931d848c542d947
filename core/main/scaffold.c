/* SPDX-License-Identifier: MIT */
/*
 * scaffold.c: `hyperlevel new-module NAME [DIR]`, which starts a module
 * outside the source tree: it copies the template folder (the setting
 * template_dir; the hyperlevel-dev package installs it) into DIR (./NAME
 * by default), replacing in file names and texts
 *
 *   @NAME@       the module's name          @TITLE@   its menu label
 *   @PKG@        the name, _ as - (Debian)  @DATE@    now (RFC 2822),
 *   @ABI_MAJOR@  this server's module ABI   @YEAR@    for debian/
 *   @AUTHOR@     $DEBFULLNAME <$DEBEMAIL>
 *
 * Nothing is written over: DIR must not exist. The copy is made in a
 * temporary folder beside DIR and renamed into place only when whole, so
 * a failure leaves nothing behind. DIR must lie in the current folder or
 * the user's home unless --force says otherwise (a typo, or a command
 * pasted as root, must not drop files in /etc), and NAME may be no
 * module's that the product ships or that is installed: the two would
 * clash on their file, their tables and their URLs.
 */
#include "main/scaffold.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "platform/module.h"

#include <hyperlevel/hyperlevel.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NAME_MAX_CHARS 32
#define TEMPLATE_MAX_BYTES (1 << 20)

struct words {
	const char *key[8];
	char value[8][256];
	int n;
};

/* Module names become file names, table-name prefixes and URL parts. */
static int valid_name(const char *name)
{
	size_t n = strlen(name);
	if (!n || n > NAME_MAX_CHARS || name[0] < 'a' || name[0] > 'z')
		return 0;
	return strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") == n &&
	       !module_name_reserved(name);
}

static void add_word(struct words *w, const char *key, const char *value)
{
	w->key[w->n] = key;
	snprintf(w->value[w->n], sizeof(w->value[0]), "%s", value);
	w->n++;
}

static void fill_words(struct words *w, const char *name)
{
	char buf[256];
	add_word(w, "@NAME@", name);
	snprintf(buf, sizeof(buf), "%s", name);
	buf[0] = (char)(buf[0] - 'a' + 'A');
	for (char *p = buf; *p; p++)
		if (*p == '_')
			*p = ' ';
	add_word(w, "@TITLE@", buf);
	snprintf(buf, sizeof(buf), "%s", name);
	for (char *p = buf; *p; p++)
		if (*p == '_')
			*p = '-';
	add_word(w, "@PKG@", buf);
	snprintf(buf, sizeof(buf), "%d", HL_ABI_MAJOR);
	add_word(w, "@ABI_MAJOR@", buf);
	const char *who = getenv("DEBFULLNAME"), *mail = getenv("DEBEMAIL");
	snprintf(buf, sizeof(buf), "%s <%s>", who && *who ? who : "Module author",
		 mail && *mail ? mail : "author@example.org");
	add_word(w, "@AUTHOR@", buf);
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	static const char days[][4] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char months[][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	long off = tm.tm_gmtoff / 60;
	snprintf(buf, sizeof(buf), "%s, %02d %s %d %02d:%02d:%02d %c%02ld%02ld", days[tm.tm_wday],
		 tm.tm_mday, months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
		 tm.tm_sec, off < 0 ? '-' : '+', labs(off) / 60, labs(off) % 60);
	add_word(w, "@DATE@", buf);
	snprintf(buf, sizeof(buf), "%d", tm.tm_year + 1900);
	add_word(w, "@YEAR@", buf);
}

/* `text` with every key of `w` replaced, written to `out`. */
static int write_replaced(FILE *out, const char *text, size_t len, const struct words *w)
{
	size_t i = 0;
	while (i < len) {
		int k = 0;
		if (text[i] == '@')
			for (; k < w->n; k++)
				if (!strncmp(text + i, w->key[k], strlen(w->key[k])))
					break;
		if (text[i] == '@' && k < w->n) {
			fputs(w->value[k], out);
			i += strlen(w->key[k]);
		} else {
			fputc(text[i++], out);
		}
	}
	return ferror(out) ? -1 : 0;
}

/* A file or folder name with the keys replaced, into `out`. */
static void replaced_name(const char *name, const struct words *w, char *out, size_t size)
{
	FILE *f = fmemopen(out, size, "w");
	int bad = !f || write_replaced(f, name, strlen(name), w);
	if ((f && fclose(f)) || bad)
		snprintf(out, size, "%s", name);
}

static int copy_file(const char *from, const char *to, mode_t mode, const struct words *w)
{
	struct buf text = { 0 };
	if (buf_read_file(&text, from, TEMPLATE_MAX_BYTES)) {
		log_error("%s: %s", from, strerror(errno));
		buf_release(&text);
		return HL_EIO;
	}
	int fd = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode & 0777);
	FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
	int rc = !out || write_replaced(out, text.data, text.len, w);
	if (out ? fclose(out) : (fd >= 0 && close(fd)))
		rc = 1;
	buf_release(&text);
	if (rc) {
		log_error("%s: %s", to, strerror(errno));
		return HL_EIO;
	}
	return 0;
}

/* Copy folder `from` into the existing folder `to`, recursively. */
static int copy_tree(const char *from, const char *to, const struct words *w, int *files)
{
	DIR *d = opendir(from);
	if (!d) {
		log_error("%s: %s", from, strerror(errno));
		return HL_EIO;
	}
	int rc = 0;
	struct dirent *e;
	while (!rc && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char src[PATH_MAX], name[NAME_MAX + 1], dst[PATH_MAX];
		struct stat st;
		replaced_name(e->d_name, w, name, sizeof(name));
		if (snprintf(src, sizeof(src), "%s/%s", from, e->d_name) >= (int)sizeof(src) ||
		    snprintf(dst, sizeof(dst), "%s/%s", to, name) >= (int)sizeof(dst)) {
			log_error("%s/%s: the path is too long", from, e->d_name);
			rc = HL_EIO;
		} else if (lstat(src, &st)) {
			log_error("%s: %s", src, strerror(errno));
			rc = HL_EIO;
		} else if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
			/* A link could lead the copy anywhere: a template has none. */
			log_error("%s: neither a file nor a folder", src);
			rc = HL_EIO;
		} else if (S_ISDIR(st.st_mode) && mkdir(dst, 0755)) {
			log_error("%s: %s", dst, strerror(errno));
			rc = HL_EIO;
		} else if (S_ISDIR(st.st_mode)) {
			rc = copy_tree(src, dst, w, files);
		} else if (!(rc = copy_file(src, dst, st.st_mode, w))) {
			(*files)++;
		}
	}
	closedir(d);
	return rc;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)type, (void)ftw;
	remove(path);
	return 0;
}

/* The module file NAME.so in a folder of cfg->modules_dir, into `out`;
 * 0 when there is none. */
static int installed_as(const struct config *cfg, const char *name, char *out, size_t size)
{
	for (const char *p = cfg->modules_dir; *p;) {
		size_t n = strcspn(p, ":");
		if (n && snprintf(out, size, "%.*s/%s.so", (int)n, p, name) < (int)size &&
		    !access(out, F_OK))
			return 1;
		p += n + (p[n] == ':');
	}
	return 0;
}

static int name_is_free(const struct config *cfg, const char *name)
{
	char shipped[sizeof(HL_SHIPPED_MODULES)], file[PATH_MAX];
	snprintf(shipped, sizeof(shipped), " %s ", name);
	if (strstr(HL_SHIPPED_MODULES, shipped)) {
		log_error("'%s' is the name of a module HyperLevel ships: choose another", name);
		return 0;
	}
	if (installed_as(cfg, name, file, sizeof(file))) {
		log_error("'%s' is the name of an installed module (%s): choose another", name, file);
		return 0;
	}
	return 1;
}

/* Whether the real path `path` is `top` or lies under it. The root
 * folder is nobody's own (a root shell in /, a service user whose home is
 * /): under it, everything would be. */
static int lies_in(const char *path, const char *top)
{
	char real[PATH_MAX];
	size_t n;
	if (!top || !*top || !realpath(top, real) || !strcmp(real, "/"))
		return 0;
	n = strlen(real);
	return !strncmp(path, real, n) && (path[n] == '/' || !path[n]);
}

/* The folder that will hold `target` lies in the current folder or the
 * user's home. */
static int place_is_ours(const char *target)
{
	char parent[PATH_MAX], real[PATH_MAX], cwd[PATH_MAX];
	snprintf(parent, sizeof(parent), "%s", target);
	size_t n = strlen(parent);
	while (n > 1 && parent[n - 1] == '/')
		parent[--n] = '\0';
	char *slash = strrchr(parent, '/');
	if (!slash)
		snprintf(parent, sizeof(parent), ".");
	else
		slash[slash == parent] = '\0';
	if (!realpath(parent, real))
		return 1; /* no such folder: the copy fails and says so */
	if ((getcwd(cwd, sizeof(cwd)) && lies_in(real, cwd)) || lies_in(real, getenv("HOME")))
		return 1;
	log_error("%s is outside the current folder and your home: give --force to write there",
		  target);
	return 0;
}

int scaffold_module(const struct config *cfg, const char *name, const char *dir, int force)
{
	if (!valid_name(name)) {
		log_error("'%s' cannot name a module: use 1 to %d lowercase letters, digits and _,"
			  " starting with a letter (not core, nor sqlite...)", name, NAME_MAX_CHARS);
		return HL_EINVAL;
	}
	if (!name_is_free(cfg, name))
		return HL_EINVAL;
	const char *target = dir ? dir : name;
	if (!force && !place_is_ours(target))
		return HL_EINVAL;
	struct stat st;
	if (stat(cfg->template_dir, &st) || !S_ISDIR(st.st_mode)) {
		log_error("the module templates are not in %s: install the hyperlevel-dev package"
			  " (or set template_dir)", cfg->template_dir);
		return HL_ENOENT;
	}
	if (!lstat(target, &st) || errno != ENOENT) {
		log_error("%s already exists: new-module writes a new folder, never into one", target);
		return HL_EINVAL;
	}
	char tmp[PATH_MAX];
	if (snprintf(tmp, sizeof(tmp), "%s.new-XXXXXX", target) >= (int)sizeof(tmp)) {
		log_error("%s: the path is too long", target);
		return HL_EINVAL;
	}
	if (!mkdtemp(tmp)) {
		log_error("%s: %s", tmp, strerror(errno));
		return HL_EIO;
	}
	mode_t mask = umask(0);
	umask(mask);
	chmod(tmp, 0777 & ~mask); /* mkdtemp's 0700, as mkdir would have made it */
	struct words w = { .n = 0 };
	fill_words(&w, name);
	int files = 0;
	int rc = copy_tree(cfg->template_dir, tmp, &w, &files);
	/* Not over a folder made meanwhile, even an empty one. */
	if (!rc && renameat2(AT_FDCWD, tmp, AT_FDCWD, target, RENAME_NOREPLACE)) {
		log_error("%s: %s", target, strerror(errno));
		rc = HL_EIO;
	}
	if (rc) {
		nftw(tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
		return rc;
	}
	printf("wrote %s/ (%d files): module %s with a route, a migration, a job, a page, its"
	       " tests and its Debian packaging\nnext: cd %s && make && make check\n", target, files,
	       name, target);
	return 0;
}

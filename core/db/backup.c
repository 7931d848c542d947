/* SPDX-License-Identifier: MIT */
/*
 * backup.c: the backups of backup.h: making a checked copy, pruning old
 * ones, the daily thread, and finding the newest copy.
 *
 * The thread waits (on a condition variable, so backup_stop wakes it at
 * once) until a copy is due, makes it, and waits again. A copy under way
 * watches b->stop through SQLite's progress handler and gives up when it is
 * set: unlike sqlite3_interrupt from the stopping thread, that cannot miss a
 * statement that was just about to start. b->next and b->failed are read
 * and written under b->lock; b->stop is atomic, set once.
 *
 * Temporary copies are named NAME.tmp-PID (and VACUUM INTO gives them a
 * NAME.tmp-PID-journal while it writes). One left behind by a process that
 * died (a crash, a killed `hyperlevel backup`) is removed by the next copy;
 * one whose process still runs is left alone.
 */
#include "db/backup.h"
#include "lib/log.h"

#include <hyperlevel/hyperlevel.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DAY_S (24 * 3600)
#define RETRY_S 3600        /* after a failed copy */
#define RECHECK_S 3600      /* look at the folder at least hourly (cron copies, clock changes) */
#define FUTURE_SLACK_S 300  /* a copy dated later than this is not believed */
#define TMP_MARK ".tmp-"

struct backup {
	const struct config *cfg;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	_Atomic int stop;
	time_t started;
	time_t next;      /* when the next copy is due; 0 while one is made */
	time_t failed;    /* when the last copy failed; 0 after a good one */
};

/* ---- names and paths ----------------------------------------------------- */

/* hyperlevel-YYYYmmddTHHMMSSZ.db exactly ('9' stands for a digit): the
 * only names the pruning deletes and the doctor counts. */
static int is_backup_name(const char *s, size_t len)
{
	static const char shape[] = "hyperlevel-99999999T999999Z.db";
	if (len != sizeof(shape) - 1)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (shape[i] == '9' ? !isdigit((unsigned char)s[i]) : s[i] != shape[i])
			return 0;
	return 1;
}

static int join(char *out, size_t n, const char *dir, const char *name)
{
	int len = snprintf(out, n, "%s/%s", dir, name);
	if (len < 0 || (size_t)len >= n) {
		log_error("[backup] %s/%s: path too long", dir, name);
		return HL_EINVAL;
	}
	return 0;
}

static int make_folder(const char *dir)
{
	struct stat st;
	if (mkdir(dir, 0750) && errno != EEXIST) {
		log_error("[backup] cannot create %s: %s", dir, strerror(errno));
		return HL_EIO;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		log_error("[backup] %s is not a folder", dir);
		return HL_EIO;
	}
	return 0;
}

/* ---- the copy ------------------------------------------------------------ */

/* SQLite's progress handler: non-zero ends the statement (SQLITE_INTERRUPT). */
static int stopping(void *arg)
{
	struct backup *b = arg;
	return b && b->stop;
}

/* A read-only connection that never checkpoints, not even on close (it may
 * be the last one open on the file when the server is not running). */
static int open_ro(struct backup *b, const char *path, sqlite3 **out)
{
	if (sqlite3_open_v2(path, out, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		log_error("[backup] %s: cannot open: %s", path,
			  *out ? sqlite3_errmsg(*out) : "out of memory");
		return HL_EDB;
	}
	sqlite3_db_config(*out, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	sqlite3_busy_timeout(*out, 10000);
	/* Often enough that a copy of a few large rows still stops quickly. */
	if (b)
		sqlite3_progress_handler(*out, 100, stopping, b);
	return 0;
}

/* Step `sql` (with :arg bound to `arg`) to its end; the first row's first column goes
 * to `first`. HL_ESTATE when stopped, HL_EDB (logged) on an error. */
static int run(struct backup *b, sqlite3 *db, const char *sql, const char *arg, char *first,
	       size_t n)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL), rows = 0;
	if (rc == SQLITE_OK)
		hl_bind_text(st, ":arg", arg);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *text = (const char *)sqlite3_column_text(st, 0);
		/* A quick_check report starts with "*** in database main ***\n":
		 * keep the log to one line. */
		const char *nl = text ? strchr(text, '\n') : NULL;
		if (!rows++ && first)
			snprintf(first, n, "%s", nl ? nl + 1 : text ? text : "");
		rc = SQLITE_OK;
	}
	if (rc == SQLITE_INTERRUPT && stopping(b))
		rc = HL_ESTATE;
	else if (rc != SQLITE_DONE) {
		log_error("[backup] %s: %s", sqlite3_db_filename(db, "main"), sqlite3_errmsg(db));
		rc = HL_EDB;
	} else
		rc = 0;
	sqlite3_finalize(st);
	return rc;
}

static int vacuum_into(struct backup *b, const char *src, const char *tmp)
{
	sqlite3 *db = NULL;
	int rc = open_ro(b, src, &db);
	if (!rc)
		rc = run(b, db, "VACUUM INTO :arg", tmp, NULL, 0);
	sqlite3_close(db);
	return rc;
}

/* The copy is in rollback-journal mode (VACUUM INTO writes it so): opened
 * read-only, it leaves no -wal or -shm beside it. */
static int check_copy(struct backup *b, const char *tmp)
{
	sqlite3 *db = NULL;
	char first[512] = "";
	int rc = open_ro(b, tmp, &db);
	if (!rc)
		rc = run(b, db, "PRAGMA quick_check", NULL, first, sizeof(first));
	sqlite3_close(db);
	if (!rc && strcmp(first, "ok")) {
		log_error("[backup] %s failed quick_check (%s); it was deleted", tmp, first);
		rc = HL_EDB;
	}
	return rc;
}

/* Flush a file or folder to disk, so a renamed copy survives a power cut. */
static int flush(const char *path, int flags)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | flags);
	int rc = fd < 0 || fsync(fd) ? HL_EIO : 0;
	if (rc)
		log_error("[backup] %s: cannot flush: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return rc;
}

/* ---- the folder ---------------------------------------------------------- */

static int newest_first(const void *a, const void *b)
{
	return strcmp(*(char *const *)b, *(char *const *)a);
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* The backups' names, newest first (the name is the UTC time it was made).
 * All or nothing: pruning from part of the list could delete newer ones. */
static int list_names(const char *dir, char ***out, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t cap = 0;
	int rc = 0;
	*out = NULL;
	*n = 0;
	if (!d)
		return HL_EIO;
	while (!rc && (e = readdir(d))) {
		if (!is_backup_name(e->d_name, strlen(e->d_name)))
			continue;
		if (*n == cap) {
			char **grown = realloc(*out, (cap = cap ? cap * 2 : 32) * sizeof(*grown));
			if (!grown) {
				rc = HL_ENOMEM;
				break;
			}
			*out = grown;
		}
		if (!((*out)[*n] = strdup(e->d_name)))
			rc = HL_ENOMEM;
		else
			(*n)++;
	}
	closedir(d);
	if (rc) {
		free_names(*out, *n);
		*out = NULL;
		*n = 0;
		log_error("[backup] out of memory listing %s; nothing was pruned", dir);
		return rc;
	}
	if (*n)
		qsort(*out, *n, sizeof(**out), newest_first);
	return 0;
}

/* Keep the `keep` newest backups, counting `made`, which stays whatever
 * its name says (a wrong clock could otherwise make it the first to go). */
static void prune(const char *dir, long long keep, const char *made)
{
	char **names, path[PATH_MAX];
	size_t n, removed = 0;
	long long others = 0;
	if (list_names(dir, &names, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(names[i], made) && others++ >= keep - 1 &&
		    !join(path, sizeof(path), dir, names[i])) {
			if (unlink(path))
				log_warn("[backup] cannot remove %s: %s", path, strerror(errno));
			else
				removed++;
		}
	}
	free_names(names, n);
	if (removed)
		log_info("[backup] removed %zu old backup%s (keeping %lld)", removed,
			 removed == 1 ? "" : "s", keep);
}

/* Remove temporary copies whose process is gone. */
static void sweep(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		const char *mark = strstr(e->d_name, TMP_MARK);
		if (!mark || !is_backup_name(e->d_name, (size_t)(mark - e->d_name)))
			continue;
		char *end;
		long pid = strtol(mark + strlen(TMP_MARK), &end, 10);
		if ((*end && strcmp(end, "-journal")) || pid <= 0 || pid == (long)getpid() ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0)
			log_info("[backup] removed %s/%s, left by a copy that did not finish", dir,
				 e->d_name);
	}
	if (d)
		closedir(d);
}

/* ---- making one backup --------------------------------------------------- */

/* The copy's name is its second: dir/hyperlevel-YYYYMMDDTHHMMSSZ.db. */
static int stamp_name(const char *dir, char *name)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	strftime(stamp, sizeof(stamp), "hyperlevel-%Y%m%dT%H%M%SZ.db", gmtime_r(&now, &tm));
	return join(name, PATH_MAX, dir, stamp);
}

static void next_second(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	usleep((useconds_t)((1000000000L - ts.tv_nsec) / 1000 + 1000));
}

/* A second copy within the same second (a purge, then the migration that
 * follows) waits for the next one rather than take the first's name. */
static int paths(const struct config *cfg, char *dir, char *src, char *name)
{
	int rc = join(dir, PATH_MAX, cfg->data_dir, "backups");
	if (!rc)
		rc = join(src, PATH_MAX, cfg->data_dir, "hyperlevel.db");
	for (int tries = 0; !rc && tries < 3; tries++) {
		if ((rc = stamp_name(dir, name)) || access(name, F_OK))
			break;
		next_second();
	}
	if (!rc && access(src, F_OK)) {
		log_error("[backup] %s: there is no database to back up", src);
		rc = HL_EIO;
	}
	return rc;
}

/* Give the finished copy its name. Another process's copy (the server's
 * own, beside a `hyperlevel backup`) may have taken that second's name
 * since it was chosen: then the next second's. */
static int give_name(const char *tmp, const char *dir, char *path)
{
	for (int tries = 0;; tries++) {
		if (!renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE))
			return 0;
		if (errno != EEXIST || tries == 2) {
			log_error("[backup] cannot rename %s: %s", tmp, strerror(errno));
			return HL_EIO;
		}
		next_second();
		if (stamp_name(dir, path))
			return HL_EIO;
	}
}

static void remove_temporary(const char *tmp)
{
	char journal[PATH_MAX + 64];
	snprintf(journal, sizeof(journal), "%s-journal", tmp);
	unlink(tmp);
	unlink(journal);
}

/* Copy, check, flush, and only then give the copy its name. */
static int copy_checked(struct backup *b, const char *src, const char *tmp, const char *dir,
			char *path)
{
	int rc = vacuum_into(b, src, tmp);
	if (!rc)
		rc = check_copy(b, tmp);
	if (!rc)
		rc = flush(tmp, 0);
	if (!rc)
		rc = give_name(tmp, dir, path);
	if (rc) {
		remove_temporary(tmp);
		if (rc == HL_ESTATE)
			log_info("[backup] stopped before %s was finished; it was removed", path);
	}
	return rc;
}

static int make(struct backup *b, const struct config *cfg, struct backup_info *out)
{
	char dir[PATH_MAX], src[PATH_MAX], tmp[PATH_MAX + 32];
	long long start = now_us();
	struct stat st;
	memset(out, 0, sizeof(*out));
	int rc = paths(cfg, dir, src, out->path);
	if (!rc)
		rc = make_folder(dir);
	if (rc)
		return rc;
	sweep(dir);
	snprintf(tmp, sizeof(tmp), "%s" TMP_MARK "%ld", out->path, (long)getpid());
	remove_temporary(tmp);
	if ((rc = copy_checked(b, src, tmp, dir, out->path)))
		return rc;
	flush(dir, O_DIRECTORY);
	if (stat(out->path, &st) == 0) {
		out->bytes = (long long)st.st_size;
		out->when = st.st_mtime;
	}
	out->ms = (now_us() - start) / 1000;
	log_info("[backup] wrote %s (%.1f MB, quick_check ok, %lld ms)", out->path,
		 (double)out->bytes / (1024 * 1024), out->ms);
	prune(dir, CONFIG_LIVE(cfg, backup_keep), strrchr(out->path, '/') + 1);
	return 0;
}

int backup_make(const struct config *cfg, struct backup_info *out)
{
	return make(NULL, cfg, out);
}

/* ---- the newest ---------------------------------------------------------- */

int backup_newest(const char *data_dir, struct backup_info *out)
{
	char dir[PATH_MAX];
	const char *best = NULL;
	time_t limit = time(NULL) + FUTURE_SLACK_S;
	struct dirent *e;
	struct stat st;
	memset(out, 0, sizeof(*out));
	if (join(dir, sizeof(dir), data_dir, "backups"))
		return HL_EIO;
	DIR *d = opendir(dir);
	if (!d)
		return errno == ENOENT ? HL_ENOENT : HL_EIO;
	while ((e = readdir(d))) {
		if (!is_backup_name(e->d_name, strlen(e->d_name)) ||
		    fstatat(dirfd(d), e->d_name, &st, 0) || !S_ISREG(st.st_mode) ||
		    st.st_mtime > limit || (best && st.st_mtime < out->when))
			continue;
		if (best && st.st_mtime == out->when && strcmp(e->d_name, best) < 0)
			continue;
		if (join(out->path, sizeof(out->path), dir, e->d_name))
			continue;
		best = strrchr(out->path, '/') + 1;
		out->when = st.st_mtime;
		out->bytes = (long long)st.st_size;
	}
	closedir(d);
	return best ? 0 : HL_ENOENT;
}

/* ---- the thread ---------------------------------------------------------- */

/* A day after the newest copy (now when there is none), or `retry`. */
static time_t due(const struct config *cfg, time_t retry)
{
	struct backup_info newest;
	time_t at = time(NULL);
	if (!backup_newest(cfg->data_dir, &newest) && newest.when + DAY_S > at)
		at = newest.when + DAY_S;
	return at > retry ? at : retry;
}

/* Wait up to `s` seconds or until backup_stop. Called with b->lock held. */
static void wait_for(struct backup *b, time_t s)
{
	/* now_us is CLOCK_MONOTONIC, as is the condition variable (see
	 * backup_start): a change of the wall clock does not stretch the wait. */
	long long until = now_us() + (long long)(s < RECHECK_S ? s : RECHECK_S) * 1000000;
	struct timespec ts = { .tv_sec = until / 1000000, .tv_nsec = (until % 1000000) * 1000 };
	if (!b->stop)
		pthread_cond_timedwait(&b->wake, &b->lock, &ts);
}

static void *loop(void *arg)
{
	struct backup *b = arg;
	struct backup_info made;
	time_t retry = 0;
	pthread_mutex_lock(&b->lock);
	while (!b->stop) {
		pthread_mutex_unlock(&b->lock);
		time_t at = due(b->cfg, retry), now = time(NULL);
		pthread_mutex_lock(&b->lock);
		b->next = at;
		if (at > now) {
			wait_for(b, at - now);
			continue;
		}
		if (b->stop)
			break;
		b->next = 0;
		pthread_mutex_unlock(&b->lock);
		int rc = make(b, b->cfg, &made);
		now = time(NULL);
		retry = rc && rc != HL_ESTATE ? now + RETRY_S : 0;
		pthread_mutex_lock(&b->lock);
		if (rc != HL_ESTATE)
			b->failed = rc ? now : 0;
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

int backup_start(struct backup **out, const struct config *cfg)
{
	struct backup *b = calloc(1, sizeof(*b));
	pthread_condattr_t attr;
	*out = NULL;
	if (!b)
		return HL_ENOMEM;
	b->cfg = cfg;
	b->started = b->next = time(NULL);
	pthread_mutex_init(&b->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&b->wake, &attr);
	pthread_condattr_destroy(&attr);
	int err = pthread_create(&b->thread, NULL, loop, b);
	if (err) {
		log_error("[backup] cannot start the thread: %s", strerror(err));
		pthread_cond_destroy(&b->wake);
		pthread_mutex_destroy(&b->lock);
		free(b);
		return HL_EIO;
	}
	*out = b;
	return 0;
}

void backup_stop(struct backup *b)
{
	if (!b)
		return;
	pthread_mutex_lock(&b->lock);
	b->stop = 1;
	pthread_cond_signal(&b->wake);
	pthread_mutex_unlock(&b->lock);
	pthread_join(b->thread, NULL);
	pthread_cond_destroy(&b->wake);
	pthread_mutex_destroy(&b->lock);
	free(b);
}

void backup_schedule(struct backup *b, time_t *started, time_t *next, time_t *failed)
{
	pthread_mutex_lock(&b->lock);
	*started = b->started;
	*next = b->next;
	*failed = b->failed;
	pthread_mutex_unlock(&b->lock);
}

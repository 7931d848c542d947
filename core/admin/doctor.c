/* SPDX-License-Identifier: MIT */
/*
 * doctor.c: GET /api/admin/doctor, for administrators: live checks of what
 * the server depends on (the database file, free disk, backups, modules),
 * each saying in words what is wrong:
 *   {"ok": bool, "checks": [{"name": "disk", "ok": true, "detail": "..."}]}
 * It only reads: the database check runs on a lent read connection, never
 * on the writer.
 *
 * The expensive parts, the database's quick_check and the scan of the
 * backups folder, are remembered for CACHE_US, and only when they found
 * nothing wrong: a failure is looked at again on the next request, so a
 * repair shows at once. The remembered scan is also dropped when the folder
 * changes, and the newest copy's time is read afresh every time (a single
 * stat), so an old backup never passes for a fresh one.
 */
#include "admin/admin.h"
#include "db/backup.h"
#include "db/db.h"
#include "lib/log.h"
#include "platform/module.h"
#include "request/request.h"
#include "server.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>

#define CACHE_US (30 * 1000000LL)
#define BACKUP_LATE_S (26 * 3600)  /* a day, and some slack for a slow copy */
#define GB (1024.0 * 1024 * 1024)

static int doctor(struct hl_req *req);

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/admin/doctor", .handler = doctor,
	  .access = HL_ACCESS_ADMIN, .flags = HL_ROUTE_NO_LOCATION },
};

int doctor_register(struct router *r)
{
	return router_add_table(r, routes, sizeof(routes) / sizeof(routes[0]), "core");
}

struct check {
	const char *name;
	int ok;
	char detail[512];
};

/* What the last good runs found, shared by every request. */
static struct {
	pthread_mutex_t lock;
	long long quick_check_at;    /* now_us of the last "ok"; 0: none */
	long long scan_at;           /* now_us of the last scan; 0: none */
	struct timespec scan_folder; /* the folder's mtime then */
	int scan_found;
	struct backup_info scan;
} memo = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void say(struct check *c, int ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(struct check *c, int ok, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->detail, sizeof(c->detail), fmt, ap);
	va_end(ap);
	c->ok = ok;
}

static int fresh(long long at)
{
	return at && now_us() - at < CACHE_US;
}

/* ---- the database -------------------------------------------------------- */

static void quick_check(struct db *db, struct check *c)
{
	struct hl_db *conn = db_lend(db);
	/* The file as it is now, not pages this connection read before (a
	 * disk that went bad since, or a file mended from outside, would not
	 * show); and the pages the check reads are given back after it. */
	db_let_go(conn);
	sqlite3_stmt *st = hl_stmt(conn, "PRAGMA quick_check");
	char first[400] = "";
	int rows = 0, step = SQLITE_ERROR;
	while (st && (step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *text = (const char *)sqlite3_column_text(st, 0);
		/* SQLite starts a report with the schema's name on a line of
		 * its own; there is only "main". */
		const char *nl = text ? strchr(text, '\n') : NULL;
		if (!rows++)
			snprintf(first, sizeof(first), "%s", nl && !strncmp(text, "***", 3) ? nl + 1 :
				 text ? text : "");
	}
	if (!st || step != SQLITE_DONE)
		say(c, 0, "the database cannot be read: %s", hl_db_errmsg(conn));
	else if (rows == 1 && !strcmp(first, "ok"))
		say(c, 1, "quick_check ok");
	else
		say(c, 0, "quick_check found %d problem%s, the first: %s", rows, rows == 1 ? "" : "s",
		    first);
	sqlite3_reset(st);
	db_let_go(conn);
	db_return(db, conn);
}

static void check_database(struct server *srv, struct check *c)
{
	c->name = "database";
	pthread_mutex_lock(&memo.lock);
	int known_good = fresh(memo.quick_check_at);
	pthread_mutex_unlock(&memo.lock);
	if (known_good) {
		say(c, 1, "quick_check ok");
		return;
	}
	quick_check(srv->db, c);
	pthread_mutex_lock(&memo.lock);
	memo.quick_check_at = c->ok ? now_us() : 0;
	pthread_mutex_unlock(&memo.lock);
}

/* ---- the disk ------------------------------------------------------------ */

static void check_disk(const struct config *cfg, struct check *c)
{
	struct statvfs fs;
	c->name = "disk";
	if (statvfs(cfg->data_dir, &fs)) {
		say(c, 0, "cannot read the free space of %s: %s", cfg->data_dir, strerror(errno));
		return;
	}
	double avail = (double)fs.f_bavail * (double)fs.f_frsize;
	double total = (double)fs.f_blocks * (double)fs.f_frsize;
	int low = avail < GB, tight = avail < total * 0.05;
	say(c, !low && !tight, "%.1f GB free of %.1f GB%s", avail / GB, total / GB,
	    low ? ": under 1 GB" : tight ? ": under 5 %" : "");
}

/* ---- backups ------------------------------------------------------------- */

/* backup_newest, remembered while the folder does not change; the newest
 * copy's mtime is read again each time. */
static int newest_backup(const char *data_dir, struct backup_info *out)
{
	char dir[PATH_MAX];
	struct stat folder, file;
	snprintf(dir, sizeof(dir), "%s/backups", data_dir);
	if (stat(dir, &folder))
		return errno == ENOENT ? HL_ENOENT : HL_EIO;
	pthread_mutex_lock(&memo.lock);
	int hit = fresh(memo.scan_at) && memo.scan_folder.tv_sec == folder.st_mtim.tv_sec &&
		  memo.scan_folder.tv_nsec == folder.st_mtim.tv_nsec, found = memo.scan_found;
	if (hit)
		*out = memo.scan;
	pthread_mutex_unlock(&memo.lock);
	if (hit && !found)
		return HL_ENOENT;
	if (hit && !stat(out->path, &file)) {
		out->when = file.st_mtime;
		out->bytes = (long long)file.st_size;
		return 0;
	}
	int rc = backup_newest(data_dir, out), err = errno;
	if (rc != HL_EIO) {
		pthread_mutex_lock(&memo.lock);
		memo.scan_at = now_us();
		memo.scan_folder = folder.st_mtim;
		memo.scan_found = rc == 0;
		memo.scan = *out;
		pthread_mutex_unlock(&memo.lock);
	}
	errno = err;
	return rc;
}

static void age(char *out, size_t n, time_t s)
{
	if (s < 60)
		snprintf(out, n, "under a minute");
	else if (s < 3600)
		snprintf(out, n, "%lld min", (long long)s / 60);
	else if (s < 48 * 3600)
		snprintf(out, n, "%lld h", (long long)s / 3600);
	else
		snprintf(out, n, "%lld days", (long long)s / 86400);
}

static void utc(char *out, size_t n, time_t t)
{
	struct tm tm;
	strftime(out, n, "%Y-%m-%d %H:%M UTC", gmtime_r(&t, &tm));
}

/* What the daily thread says; a server with backups off has none. */
struct plan {
	time_t started, next, failed;
};

static void plan_of(struct server *srv, struct plan *p, time_t now)
{
	p->started = p->next = now;
	p->failed = 0;
	if (srv->backup)
		backup_schedule(srv->backup, &p->started, &p->next, &p->failed);
}

/* None yet: fine on the first day (a fresh install), not after. */
static void no_backup_yet(struct check *c, const struct plan *p, time_t now)
{
	char when[64], ran[32];
	age(ran, sizeof(ran), now - p->started);
	if (now - p->started >= BACKUP_LATE_S) {
		say(c, 0, "no backup after %s of running; the log's [backup] lines say why", ran);
		return;
	}
	if (p->next <= now) {
		say(c, 1, "no backup yet; the first is being made");
		return;
	}
	utc(when, sizeof(when), p->next);
	say(c, 1, "no backup yet; the first is due at %s", when);
}

/* The last copy failed (and none was made since, say by a cron job). */
static void failed(struct check *c, const struct plan *p, int have, const char *old)
{
	char at[64], next[64];
	utc(at, sizeof(at), p->failed);
	utc(next, sizeof(next), p->next);
	say(c, 0, "the last backup failed at %s (the log's [backup] lines say why); %s%s%s;"
	    " the next try is at %s", at, have ? "newest backup " : "there is none yet",
	    have ? old : "", have ? " old" : "", next);
}

static void check_backups(struct server *srv, struct check *c)
{
	const struct config *cfg = srv->cfg;
	struct backup_info newest;
	struct plan p;
	time_t now = time(NULL);
	char old[32];
	c->name = "backups";
	int rc = newest_backup(cfg->data_dir, &newest);
	if (rc == HL_EIO) {
		say(c, 0, "cannot read %s/backups: %s", cfg->data_dir, strerror(errno));
		return;
	}
	plan_of(srv, &p, now);
	if (rc == 0)
		age(old, sizeof(old), now > newest.when ? now - newest.when : 0);
	const char *name = rc ? "" : strrchr(newest.path, '/') + 1;
	if (!cfg->backups && rc)
		say(c, 1, "backups are off (backups = no)");
	else if (!cfg->backups)
		say(c, 1, "backups are off (backups = no); newest backup %s old (%s)", old, name);
	else if (p.failed && (rc || newest.when < p.failed))
		failed(c, &p, rc == 0, old);
	else if (rc)
		no_backup_yet(c, &p, now);
	else if (now - newest.when > BACKUP_LATE_S)
		say(c, 0, "newest backup %s old (%s); one is due every 24 h: the log's [backup]"
		    " lines say why it is late", old, name);
	else
		say(c, 1, "newest backup %s old (%s)", old, name);
}

/* ---- modules ------------------------------------------------------------- */

static void check_modules(struct server *srv, struct check *c)
{
	int n = modules_count(srv->modules), refused = 0;
	size_t len = 0;
	c->name = "modules";
	say(c, 1, "no modules");
	for (int i = 0; i < n && len < sizeof(c->detail); i++) {
		const char *name, *reason;
		enum mod_state s = modules_state(srv->modules, i, &name, &reason);
		refused += s == MOD_REFUSED;
		int w = snprintf(c->detail + len, sizeof(c->detail) - len, "%s%s %s%s%s%s",
				 i ? ", " : "", name, mod_state_name(s), s == MOD_REFUSED ? " (" : "",
				 s == MOD_REFUSED && reason ? reason : "", s == MOD_REFUSED ? ")" : "");
		len += w > 0 ? (size_t)w : 0;
	}
	c->ok = !refused;
}

/* ---- the answer ---------------------------------------------------------- */

static int doctor(struct hl_req *req)
{
	struct check checks[4];
	int ok = 1;
	memset(checks, 0, sizeof(checks));
	check_database(req->srv, &checks[0]);
	check_disk(req->srv->cfg, &checks[1]);
	check_backups(req->srv, &checks[2]);
	check_modules(req->srv, &checks[3]);
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
		ok &= checks[i].ok;
	struct hl_json *j = hl_reply_json(req, 200);
	hl_json_object(j);
	hl_json_key(j, "ok");
	hl_json_bool(j, ok);
	hl_json_key(j, "checks");
	hl_json_array(j);
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		hl_json_object(j);
		hl_json_key(j, "name");
		hl_json_string(j, checks[i].name);
		hl_json_key(j, "ok");
		hl_json_bool(j, checks[i].ok);
		hl_json_key(j, "detail");
		hl_json_string(j, checks[i].detail);
		hl_json_object_end(j);
	}
	hl_json_array_end(j);
	hl_json_object_end(j);
	return 0;
}

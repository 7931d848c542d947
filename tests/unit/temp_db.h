/* SPDX-License-Identifier: MIT */
/*
 * temp_db.h: a database in a fresh temporary directory for the unit tests
 * that need one (db, jobs, migrate): temp_db_open makes the directory and
 * opens it with a small page cache and two read connections;
 * temp_db_close closes it and removes the directory with its files.
 * Include after test.h and the core's db.h.
 */
#ifndef HL_TEST_TEMP_DB_H
#define HL_TEST_TEMP_DB_H

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct temp_db {
	char dir[64];
	struct config cfg;
	struct db *db;
};

/* 0, or -1 (with a failed CHECK) when the directory or database cannot be
 * made; then nothing is left behind. `name` goes into the directory's. */
static int temp_db_open(struct temp_db *t, const char *name)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->dir, sizeof(t->dir), "/tmp/hl-%s-XXXXXX", name);
	CHECK(mkdtemp(t->dir) != NULL);
	t->cfg.data_dir = t->dir;
	t->cfg.sqlite_cache_mb = 2;
	t->cfg.read_connections = 2;
	int rc = db_open(&t->db, &t->cfg);
	CHECK_INT(rc, 0);
	if (rc)
		rmdir(t->dir);
	return rc ? -1 : 0;
}

static void temp_db_close(struct temp_db *t)
{
	db_close(t->db);
	t->db = NULL;
	DIR *d = opendir(t->dir);
	for (struct dirent *e; d && (e = readdir(d));) {
		char path[PATH_MAX];
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", t->dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	CHECK_INT(rmdir(t->dir), 0);
}

#endif

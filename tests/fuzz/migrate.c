/* SPDX-License-Identifier: MIT */
/*
 * migrate: the migration runner (core/db/migrate.c) on a real database.
 * The runner has no splitter of its own: each step's text goes whole to
 * sqlite3_exec, which splits it into statements with SQLite's tokenizer,
 * so this target feeds migrate_owner fuzzed steps (the input cut at NUL
 * bytes, at most twelve: a module ships up to eleven) on top of the
 * core's schema, and checks the runner's promises: each step is applied with its record or not at all,
 * a second start applies nothing, an edited step is refused.
 *
 * One database for the process, put back before each run to the core's
 * schema from a copy in memory (SQLite's backup API), so no run sees what
 * another left. Inputs naming PRAGMA, TEMP, ATTACH or DETACH are not
 * run: what those do outlives that copy on the connection (SQL cannot
 * spell a keyword any other way). A progress handler stops a step that runs too
 * long (a recursive query) and the length limit a huge blob: SQL allows
 * both and neither is a bug of the runner.
 */
#include "db/db.h"
#include "db/migrate.h"

#include <dirent.h>
#include <limits.h>
#include <strings.h>
#include <unistd.h>

#include "fuzz.h"

#define MAX_STEPS 12

static struct config cfg = { .sqlite_cache_mb = 2, .read_connections = 1 };
static struct db *db;
static sqlite3 *pristine; /* the core's schema, in memory */

static int stop_long_steps(void *left)
{
	return --*(int *)left < 0;
}

static void copy(sqlite3 *to, sqlite3 *from)
{
	sqlite3_backup *b = sqlite3_backup_init(to, "main", from, "main");
	FUZZ_CHECK(b && sqlite3_backup_step(b, -1) == SQLITE_DONE);
	FUZZ_CHECK(sqlite3_backup_finish(b) == SQLITE_OK);
}

static char dir[PATH_MAX];

static void remove_dir(void)
{
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));) {
		char path[PATH_MAX + 256];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (e->d_name[0] != '.')
			unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

static void open_once(void)
{
	const char *tmp = getenv("TMPDIR");
	int applied;
	snprintf(dir, sizeof(dir), "%s/hl-fuzz-migrate-XXXXXX", tmp ? tmp : "/tmp");
	FUZZ_CHECK(mkdtemp(dir));
	atexit(remove_dir);
	cfg.data_dir = dir;
	FUZZ_CHECK(db_open(&db, &cfg) == 0);
	struct hl_db *w = db_write_lock(db);
	FUZZ_CHECK(migrate_owner(w, "core", "migrations/", core_migrations, core_migrations_count,
				 &applied) == 0);
	FUZZ_CHECK(sqlite3_open(":memory:", &pristine) == SQLITE_OK);
	copy(pristine, hl_sqlite(w));
	sqlite3_limit(hl_sqlite(w), SQLITE_LIMIT_LENGTH, 1 << 20);
	db_write_unlock(db, w);
}

static const char *const lasting[] = { "pragma", "temp", "attach", "detach", NULL };
static const char *const runners_table[] = { "schema_migrations", NULL };

/* Whether data holds any of the words, in any case. */
static int names_any(const uint8_t *data, size_t size, const char *const *words)
{
	for (const char *const *w = words; *w; w++)
		for (size_t i = 0, n = strlen(*w); i + n <= size; i++)
			if (!strncasecmp((const char *)data + i, *w, n))
				return 1;
	return 0;
}

static long long recorded(struct hl_db *w)
{
	sqlite3_stmt *st = hl_stmt(w, "SELECT count(*) FROM schema_migrations WHERE owner = 'fuzz'");
	long long n = st && sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
	if (st)
		sqlite3_reset(st);
	return n;
}

/* Cut the input at NUL bytes into steps named 001_step ... */
static int split(char *text, size_t size, struct hl_migration *steps, char names[][16])
{
	int n = 0;
	for (char *p = text; n < MAX_STEPS && p <= text + size; p += strlen(p) + 1) {
		snprintf(names[n], 16, "%03d_step", n + 1);
		steps[n].name = names[n];
		steps[n].sql = p;
		n++;
	}
	return n;
}

static int migrate(struct hl_db *w, struct hl_migration *steps, int n, int *applied)
{
	int budget = 200000;
	sqlite3_progress_handler(hl_sqlite(w), 1000, stop_long_steps, &budget);
	int rc = migrate_owner(w, "fuzz", "fuzz/", steps, n, applied);
	sqlite3_progress_handler(hl_sqlite(w), 0, NULL, NULL);
	return rc;
}

static void run(struct hl_db *w, struct hl_migration *steps, int n, int own_table)
{
	int applied, again;
	int rc = migrate(w, steps, n, &applied);
	FUZZ_CHECK(rc == 0 || rc == HL_EDB || rc == HL_EINVAL);
	FUZZ_CHECK(applied >= 0 && applied <= n && (rc || applied == n));
	FUZZ_CHECK(sqlite3_get_autocommit(hl_sqlite(w)));
	if (own_table)
		return; /* a step wrote the runner's own table: nothing to hold it to */
	/* Applied steps are recorded, a failed one is not. */
	FUZZ_CHECK(recorded(w) == applied);
	/* The next start applies nothing more of what it applied. */
	FUZZ_CHECK(migrate(w, steps, applied, &again) == 0 && again == 0);
	if (applied) { /* a shipped step edited */
		steps[applied - 1].sql = "SELECT 'edited'";
		FUZZ_CHECK(migrate(w, steps, applied, &again) == HL_EINVAL && again == 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hl_migration steps[MAX_STEPS];
	char names[MAX_STEPS][16];
	if (!db)
		open_once();
	if (names_any(data, size, lasting))
		return 0;
	char *text = fuzz_cstring(data, size);
	int own_table = names_any(data, size, runners_table);
	struct hl_db *w = db_write_lock(db);
	copy(hl_sqlite(w), pristine);
	run(w, steps, split(text, size, steps, names), own_table);
	db_write_unlock(db, w);
	free(text);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * perf-seed: the reference data set (50 sub-accounts, 100k contacts, 20k
 * deals, 200k messages, 50k tasks, 5k invoices), fictional, the same for
 * the same seed, in a few seconds.
 *
 *   perf-seed --data-dir DIR [--scale F] [--locations N] [--seed N] [--demo]
 *
 * --demo makes the data of `make run` instead: the same tables and counts,
 * but an agency that is doing well, dated from today (demo.c). Without it
 * the benchmark's data set is the same as ever for the same flags.
 *
 * The database is made by the server itself (`hyperlevel migrate`, found
 * beside this program, with every module beside it), so its tables and
 * indexes are exactly the ones the server runs with. The rows then go in
 * through one connection in one transaction, without a journal: a seed
 * that fails leaves a database to throw away, never one that looks whole.
 */
#include "seed.h"

#include "auth/password.h"
#include "db/zone_sql.h"
#include "lib/conf.h"

#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE *out)
{
	fprintf(out, "usage: perf-seed --data-dir DIR [--scale F] [--locations N] [--seed N] [--demo]\n\n"
		     "  --data-dir DIR    where to create the database (it must not hold one)\n"
		     "  --scale F         share of the reference data set, 0 < F <= 10 (default 1)\n"
		     "  --locations N     sub-accounts to spread it over, 1-10000 (default 50)\n"
		     "  --seed N          the same seed gives the same data (default 1)\n"
		     "  --demo            demo data, not the benchmark's: most tasks on time, health\n"
		     "                    scores spread, invoices of every state, dated from today\n\n"
		     "With PGHL_PASSWORD_LEAST_WORK=yes, as the server's setting of that name, the\n"
		     "password is hashed with argon2id's least work: for test suites only.\n");
}

static int fail_usage(const char *what, const char *value)
{
	fprintf(stderr, "perf-seed: %s '%s' (see --help)\n", what, value ? value : "");
	return 2;
}

static int parse(int argc, char **argv, struct seed *s, const char **dir)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end = NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			exit(0);
		}
		if (!strcmp(a, "--demo")) {
			s->demo = 1;
			continue;
		}
		if (strcmp(a, "--data-dir") && strcmp(a, "--scale") && strcmp(a, "--locations") &&
		    strcmp(a, "--seed"))
			return fail_usage("unknown option", a);
		if (!v)
			return fail_usage("a value is needed after", a);
		i++;
		errno = 0;
		if (!strcmp(a, "--data-dir")) {
			*dir = v;
		} else if (!strcmp(a, "--scale")) {
			s->scale = strtod(v, &end);
			if (errno || *end || !(s->scale > 0 && s->scale <= 10))
				return fail_usage("--scale takes a number above 0 and at most 10, not", v);
		} else if (!strcmp(a, "--locations")) {
			long n = strtol(v, &end, 10);
			if (errno || *end || n < 1 || n > 10000)
				return fail_usage("--locations takes a whole number from 1 to 10000, not", v);
			s->locations = (int)n;
		} else {
			unsigned long long n = strtoull(v, &end, 10);
			if (errno || *end || *v == '-' || !*v)
				return fail_usage("--seed takes a whole number, not", v);
			s->seed = n;
		}
	}
	if (!*dir)
		return fail_usage("--data-dir is needed", "");
	return 0;
}

/* `hyperlevel migrate` from beside this program, with its modules. */
static int migrate(const char *dir)
{
	char self[PATH_MAX], bin[PATH_MAX + 16], modules[PATH_MAX + 16], plugins[] = "/tmp/perf-seed-XXXXXX";
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return -1;
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	snprintf(bin, sizeof(bin), "%s/hyperlevel", self);
	snprintf(modules, sizeof(modules), "%s/modules", self);
	if (!mkdtemp(plugins)) /* no NAME.conf: every module is enabled */
		return -1;
	/* Its start-up lines are kept aside and shown only if it fails. */
	FILE *log = tmpfile();
	pid_t pid = log ? fork() : -1;
	if (pid == 0) {
		dup2(fileno(log), STDERR_FILENO);
		execl(bin, bin, "migrate", "--data-dir", dir, "--config", "/dev/null", "--modules-dir",
		      modules, "--plugins-dir", plugins, (char *)NULL);
		fprintf(stderr, "perf-seed: cannot run %s: %s\n", bin, strerror(errno));
		_exit(127);
	}
	int status = 0, ok;
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		status = -1;
	rmdir(plugins);
	ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
	if (!ok && log) {
		char line[1024];
		rewind(log);
		while (fgets(line, sizeof(line), log))
			fputs(line, stderr);
	}
	if (log)
		fclose(log);
	return ok ? 0 : -1;
}

/* The password's hash in libsodium's own format, with a salt from the seed,
 * so the same seed gives the same file. It takes a fifth of a second, so
 * it is made on a thread of its own while the rows go in: the users are
 * written without it and given it at the end (set_password). */
_Static_assert(sizeof(((struct seed *)0)->salt) == crypto_pwhash_SALTBYTES, "the salt's size");

static void draw_salt(struct seed *s)
{
	for (size_t i = 0; i < sizeof(s->salt); i++)
		s->salt[i] = (unsigned char)(rng_next(&s->rng) >> 56);
}

static void *hash_password(void *arg)
{
	struct seed *s = arg;
	unsigned char key[32];
	char salt64[64], key64[64];
	const char *least = getenv("PGHL_PASSWORD_LEAST_WORK");
	unsigned long long ops;
	size_t mem;
	password_work(least && conf_bool(least) == 1, &ops, &mem);
	s->hash_failed = 1;
	if (crypto_pwhash(key, sizeof(key), SEED_PASSWORD, strlen(SEED_PASSWORD), s->salt, ops, mem,
			  crypto_pwhash_ALG_ARGON2ID13))
		return NULL;
	sodium_bin2base64(salt64, sizeof(salt64), s->salt, sizeof(s->salt),
			  sodium_base64_VARIANT_ORIGINAL_NO_PADDING);
	sodium_bin2base64(key64, sizeof(key64), key, sizeof(key),
			  sodium_base64_VARIANT_ORIGINAL_NO_PADDING);
	snprintf(s->password_hash, sizeof(s->password_hash), "$argon2id$v=19$m=%zu,t=%llu,p=1$%s$%s",
		 mem / 1024, ops, salt64, key64);
	/* The server must accept it: check with libsodium's own verifier. */
	s->hash_failed = crypto_pwhash_str_verify(s->password_hash, SEED_PASSWORD,
						  strlen(SEED_PASSWORD)) != 0;
	return NULL;
}

static void hash_wait(struct seed *s)
{
	if (s->hashing)
		pthread_join(s->hasher, NULL);
	s->hashing = 0;
}

/* Every seeded user signs in with the one password. */
static int set_password(struct seed *s)
{
	hash_wait(s);
	if (s->hash_failed) {
		fprintf(stderr, "perf-seed: hashing the password failed (out of memory?)\n");
		return -1;
	}
	char *sql = sqlite3_mprintf("UPDATE users SET password_hash = %Q", s->password_hash);
	int rc = sql ? run_sql(s->db, sql) : -1;
	sqlite3_free(sql);
	return rc;
}

static void summary(struct seed *s, const char *path, double secs)
{
	struct stat st;
	long long size = stat(path, &st) ? 0 : (long long)st.st_size;
	int64_t total = 0;
	printf("%-16s %10s\n", "table", "rows");
	for (int i = 0; i < T_COUNT; i++) {
		printf("%-16s %10lld\n", s->table[i].name, (long long)s->table[i].rows);
		total += s->table[i].rows;
	}
	printf("%-16s %10lld\n", "all", (long long)total);
	printf("%s: %.1f MB, %lld rows in %.2f s (%.0f rows/s)\n", path, (double)size / 1048576.0,
	       (long long)total, secs, secs > 0 ? (double)total / secs : 0.0);
}

/* The indexes and triggers are set aside while the rows go in: building
 * an index once over sorted keys beats updating it a row at a time, and
 * the counts the modules' triggers keep are made in one pass each
 * (fill.c, derive_counts). Their SQL comes back afterwards. */
struct deferred {
	struct later {
		char type[8]; /* "index" or "trigger" */
		char *sql;
	} *item;
	int n;
};

static int defer(sqlite3 *db, struct deferred *d)
{
	sqlite3_stmt *st = NULL;
	char drops[16384] = "";
	size_t used = 0;
	int rc = sqlite3_prepare_v2(db, "SELECT type, name, sql FROM sqlite_schema WHERE sql IS NOT NULL"
				    " AND type IN ('index', 'trigger')", -1, &st, NULL);
	while (!rc && sqlite3_step(st) == SQLITE_ROW && used < sizeof(drops) - 300) {
		struct later *grown = realloc(d->item, sizeof(*grown) * (size_t)(d->n + 1));
		if (!grown)
			break;
		d->item = grown;
		snprintf(grown[d->n].type, sizeof(grown[d->n].type), "%s", sqlite3_column_text(st, 0));
		grown[d->n++].sql = strdup((const char *)sqlite3_column_text(st, 2));
		used += (size_t)snprintf(drops + used, sizeof(drops) - used, "DROP %s \"%s\";",
					 (const char *)sqlite3_column_text(st, 0),
					 (const char *)sqlite3_column_text(st, 1));
	}
	sqlite3_finalize(st);
	/* Dropped once the schema is no longer being read. */
	return rc ? -1 : run_sql(db, drops);
}

/* Bring back what defer set aside of one type. */
static int restore(sqlite3 *db, struct deferred *d, const char *type)
{
	int rc = 0;
	for (int i = 0; i < d->n && !rc; i++)
		if (!strcmp(d->item[i].type, type))
			rc = run_sql(db, d->item[i].sql);
	return rc;
}

static void deferred_free(struct deferred *d)
{
	for (int i = 0; i < d->n; i++)
		free(d->item[i].sql);
	free(d->item);
}

static int seed_database(struct seed *s, const char *path)
{
	struct deferred later = { NULL, 0 };
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		fprintf(stderr, "perf-seed: %s: %s\n", path, sqlite3_errmsg(s->db));
		return -1;
	}
	if (zone_sql_register(s->db) != SQLITE_OK) {
		fprintf(stderr, "perf-seed: %s: %s\n", path, sqlite3_errmsg(s->db));
		return -1;
	}
	/* No journal and no fsync while filling; the server's WAL mode comes
	 * back at the end. Foreign keys are checked by the tests afterwards.
	 * A small page cache over a memory map as large as SQLite allows:
	 * without a journal, pages written out early cost nothing, and the
	 * index builds read the rows back from the map instead of copying
	 * them. A 1 GB cache that held the whole file took 4.1 s and 208 MB
	 * at peak, a 64 MB one 3.8 s and 107 MB; the map then took a later
	 * version from 3.45 s to about 3.25 s (perf-seed under time, a few
	 * runs each). */
	if (run_sql(s->db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
			"PRAGMA locking_mode = EXCLUSIVE; PRAGMA cache_size = -4096;"
			"PRAGMA mmap_size = 2147418112; PRAGMA temp_store = MEMORY;"
			"PRAGMA foreign_keys = OFF;") ||
	    run_sql(s->db, "BEGIN") || defer(s->db, &later) || tables_prepare(s) ||
	    search_start(&s->search, s->db, path, llround(s->scale * FULL_CONTACTS))) {
		deferred_free(&later);
		return -1;
	}
	fill(s);
	tables_finalize(s);
	int rc = derive_counts(s) || (s->demo && demo_timeline(s)) ||
		 restore(s->db, &later, "index") || restore(s->db, &later, "trigger") ||
		 set_password(s) || search_finish(&s->search, s->db) || run_sql(s->db, "COMMIT");
	deferred_free(&later);
	search_close(&s->search, s->db);
	progress(s, 1);
	if (rc ||
	    run_sql(s->db, "PRAGMA analysis_limit = 400; PRAGMA optimize;"
			"PRAGMA locking_mode = NORMAL; PRAGMA journal_mode = WAL;"))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct seed s = { .scale = 1, .locations = 50, .seed = 1 };
	const char *dir = NULL;
	char path[PATH_MAX];
	int rc = parse(argc, argv, &s, &dir);
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "%s/hyperlevel.db", dir);
	if (!access(path, F_OK)) {
		fprintf(stderr, "perf-seed: %s already exists; remove it or choose another folder\n", path);
		return 2;
	}
	/* Each connection is used by one thread: no mutexes, and no global
	 * memory statistics, whose lock every allocation of both threads
	 * took (it cost a second of the fill). */
	sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	/* Each index build takes a sorter's memory and gives it back: glibc
	 * would return it to the kernel each time and fault it in again for
	 * the next, so freed memory stays with the process until it ends
	 * (3.13 s to 2.96 s, medians of 6 runs each in turn). */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	if (sodium_init() < 0)
		return 1;
	s.rng.state = s.seed;
	s.now = s.demo ? (int64_t)time(NULL) : SEED_NOW;
	s.tty = isatty(STDERR_FILENO);
	s.started_us = now_us();
	if (migrate(dir)) {
		fprintf(stderr, "perf-seed: the server could not create the database in %s\n", dir);
		return 1;
	}
	draw_salt(&s);
	if (pthread_create(&s.hasher, NULL, hash_password, &s)) {
		fprintf(stderr, "perf-seed: cannot start a thread\n");
		return 1;
	}
	s.hashing = 1;
	rc = seed_database(&s, path);
	hash_wait(&s); /* when seeding stopped before it was needed */
	sqlite3_close(s.db);
	if (rc)
		return 1;
	summary(&s, path, (double)(now_us() - s.started_us) / 1e6);
	printf("sign in as %s or location-ID@example.test, password %s\n", SEED_ADMIN, SEED_PASSWORD);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * seed.h: perf-seed's parts. main.c reads the command line, has the server
 * create the database with its own migrations and prints the summary;
 * fill.c writes the rows, location by location; rows.c holds the shared
 * means: the random numbers, times, statements and the progress line.
 */
#ifndef SEED_H
#define SEED_H

#include "lib/log.h" /* now_us */

#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>

/* The reference data set at scale 1. */
#define FULL_CONTACTS 100000
#define FULL_DEALS 20000
#define FULL_MESSAGES 200000
#define FULL_TASKS 50000
#define FULL_INVOICES 5000
/* Sub-account 1 is the largest: about 7,900 contacts and a 1,500-deal board. */
#define FIRST_CONTACT_SHARE 0.079
#define FIRST_DEAL_SHARE 0.075

#define SEED_PASSWORD "perf-pass-123"
#define SEED_ADMIN "perf@example.test"
/* The benchmark's times are set from this one, so the same seed gives the
 * same file; the demo's (--demo) from the time it is made. */
#define SEED_NOW 1796083200LL /* 2026-12-01T00:00:00Z */

struct rng {
	uint64_t state;
};

uint64_t rng_next(struct rng *r);
/* 0 <= n < bound */
int64_t rng_below(struct rng *r, int64_t bound);
/* A number in [0, n) where small ones are more likely (Zipf-like). */
int rng_skewed(struct rng *r, int n);
/* True `percent` times in a hundred. */
int rng_percent(struct rng *r, int percent);

/* ISO 8601 UTC with milliseconds, "2026-11-29T10:04:05.000Z". */
void iso_time(int64_t unix_seconds, char out[32]);

/* Rows of one table: a statement and a count. */
struct table {
	const char *name;
	sqlite3_stmt *st;
	int64_t rows;
};

enum table_id {
	T_AGENCIES, T_LOCATIONS, T_USERS, T_USER_LOCATIONS, T_COMPANIES, T_CONTACTS, T_TAGS,
	T_CONTACT_TAGS, T_CUSTOM_FIELDS, T_CUSTOM_VALUES, T_NOTES, T_PIPELINES, T_STAGES,
	T_OPPORTUNITIES, T_CONVERSATIONS, T_MESSAGES, T_TASKS, T_INVOICES, T_INVOICE_ITEMS,
	T_PAYMENTS, T_DASHBOARDS, T_WIDGETS, T_CONTACT_ACTIVITY, T_COUNT
};

/* The contacts' search index, built on a thread of its own (search.c). */
#define SEARCH_SLOT 192

struct search {
	char path[4200];       /* its own database, removed afterwards */
	char *ddl;             /* CREATE VIRTUAL TABLE contact_search ... */
	char *texts;           /* contact i's text at i * SEARCH_SLOT */
	int64_t first_id, total;
	_Atomic int64_t ready; /* texts written so far */
	pthread_t thread;
	int failed;
};

int search_start(struct search *x, sqlite3 *db, const char *path, int64_t contacts);
/* Hand over a contact's text (ids in order, from first_id); "" for a
 * deleted contact, which has no search row. */
void search_add(struct search *x, int64_t id, const char *text);
/* Wait for the thread and copy its tables in, inside the transaction; 0
 * or -1 after a line. search_close detaches and removes its database once
 * the transaction is over. */
int search_finish(struct search *x, sqlite3 *db);
void search_close(struct search *x, sqlite3 *db);

struct seed {
	int demo;    /* --demo: a healthy agency, dated from today (demo.c) */
	int64_t now; /* every time is set from this one: SEED_NOW, or today */
	double scale;
	int locations;
	uint64_t seed;
	sqlite3 *db;
	struct rng rng;
	struct table table[T_COUNT];
	int64_t expected_rows; /* for the progress bar */
	int64_t done_rows;
	int tty;
	long long started_us, shown_us;
	unsigned char salt[16]; /* crypto_pwhash_SALTBYTES */
	pthread_t hasher;       /* makes password_hash (main.c) */
	int hashing;            /* hasher not joined yet */
	char password_hash[192];
	int hash_failed;
	struct search search;
};

/* Prepare every table's INSERT; 0, or -1 after one line on stderr. */
int tables_prepare(struct seed *s);
void tables_finalize(struct seed *s);
/* Bind nothing more and run the table's statement once; exits with one
 * line on stderr when SQLite refuses (the data would be incomplete). */
void insert(struct seed *s, enum table_id t);
void progress(struct seed *s, int final);
/* sqlite3_exec, with one line on stderr when it fails; 0 or -1. */
int run_sql(sqlite3 *db, const char *sql);

#define DAY 86400LL

/* What one location has, for the rows that refer to it. */
struct place {
	int64_t id;
	int64_t user;             /* the location's own user */
	int64_t contacts, first_contact;
	int64_t companies, first_company;
	int64_t first_tag, first_field;
	int64_t pipeline, first_stage;
	int64_t deals, messages, tasks, invoices;
	struct activity *activity; /* per contact, while the location is written */
};

/* The contacts module's activity counts: what the other modules' events
 * leave on each contact, counted here as the rows are written. In the
 * order of their names, the order of the table's key. */
enum activity_kind { A_INVOICE, A_RECEIVED, A_SENT, A_DEAL, A_TASK, A_KINDS };

struct activity {
	int64_t count[A_KINDS], last[A_KINDS];
};

static inline void note_activity(const struct place *p, int64_t contact,
				 enum activity_kind kind, int64_t when)
{
	if (!contact)
		return;
	struct activity *a = &p->activity[contact - p->first_contact];
	a->count[kind]++;
	if (when > a->last[kind])
		a->last[kind] = when;
}

static inline void bind_int(sqlite3_stmt *st, int i, int64_t v)
{
	sqlite3_bind_int64(st, i, v);
}

static inline void bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

static inline void bind_ref(sqlite3_stmt *st, int i, int64_t id)
{
	if (id)
		sqlite3_bind_int64(st, i, id);
	else
		sqlite3_bind_null(st, i);
}

static inline int64_t next_id(struct seed *s, enum table_id t)
{
	return s->table[t].rows + 1;
}

/* fill.c's parts that demo.c shares. */
int64_t someone(struct seed *s, const struct place *p, int nobody_percent);
int64_t some_contact(struct seed *s, const struct place *p);
void add_pipeline(struct seed *s, struct place *p);
int64_t add_lines(struct seed *s, const struct place *p, int64_t invoice);
void add_payment(struct seed *s, const struct place *p, int64_t invoice, int64_t cents,
		 const char *when);

/* demo.c: the demo's deals, conversations, tasks and invoices, in place
 * of the benchmark's, and what each contact's timeline says of them. */
void demo_deals(struct seed *s, struct place *p);
void demo_conversations(struct seed *s, struct place *p);
void demo_tasks(struct seed *s, struct place *p);
void demo_invoices(struct seed *s, struct place *p);
int demo_timeline(struct seed *s);

/* Write the whole data set. */
void fill(struct seed *s);
int derive_counts(struct seed *s);

#endif

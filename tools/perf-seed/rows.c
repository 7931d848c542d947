/* SPDX-License-Identifier: MIT */
/*
 * rows.c: what every table's filling shares: deterministic random numbers
 * (splitmix64, so a seed gives the same data on every machine), times as
 * text without the C library's slow formatting, one prepared INSERT per
 * table, and the progress line.
 */
#include "seed.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

int64_t rng_below(struct rng *r, int64_t bound)
{
	return bound > 0 ? (int64_t)(rng_next(r) % (uint64_t)bound) : 0;
}

int rng_skewed(struct rng *r, int n)
{
	/* The square of a uniform number: index 0 is about sqrt(n) times as
	 * likely as the middle. */
	double u = (double)(rng_next(r) >> 11) / 9007199254740992.0;
	int i = (int)(u * u * n);
	return i < n ? i : n - 1;
}

int rng_percent(struct rng *r, int percent)
{
	return rng_below(r, 100) < percent;
}

/* Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm). */
static void civil(int64_t days, int *y, int *m, int *d)
{
	days += 719468;
	int64_t era = (days >= 0 ? days : days - 146096) / 146097;
	int64_t doe = days - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = (int)(yoe + era * 400 + (*m <= 2));
}

static char *digits(char *p, int v, int n)
{
	for (int i = n - 1; i >= 0; i--, v /= 10)
		p[i] = (char)('0' + v % 10);
	return p + n;
}

void iso_time(int64_t t, char out[32])
{
	int y, m, d;
	int64_t secs = t % 86400;
	civil(t / 86400, &y, &m, &d);
	char *p = digits(out, y, 4);
	*p++ = '-';
	p = digits(p, m, 2);
	*p++ = '-';
	p = digits(p, d, 2);
	*p++ = 'T';
	p = digits(p, (int)(secs / 3600), 2);
	*p++ = ':';
	p = digits(p, (int)(secs / 60 % 60), 2);
	*p++ = ':';
	p = digits(p, (int)(secs % 60), 2);
	memcpy(p, ".000Z", 6);
}

static const struct {
	const char *name, *sql;
} inserts[T_COUNT] = {
	[T_AGENCIES] = { "agencies", "INSERT INTO agencies (id, name, created_at) VALUES (?, ?, ?)" },
	[T_LOCATIONS] = { "locations", "INSERT INTO locations (id, agency_id, name, timezone,"
		" created_at, updated_at) VALUES (?, 1, ?, ?, ?, ?)" },
	[T_USERS] = { "users", "INSERT INTO users (id, agency_id, email, name, role, password_hash,"
		" created_at, updated_at) VALUES (?, 1, ?, ?, ?, ?, ?, ?)" },
	[T_USER_LOCATIONS] = { "user_locations",
		"INSERT INTO user_locations (user_id, location_id) VALUES (?, ?)" },
	[T_COMPANIES] = { "companies", "INSERT INTO companies (id, location_id, name, domain,"
		" created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)" },
	[T_CONTACTS] = { "contacts", "INSERT INTO contacts (id, location_id, first_name, last_name,"
		" email, phone, company_id, company_name, source, owner_id, created_at, updated_at,"
		" deleted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)" },
	[T_TAGS] = { "tags", "INSERT INTO tags (id, location_id, name, color, created_at)"
		" VALUES (?, ?, ?, ?, ?)" },
	[T_CONTACT_TAGS] = { "contact_tags", "INSERT INTO contact_tags (tag_id, contact_id,"
		" location_id, contact_deleted) VALUES (?, ?, ?, ?)" },
	[T_CUSTOM_FIELDS] = { "custom_fields", "INSERT INTO custom_fields (id, location_id, key,"
		" name, type, options, position, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)" },
	[T_CUSTOM_VALUES] = { "custom_values", "INSERT INTO custom_values (contact_id, field_id,"
		" location_id, value) VALUES (?, ?, ?, ?)" },
	[T_NOTES] = { "notes", "INSERT INTO notes (id, location_id, contact_id, author_id, body,"
		" created_at) VALUES (?, ?, ?, ?, ?, ?)" },
	[T_PIPELINES] = { "pipelines", "INSERT INTO pipelines (id, location_id, name, position,"
		" created_at) VALUES (?, ?, ?, ?, ?)" },
	[T_STAGES] = { "stages", "INSERT INTO stages (id, location_id, pipeline_id, name, position,"
		" probability) VALUES (?, ?, ?, ?, ?, ?)" },
	[T_OPPORTUNITIES] = { "opportunities", "INSERT INTO opportunities (id, location_id,"
		" pipeline_id, stage_id, contact_id, name, value_cents, currency, status, owner_id,"
		" created_at, updated_at, closed_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'USD', ?, ?, ?, ?, ?)" },
	[T_CONVERSATIONS] = { "conversations", "INSERT INTO conversations (id, location_id,"
		" contact_id, channel, assigned_to, last_message_at, last_message_preview,"
		" unread_count, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)" },
	[T_MESSAGES] = { "messages", "INSERT INTO messages (id, location_id, conversation_id,"
		" direction, channel, body, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)" },
	[T_TASKS] = { "tasks", "INSERT INTO tasks (id, location_id, contact_id, assignee_id, title,"
		" body, due_at, completed_at, created_at, updated_at)"
		" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)" },
	[T_INVOICES] = { "invoices", "INSERT INTO invoices (id, location_id, number, contact_id,"
		" status, currency, subtotal_cents, tax_cents, total_cents, paid_cents, issued_at,"
		" due_at, paid_at, created_at, updated_at)"
		" VALUES (?, ?, ?, ?, ?, 'USD', ?, ?, ?, ?, ?, ?, ?, ?, ?)" },
	[T_INVOICE_ITEMS] = { "invoice_items", "INSERT INTO invoice_items (id, location_id,"
		" invoice_id, position, description, quantity, unit_price_cents, amount_cents)"
		" VALUES (?, ?, ?, ?, ?, ?, ?, ?)" },
	[T_PAYMENTS] = { "payments", "INSERT INTO payments (id, location_id, invoice_id,"
		" amount_cents, method, paid_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)" },
	[T_DASHBOARDS] = { "dashboards", "INSERT INTO dashboards (id, location_id, name, created_by,"
		" created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)" },
	[T_WIDGETS] = { "widgets", "INSERT INTO widgets (id, location_id, dashboard_id, kind, title,"
		" config, position) VALUES (?, ?, ?, ?, ?, ?, ?)" },
	[T_CONTACT_ACTIVITY] = { "contact_activity", "INSERT INTO contact_activity (contact_id, kind,"
		" location_id, count, last_at) VALUES (?, ?, ?, ?, ?)" },
};

int tables_prepare(struct seed *s)
{
	for (int i = 0; i < T_COUNT; i++) {
		s->table[i].name = inserts[i].name;
		if (sqlite3_prepare_v3(s->db, inserts[i].sql, -1, SQLITE_PREPARE_PERSISTENT,
				       &s->table[i].st, NULL) != SQLITE_OK) {
			fprintf(stderr, "perf-seed: %s: %s (are all modules enabled?)\n",
				inserts[i].name, sqlite3_errmsg(s->db));
			return -1;
		}
	}
	return 0;
}

void tables_finalize(struct seed *s)
{
	for (int i = 0; i < T_COUNT; i++)
		sqlite3_finalize(s->table[i].st);
}

void insert(struct seed *s, enum table_id t)
{
	struct table *tb = &s->table[t];
	if (sqlite3_step(tb->st) != SQLITE_DONE) {
		fprintf(stderr, "perf-seed: writing %s: %s\n", tb->name, sqlite3_errmsg(s->db));
		exit(1);
	}
	sqlite3_reset(tb->st);
	tb->rows++;
	if ((++s->done_rows & 0x3fff) == 0 && s->tty)
		progress(s, 0);
}

void progress(struct seed *s, int final)
{
	long long now = now_us();
	if (!s->tty || (!final && now - s->shown_us < 100000))
		return;
	s->shown_us = now;
	double secs = (double)(now - s->started_us) / 1e6;
	double part = s->expected_rows ? (double)s->done_rows / (double)s->expected_rows : 1;
	if (part > 1 || final)
		part = 1;
	char bar[31];
	int full = (int)(part * 30);
	for (int i = 0; i < 30; i++)
		bar[i] = i < full ? '#' : '.';
	bar[30] = '\0';
	fprintf(stderr, "\r[%s] %3d%%  %lld rows  %.0f rows/s ", bar, (int)lround(part * 100),
		(long long)s->done_rows, secs > 0 ? (double)s->done_rows / secs : 0);
	if (final)
		fputc('\n', stderr);
}

int run_sql(sqlite3 *db, const char *sql)
{
	char *err = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &err) == SQLITE_OK)
		return 0;
	fprintf(stderr, "perf-seed: %s\n", err ? err : sqlite3_errmsg(db));
	sqlite3_free(err);
	return -1;
}

/* SPDX-License-Identifier: MIT */
/*
 * fill.c: the data set, one sub-account at a time, so that each table's
 * ids for a location form one range and every reference stays inside its
 * own location (a deal's contact, a message's conversation ...).
 *
 * Counts per location come from fixed weights: location 1 takes about
 * 7.9 % of the contacts and 7.5 % of the deals, the others shrink gently
 * with their number; totals are apportioned so that they add up exactly.
 *
 * With --demo, demo.c writes the deals, conversations, tasks and invoices
 * in place of this file's, and every time is set from today (s->now)
 * instead of SEED_NOW; nothing else changes.
 */
#include "seed.h"
#include "words.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Split `total` over n locations in proportion to weight[0..n), exactly
 * (largest remainders, ties to the lower index). */
static void apportion(const double *weight, size_t n, int64_t total, int64_t *out)
{
	double sum = 0;
	int64_t given = 0;
	double *rest = calloc(n, sizeof(*rest));
	if (!rest) {
		fprintf(stderr, "perf-seed: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < n; i++)
		sum += weight[i];
	for (size_t i = 0; i < n; i++) {
		double exact = sum > 0 ? (double)total * weight[i] / sum : 0;
		out[i] = (int64_t)floor(exact);
		rest[i] = exact - (double)out[i];
		given += out[i];
	}
	while (given < total) {
		size_t best = 0;
		for (size_t i = 1; i < n; i++)
			if (rest[i] > rest[best])
				best = i;
		out[best]++;
		rest[best] = -1;
		given++;
	}
	free(rest);
}

/* Location 1 takes `first`; the others share the rest, gently skewed. */
static void weights(size_t n, double first, double *w)
{
	double others = 0;
	for (size_t i = 1; i < n; i++)
		others += w[i] = 1.0 / (1.0 + 0.06 * (double)(i - 1));
	w[0] = n == 1 ? 1 : first;
	for (size_t i = 1; i < n; i++)
		w[i] *= (1 - first) / others;
}

static int64_t scaled(double scale, int64_t full)
{
	return llround(scale * (double)full);
}

static void lower_copy(char *dst, size_t cap, const char *src)
{
	size_t i = 0;
	for (; src[i] && i + 1 < cap; i++)
		dst[i] = (char)tolower((unsigned char)src[i]);
	dst[i] = '\0';
}

static const char *const activity_names[A_KINDS] = {
	"invoice.created", "message.received", "message.sent", "opportunity.created", "task.created",
};

/* ---- the agency and its people ------------------------------------------ */

static void add_agency(struct seed *s)
{
	char t[32];
	sqlite3_stmt *st = s->table[T_AGENCIES].st;
	iso_time(s->now - 800 * DAY, t);
	bind_int(st, 1, 1);
	bind_text(st, 2, "Northwind Growth Agency");
	bind_text(st, 3, t);
	insert(s, T_AGENCIES);
}

static void add_user(struct seed *s, int64_t id, const char *email, const char *name,
		     const char *role)
{
	char t[32];
	sqlite3_stmt *st = s->table[T_USERS].st;
	iso_time(s->now - 700 * DAY + id * 3600, t);
	bind_int(st, 1, id);
	bind_text(st, 2, email);
	bind_text(st, 3, name);
	bind_text(st, 4, role);
	bind_text(st, 5, NULL); /* set at the end, main.c */
	bind_text(st, 6, t);
	bind_text(st, 7, t);
	insert(s, T_USERS);
}

static void add_location(struct seed *s, struct place *p)
{
	static const char *const zones[] = { "America/New_York", "America/Chicago",
					     "America/Denver", "America/Los_Angeles", "Europe/London" };
	char name[96], t[32], email[64], person[64];
	sqlite3_stmt *st = s->table[T_LOCATIONS].st;
	snprintf(name, sizeof(name), "%s %s %s", company_words[(p->id * 7) % COUNT(company_words)],
		 company_kinds[p->id % COUNT(company_kinds)], cities[(p->id * 3) % COUNT(cities)]);
	iso_time(s->now - 700 * DAY + p->id * DAY, t);
	bind_int(st, 1, p->id);
	bind_text(st, 2, name);
	bind_text(st, 3, zones[p->id % COUNT(zones)]);
	bind_text(st, 4, t);
	bind_text(st, 5, t);
	insert(s, T_LOCATIONS);
	/* A user who opens this location only, for isolation tests. */
	snprintf(email, sizeof(email), "location-%lld@example.test", (long long)p->id);
	snprintf(person, sizeof(person), "%s %s", first_names[p->id % COUNT(first_names)],
		 last_names[(p->id * 5) % COUNT(last_names)]);
	p->user = next_id(s, T_USERS);
	add_user(s, p->user, email, person, "location_user");
	st = s->table[T_USER_LOCATIONS].st;
	bind_int(st, 1, p->user);
	bind_int(st, 2, p->id);
	insert(s, T_USER_LOCATIONS);
}

/* The location's user, the agency admin, or nobody. */
int64_t someone(struct seed *s, const struct place *p, int nobody_percent)
{
	if (rng_percent(&s->rng, nobody_percent))
		return 0;
	return rng_percent(&s->rng, 70) ? p->user : 1;
}

/* ---- contacts and what hangs on them ------------------------------------- */

static void company_name(int64_t n, char *out, size_t cap)
{
	snprintf(out, cap, "%s %s", company_words[n % COUNT(company_words)],
		 company_kinds[(n / COUNT(company_words)) % COUNT(company_kinds)]);
}

static void company_domain(int64_t n, char *out, size_t cap)
{
	char a[32], b[32];
	lower_copy(a, sizeof(a), company_words[n % COUNT(company_words)]);
	lower_copy(b, sizeof(b), company_kinds[(n / COUNT(company_words)) % COUNT(company_kinds)]);
	snprintf(out, cap, "%s-%s.test", a, b);
}

static void add_companies(struct seed *s, struct place *p)
{
	char name[96], domain[96], t[32];
	sqlite3_stmt *st = s->table[T_COMPANIES].st;
	p->first_company = next_id(s, T_COMPANIES);
	for (int64_t i = 0; i < p->companies; i++) {
		int64_t n = p->id * 131 + i;
		company_name(n, name, sizeof(name));
		company_domain(n, domain, sizeof(domain));
		iso_time(s->now - 600 * DAY + rng_below(&s->rng, 500 * DAY), t);
		bind_int(st, 1, p->first_company + i);
		bind_int(st, 2, p->id);
		bind_text(st, 3, name);
		bind_text(st, 4, domain);
		bind_text(st, 5, t);
		bind_text(st, 6, t);
		insert(s, T_COMPANIES);
	}
}

static void add_tags_and_fields(struct seed *s, struct place *p)
{
	static const char *const colors[] = { "#2563eb", "#16a34a", "#dc2626", "#ca8a04", "#9333ea" };
	static const struct {
		const char *key, *name, *type, *options;
	} fields[] = {
		{ "birthday", "Birthday", "date", NULL },
		{ "budget", "Monthly budget", "number", NULL },
		{ "industry", "Industry", "select", "[\"Health\",\"Retail\",\"Trades\",\"Food\",\"Services\"]" },
		{ "newsletter", "Newsletter", "checkbox", NULL },
		{ "referrer", "Referred by", "text", NULL },
	};
	char t[32];
	iso_time(s->now - 650 * DAY + p->id * 3600, t);
	sqlite3_stmt *st = s->table[T_TAGS].st;
	p->first_tag = next_id(s, T_TAGS);
	for (int i = 0; i < COUNT(tag_names); i++) {
		bind_int(st, 1, p->first_tag + i);
		bind_int(st, 2, p->id);
		bind_text(st, 3, tag_names[i]);
		bind_text(st, 4, colors[i % COUNT(colors)]);
		bind_text(st, 5, t);
		insert(s, T_TAGS);
	}
	st = s->table[T_CUSTOM_FIELDS].st;
	p->first_field = next_id(s, T_CUSTOM_FIELDS);
	for (int i = 0; i < COUNT(fields); i++) {
		bind_int(st, 1, p->first_field + i);
		bind_int(st, 2, p->id);
		bind_text(st, 3, fields[i].key);
		bind_text(st, 4, fields[i].name);
		bind_text(st, 5, fields[i].type);
		bind_text(st, 6, fields[i].options);
		bind_int(st, 7, i);
		bind_text(st, 8, t);
		insert(s, T_CUSTOM_FIELDS);
	}
}

/* Up to three tags, popular ones far more often (skewed). */
static void tag_contact(struct seed *s, const struct place *p, int64_t contact, int deleted)
{
	int n = (int)rng_below(&s->rng, 4), chosen[3];
	sqlite3_stmt *st = s->table[T_CONTACT_TAGS].st;
	for (int k = 0; k < n; k++) {
		int tag = rng_skewed(&s->rng, COUNT(tag_names)), seen = 0;
		for (int j = 0; j < k; j++)
			seen |= chosen[j] == tag;
		chosen[k] = seen ? -1 : tag;
		if (seen)
			continue;
		bind_int(st, 1, p->first_tag + tag);
		bind_int(st, 2, contact);
		bind_int(st, 3, p->id);
		bind_int(st, 4, deleted); /* the contacts module marks a deleted contact's tags */
		insert(s, T_CONTACT_TAGS);
	}
}

static void set_value(struct seed *s, const struct place *p, int64_t contact, int field,
		      const char *value)
{
	sqlite3_stmt *st = s->table[T_CUSTOM_VALUES].st;
	bind_int(st, 1, contact);
	bind_int(st, 2, p->first_field + field);
	bind_int(st, 3, p->id);
	bind_text(st, 4, value);
	insert(s, T_CUSTOM_VALUES);
}

static void fill_fields(struct seed *s, const struct place *p, int64_t contact)
{
	static const char *const industries[] = { "Health", "Retail", "Trades", "Food", "Services" };
	char v[48];
	if (rng_percent(&s->rng, 40)) {
		iso_time(s->now - (20 + rng_below(&s->rng, 50)) * 365 * DAY, v);
		v[10] = '\0';
		set_value(s, p, contact, 0, v);
	}
	if (rng_percent(&s->rng, 50)) {
		snprintf(v, sizeof(v), "%lld", (long long)(250 + rng_below(&s->rng, 40) * 250));
		set_value(s, p, contact, 1, v);
	}
	if (rng_percent(&s->rng, 60))
		set_value(s, p, contact, 2, industries[rng_skewed(&s->rng, COUNT(industries))]);
	if (rng_percent(&s->rng, 30))
		set_value(s, p, contact, 3, rng_percent(&s->rng, 70) ? "true" : "false");
	if (rng_percent(&s->rng, 10)) {
		snprintf(v, sizeof(v), "%s %s", first_names[rng_below(&s->rng, COUNT(first_names))],
			 last_names[rng_below(&s->rng, COUNT(last_names))]);
		set_value(s, p, contact, 4, v);
	}
}

static void add_note(struct seed *s, const struct place *p, int64_t contact, int64_t after)
{
	static const char *const bodies[] = {
		"Prefers e-mail over phone calls.", "Asked about the spring promotion.",
		"Met at the local business fair.", "Budget decision in the next quarter.",
		"Happy with the last campaign; open to an upsell.",
	};
	char t[32];
	sqlite3_stmt *st = s->table[T_NOTES].st;
	iso_time(after + rng_below(&s->rng, s->now - after), t);
	bind_int(st, 1, next_id(s, T_NOTES));
	bind_int(st, 2, p->id);
	bind_int(st, 3, contact);
	bind_ref(st, 4, someone(s, p, 0));
	bind_text(st, 5, bodies[rng_below(&s->rng, COUNT(bodies))]);
	bind_text(st, 6, t);
	insert(s, T_NOTES);
}

static void add_contact(struct seed *s, struct place *p, int64_t id)
{
	static const char *const mail_domains[] = { "mail.test", "inbox.test", "post.test" };
	char email[256], phone[32], company[96], domain[96], first[32], last[32];
	char created[32], updated[32], deleted[32];
	sqlite3_stmt *st = s->table[T_CONTACTS].st;
	const char *fn = first_names[rng_below(&s->rng, COUNT(first_names))];
	const char *ln = last_names[rng_below(&s->rng, COUNT(last_names))];
	int64_t company_id = p->companies && rng_percent(&s->rng, 60)
		? p->first_company + rng_below(&s->rng, p->companies) : 0;
	lower_copy(first, sizeof(first), fn);
	lower_copy(last, sizeof(last), ln);
	if (company_id) {
		company_name(p->id * 131 + (company_id - p->first_company), company, sizeof(company));
		company_domain(p->id * 131 + (company_id - p->first_company), domain, sizeof(domain));
	} else {
		snprintf(domain, sizeof(domain), "%s", mail_domains[id % COUNT(mail_domains)]);
	}
	snprintf(email, sizeof(email), "%s.%s%lld@%s", first, last, (long long)id, domain);
	snprintf(phone, sizeof(phone), "+1555%03lld%04lld", (long long)rng_below(&s->rng, 1000),
		 (long long)rng_below(&s->rng, 10000));
	int64_t born = s->now - rng_below(&s->rng, 730 * DAY);
	iso_time(born, created);
	iso_time(born + rng_below(&s->rng, s->now - born), updated);
	int deleted_too = rng_percent(&s->rng, 2);
	if (deleted_too)
		iso_time(s->now - rng_below(&s->rng, 60 * DAY), deleted);
	bind_int(st, 1, id);
	bind_int(st, 2, p->id);
	bind_text(st, 3, fn);
	bind_text(st, 4, ln);
	int email_kept = rng_percent(&s->rng, 95), phone_kept = rng_percent(&s->rng, 80);
	bind_text(st, 5, email_kept ? email : NULL);
	bind_text(st, 6, phone_kept ? phone : NULL);
	bind_ref(st, 7, company_id);
	bind_text(st, 8, company_id ? company : NULL);
	bind_text(st, 9, sources[rng_skewed(&s->rng, COUNT(sources))]);
	bind_ref(st, 10, someone(s, p, 30));
	bind_text(st, 11, created);
	bind_text(st, 12, updated);
	bind_text(st, 13, deleted_too ? deleted : NULL);
	insert(s, T_CONTACTS);
	/* What the contacts module indexes for search (its store.c), for
	 * live contacts only. */
	char text[SEARCH_SLOT * 3];
	snprintf(text, sizeof(text), "%s %s %s %s %s", fn, ln, email_kept ? email : "",
		 phone_kept ? phone : "", company_id ? company : "");
	search_add(&s->search, id, deleted_too ? "" : text);
	tag_contact(s, p, id, deleted_too);
	fill_fields(s, p, id);
	if (rng_percent(&s->rng, 25))
		add_note(s, p, id, born);
}

static void add_contacts(struct seed *s, struct place *p)
{
	add_companies(s, p);
	add_tags_and_fields(s, p);
	p->first_contact = next_id(s, T_CONTACTS);
	for (int64_t i = 0; i < p->contacts; i++)
		add_contact(s, p, p->first_contact + i);
}

/* A contact of the location, or none when it has none. */
int64_t some_contact(struct seed *s, const struct place *p)
{
	return p->contacts ? p->first_contact + rng_below(&s->rng, p->contacts) : 0;
}

/* ---- deals -------------------------------------------------------------------- */

void add_pipeline(struct seed *s, struct place *p)
{
	char t[32];
	sqlite3_stmt *st = s->table[T_PIPELINES].st;
	iso_time(s->now - 640 * DAY + p->id * 3600, t);
	p->pipeline = next_id(s, T_PIPELINES);
	bind_int(st, 1, p->pipeline);
	bind_int(st, 2, p->id);
	bind_text(st, 3, "Sales");
	bind_int(st, 4, 0);
	bind_text(st, 5, t);
	insert(s, T_PIPELINES);
	st = s->table[T_STAGES].st;
	p->first_stage = next_id(s, T_STAGES);
	for (int i = 0; i < COUNT(stage_names); i++) {
		bind_int(st, 1, p->first_stage + i);
		bind_int(st, 2, p->id);
		bind_int(st, 3, p->pipeline);
		bind_text(st, 4, stage_names[i]);
		bind_int(st, 5, i);
		bind_int(st, 6, stage_probability[i]);
		insert(s, T_STAGES);
	}
}

static const char *deal_status(struct seed *s)
{
	int64_t r = rng_below(&s->rng, 100);
	return r < 60 ? "open" : r < 80 ? "won" : r < 95 ? "lost" : "abandoned";
}

static void add_deals(struct seed *s, struct place *p)
{
	char name[128], created[32], updated[32], closed[32];
	sqlite3_stmt *st = s->table[T_OPPORTUNITIES].st;
	add_pipeline(s, p);
	for (int64_t i = 0; i < p->deals; i++) {
		const char *status = deal_status(s);
		int open = !strcmp(status, "open");
		int stage = open ? rng_skewed(&s->rng, COUNT(stage_names)) : COUNT(stage_names) - 1;
		int64_t contact = rng_percent(&s->rng, 95) ? some_contact(s, p) : 0;
		int64_t born = s->now - rng_below(&s->rng, 365 * DAY);
		note_activity(p, contact, A_DEAL, born);
		int64_t touched = born + rng_below(&s->rng, s->now - born);
		snprintf(name, sizeof(name), "%s #%lld", deal_kinds[rng_below(&s->rng, COUNT(deal_kinds))],
			 (long long)(i + 1));
		iso_time(born, created);
		iso_time(touched, updated);
		iso_time(touched, closed);
		bind_int(st, 1, next_id(s, T_OPPORTUNITIES));
		bind_int(st, 2, p->id);
		bind_int(st, 3, p->pipeline);
		bind_int(st, 4, p->first_stage + stage);
		bind_ref(st, 5, contact);
		bind_text(st, 6, name);
		/* $500 to $50,000, small deals far more common. */
		bind_int(st, 7, 50000 + (int64_t)rng_skewed(&s->rng, 1000) * 4950);
		bind_text(st, 8, status);
		bind_ref(st, 9, someone(s, p, 10));
		bind_text(st, 10, created);
		bind_text(st, 11, updated);
		bind_text(st, 12, open ? NULL : closed);
		insert(s, T_OPPORTUNITIES);
	}
}

/* ---- conversations ------------------------------------------------------------ */

static void add_messages(struct seed *s, const struct place *p, int64_t conversation,
			 const char *channel, int64_t n, int64_t *last, const char **preview,
			 int *last_inbound, int64_t contact)
{
	static const char *const outbound_status[] = { "sent", "delivered", "read", "read", "failed" };
	char t[32];
	sqlite3_stmt *st = s->table[T_MESSAGES].st;
	int64_t when = s->now - rng_below(&s->rng, 300 * DAY) - n * 3600;
	for (int64_t k = 0; k < n; k++) {
		int inbound = k % 2 == 0 || rng_percent(&s->rng, 20);
		const char *body = inbound ? inbound_texts[rng_below(&s->rng, COUNT(inbound_texts))]
					   : outbound_texts[rng_below(&s->rng, COUNT(outbound_texts))];
		when += 60 + rng_below(&s->rng, 6 * 3600);
		iso_time(when, t);
		bind_int(st, 1, next_id(s, T_MESSAGES));
		bind_int(st, 2, p->id);
		bind_int(st, 3, conversation);
		bind_text(st, 4, inbound ? "inbound" : "outbound");
		bind_text(st, 5, channel);
		bind_text(st, 6, body);
		bind_text(st, 7, inbound ? "received"
				 : outbound_status[rng_below(&s->rng, COUNT(outbound_status))]);
		bind_text(st, 8, t);
		insert(s, T_MESSAGES);
		*last = when;
		*preview = body;
		*last_inbound = inbound;
		note_activity(p, contact, inbound ? A_RECEIVED : A_SENT, when);
	}
}

/* The location's activity counts, once its rows are written. */
static void add_activity(struct seed *s, const struct place *p)
{
	char t[32];
	sqlite3_stmt *st = s->table[T_CONTACT_ACTIVITY].st;
	for (int64_t i = 0; i < p->contacts; i++)
		for (int k = 0; k < A_KINDS; k++) {
			if (!p->activity[i].count[k])
				continue;
			iso_time(p->activity[i].last[k], t);
			bind_int(st, 1, p->first_contact + i);
			bind_text(st, 2, activity_names[k]);
			bind_int(st, 3, p->id);
			bind_int(st, 4, p->activity[i].count[k]);
			bind_text(st, 5, t);
			insert(s, T_CONTACT_ACTIVITY);
		}
}

/* Conversations are written after their messages (they carry the last
 * message's time), so their ids are taken first. */
static void add_conversations(struct seed *s, struct place *p)
{
	int64_t count = p->contacts ? (p->contacts + 4) / 5 : 0;
	if (count > p->messages)
		count = p->messages;
	sqlite3_stmt *st = s->table[T_CONVERSATIONS].st;
	for (int64_t k = 0; k < count; k++) {
		int64_t id = next_id(s, T_CONVERSATIONS), last = s->now;
		int64_t n = p->messages / count + (k < p->messages % count);
		int64_t contact = p->first_contact + (k * 7) % p->contacts;
		const char *channel = channels[rng_skewed(&s->rng, COUNT(channels))], *preview = NULL;
		int last_inbound = 0;
		char last_at[32], created[32];
		add_messages(s, p, id, channel, n, &last, &preview, &last_inbound, contact);
		iso_time(last, last_at);
		iso_time(last - n * 4 * 3600, created);
		bind_int(st, 1, id);
		bind_int(st, 2, p->id);
		bind_int(st, 3, contact);
		bind_text(st, 4, channel);
		bind_ref(st, 5, someone(s, p, 40));
		bind_text(st, 6, n ? last_at : NULL);
		bind_text(st, 7, preview);
		bind_int(st, 8, last_inbound && rng_percent(&s->rng, 40) ? 1 + rng_below(&s->rng, 3) : 0);
		bind_text(st, 9, created);
		insert(s, T_CONVERSATIONS);
	}
}

/* ---- tasks ---------------------------------------------------------------------- */

static void add_tasks(struct seed *s, struct place *p)
{
	char due[32], done[32], created[32];
	sqlite3_stmt *st = s->table[T_TASKS].st;
	for (int64_t i = 0; i < p->tasks; i++) {
		int64_t due_at = s->now - 60 * DAY + rng_below(&s->rng, 120 * DAY);
		int64_t born = due_at - DAY - rng_below(&s->rng, 30 * DAY);
		int completed = rng_percent(&s->rng, 40);
		iso_time(due_at, due);
		iso_time(born, created);
		iso_time(born + rng_below(&s->rng, s->now - born), done);
		bind_int(st, 1, next_id(s, T_TASKS));
		bind_int(st, 2, p->id);
		int64_t contact = rng_percent(&s->rng, 80) ? some_contact(s, p) : 0;
		note_activity(p, contact, A_TASK, born);
		bind_ref(st, 3, contact);
		bind_ref(st, 4, someone(s, p, 5));
		bind_text(st, 5, task_titles[rng_skewed(&s->rng, COUNT(task_titles))]);
		bind_text(st, 6, rng_percent(&s->rng, 30) ? "Details in the last conversation." : NULL);
		bind_text(st, 7, rng_percent(&s->rng, 90) ? due : NULL);
		bind_text(st, 8, completed ? done : NULL);
		bind_text(st, 9, created);
		bind_text(st, 10, completed ? done : created);
		insert(s, T_TASKS);
	}
}

/* ---- invoices ------------------------------------------------------------------ */

static const char *invoice_status(struct seed *s)
{
	int64_t r = rng_below(&s->rng, 100);
	return r < 10 ? "draft" : r < 40 ? "sent" : r < 80 ? "paid" : r < 90 ? "partially_paid" : "void";
}

/* The lines of one invoice; returns their sum in cents. */
int64_t add_lines(struct seed *s, const struct place *p, int64_t invoice)
{
	sqlite3_stmt *st = s->table[T_INVOICE_ITEMS].st;
	int n = 1 + (int)rng_below(&s->rng, 5);
	int64_t sum = 0;
	for (int k = 0; k < n; k++) {
		int64_t quantity = 1 + rng_skewed(&s->rng, 10);
		int64_t price = 2500 + rng_below(&s->rng, 200) * 500;
		bind_int(st, 1, next_id(s, T_INVOICE_ITEMS));
		bind_int(st, 2, p->id);
		bind_int(st, 3, invoice);
		bind_int(st, 4, k);
		bind_text(st, 5, invoice_lines[rng_below(&s->rng, COUNT(invoice_lines))]);
		bind_int(st, 6, quantity);
		bind_int(st, 7, price);
		bind_int(st, 8, quantity * price);
		insert(s, T_INVOICE_ITEMS);
		sum += quantity * price;
	}
	return sum;
}

void add_payment(struct seed *s, const struct place *p, int64_t invoice, int64_t cents,
			const char *when)
{
	sqlite3_stmt *st = s->table[T_PAYMENTS].st;
	bind_int(st, 1, next_id(s, T_PAYMENTS));
	bind_int(st, 2, p->id);
	bind_int(st, 3, invoice);
	bind_int(st, 4, cents);
	bind_text(st, 5, payment_methods[rng_skewed(&s->rng, COUNT(payment_methods))]);
	bind_text(st, 6, when);
	bind_text(st, 7, when);
	insert(s, T_PAYMENTS);
}

static void add_invoices(struct seed *s, struct place *p)
{
	char number[32], issued[32], due[32], paid[32];
	sqlite3_stmt *st = s->table[T_INVOICES].st;
	for (int64_t i = 0; i < p->invoices; i++) {
		int64_t id = next_id(s, T_INVOICES);
		const char *status = invoice_status(s);
		int64_t issued_at = s->now - rng_below(&s->rng, 365 * DAY);
		int64_t subtotal = add_lines(s, p, id);
		int64_t tax = rng_percent(&s->rng, 70) ? subtotal / 10 : 0, total = subtotal + tax;
		int64_t paid_cents = !strcmp(status, "paid") ? total
				     : !strcmp(status, "partially_paid") ? total / 2 : 0;
		int draft = !strcmp(status, "draft");
		snprintf(number, sizeof(number), "INV-%05lld", (long long)(i + 1));
		iso_time(issued_at, issued);
		iso_time(issued_at + 30 * DAY, due);
		iso_time(issued_at + rng_below(&s->rng, 40 * DAY), paid);
		if (paid_cents)
			add_payment(s, p, id, paid_cents, paid);
		bind_int(st, 1, id);
		bind_int(st, 2, p->id);
		bind_text(st, 3, number);
		int64_t contact = some_contact(s, p);
		note_activity(p, contact, A_INVOICE, issued_at);
		bind_ref(st, 4, contact);
		bind_text(st, 5, status);
		bind_int(st, 6, subtotal);
		bind_int(st, 7, tax);
		bind_int(st, 8, total);
		bind_int(st, 9, paid_cents);
		bind_text(st, 10, draft ? NULL : issued);
		bind_text(st, 11, draft ? NULL : due);
		bind_text(st, 12, !strcmp(status, "paid") ? paid : NULL);
		bind_text(st, 13, issued);
		bind_text(st, 14, paid_cents ? paid : issued);
		insert(s, T_INVOICES);
	}
}

/* ---- dashboards --------------------------------------------------------------- */

static void add_dashboard(struct seed *s, const struct place *p)
{
	char t[32];
	int64_t id = next_id(s, T_DASHBOARDS);
	sqlite3_stmt *st = s->table[T_DASHBOARDS].st;
	iso_time(s->now - 500 * DAY + p->id * 3600, t);
	bind_int(st, 1, id);
	bind_int(st, 2, p->id);
	bind_text(st, 3, "Overview");
	bind_int(st, 4, p->user);
	bind_text(st, 5, t);
	bind_text(st, 6, t);
	insert(s, T_DASHBOARDS);
	st = s->table[T_WIDGETS].st;
	for (int i = 0; i < COUNT(widget_kinds); i++) {
		bind_int(st, 1, next_id(s, T_WIDGETS));
		bind_int(st, 2, p->id);
		bind_int(st, 3, id);
		bind_text(st, 4, widget_kinds[i]);
		bind_text(st, 5, widget_titles[i]);
		bind_text(st, 6, "{\"period\":\"30d\"}");
		bind_int(st, 7, i);
		insert(s, T_WIDGETS);
	}
}

/* ---- the whole -------------------------------------------------------------------- */

/* Each location's share of every total. */
static struct place *plan(struct seed *s)
{
	size_t n = (size_t)s->locations;
	struct place *places = calloc(n, sizeof(*places));
	double *w = calloc(n, sizeof(*w)), *by_contacts = calloc(n, sizeof(*w));
	int64_t *count = calloc(n, sizeof(*count));
	if (!places || !w || !by_contacts || !count) {
		fprintf(stderr, "perf-seed: out of memory\n");
		exit(1);
	}
	weights(n, FIRST_CONTACT_SHARE, w);
	apportion(w, n, scaled(s->scale, FULL_CONTACTS), count);
	for (size_t i = 0; i < n; i++) {
		places[i].id = (int64_t)i + 1;
		places[i].contacts = count[i];
		places[i].companies = (count[i] + 19) / 20;
		by_contacts[i] = (double)count[i];
	}
	weights(n, FIRST_DEAL_SHARE, w);
	apportion(w, n, scaled(s->scale, FULL_DEALS), count);
	for (size_t i = 0; i < n; i++)
		places[i].deals = count[i];
	/* Messages need a contact to talk to, so they follow the contacts. */
	apportion(by_contacts, n, scaled(s->scale, FULL_MESSAGES), count);
	for (size_t i = 0; i < n; i++)
		places[i].messages = count[i];
	apportion(by_contacts, n, scaled(s->scale, FULL_TASKS), count);
	for (size_t i = 0; i < n; i++)
		places[i].tasks = count[i];
	apportion(by_contacts, n, scaled(s->scale, FULL_INVOICES), count);
	for (size_t i = 0; i < n; i++)
		places[i].invoices = count[i];
	free(w);
	free(by_contacts);
	free(count);
	return places;
}

void fill(struct seed *s)
{
	struct place *places = plan(s);
	int64_t contacts = scaled(s->scale, FULL_CONTACTS);
	/* About 4.1 rows per contact besides the headline tables. */
	s->expected_rows = contacts * 5 + scaled(s->scale, FULL_DEALS) +
			   scaled(s->scale, FULL_MESSAGES) * 11 / 10 + scaled(s->scale, FULL_TASKS) +
			   scaled(s->scale, FULL_INVOICES) * 4;
	add_agency(s);
	add_user(s, 1, SEED_ADMIN, "Perf Admin", "agency_admin");
	for (int i = 0; i < s->locations; i++) {
		struct place *p = &places[i];
		if (!(p->activity = calloc((size_t)p->contacts + 1, sizeof(*p->activity)))) {
			fprintf(stderr, "perf-seed: out of memory\n");
			exit(1);
		}
		add_location(s, p);
		add_contacts(s, p);
		if (s->demo) {
			demo_deals(s, p);
			demo_conversations(s, p);
			demo_tasks(s, p);
			demo_invoices(s, p);
		} else {
			add_deals(s, p);
			add_conversations(s, p);
			add_tasks(s, p);
			add_invoices(s, p);
		}
		add_dashboard(s, p);
		add_activity(s, p);
		free(p->activity);
	}
	free(places);
}

/* ---- the counts the modules' triggers keep ------------------------------------ */

/* The tables their triggers fill as rows are written (the migrations:
 * contacts 010 and 016, opportunities 004, 011 and 012, tasks 003, 007 and 009,
 * invoices 004 and 006, conversations 004 and 006), made here from the rows in one pass
 * each while the triggers are set aside (main.c): a trigger a row cost a
 * tenth of the seed. test_seed.py writes the rows again with the triggers
 * on and checks that they give the same. A day is counted as the triggers
 * count it: the sub-account's, in its time zone (local_day). */
#define DAY_OF(col) "local_day(unixepoch(" col "), (SELECT timezone FROM locations l" \
	" WHERE l.id = location_id))"

int derive_counts(struct seed *s)
{
	static const char *const sql[] = {
		"INSERT INTO contact_counts (location_id, live, scored, health_sum)"
		" SELECT location_id, count(*), count(health_score), sum(coalesce(health_score, 0))"
		" FROM contacts WHERE deleted_at IS NULL GROUP BY location_id",
		"INSERT INTO contact_days (location_id, day, created) SELECT location_id, "
		DAY_OF("created_at") ", count(*) FROM contacts WHERE deleted_at IS NULL GROUP BY 1, 2",
		"INSERT INTO stage_counts (stage_id, status, location_id, deals, cents)"
		" SELECT stage_id, status, location_id, count(*), sum(value_cents) FROM opportunities"
		" GROUP BY 1, 2",
		"INSERT INTO closed_days (location_id, status, day, deals, cents) SELECT location_id,"
		" status, " DAY_OF("closed_at") ", count(*), sum(value_cents) FROM opportunities"
		" WHERE status IN ('won', 'lost') AND closed_at IS NOT NULL GROUP BY 1, 2, 3",
		"INSERT INTO owner_open_counts (stage_id, owner_id, location_id, deals, cents)"
		" SELECT stage_id, owner_id, location_id, count(*), sum(value_cents) FROM opportunities"
		" WHERE status = 'open' AND owner_id IS NOT NULL GROUP BY 1, 2",
		"INSERT INTO task_counts (location_id, assignee, open) SELECT location_id,"
		" coalesce(assignee_id, 0), count(*) FROM tasks WHERE completed_at IS NULL GROUP BY 1, 2",
		"INSERT INTO due_days (location_id, assignee, day, open) SELECT location_id,"
		" coalesce(assignee_id, 0), coalesce(" DAY_OF("due_at") ", 2147483647), count(*)"
		" FROM tasks WHERE completed_at IS NULL GROUP BY 1, 2, 3",
		"INSERT INTO late_counts (location_id, assignee, day, late)"
		" SELECT DISTINCT location_id, assignee, -2147483648, 0 FROM due_days",
		"INSERT INTO payment_days (location_id, day, payments, cents) SELECT location_id, "
		DAY_OF("paid_at") ", count(*), sum(amount_cents) FROM payments"
		" WHERE paid_at IS NOT NULL GROUP BY 1, 2",
		"INSERT INTO received_days (location_id, day, received) SELECT location_id, "
		DAY_OF("created_at") ", count(*) FROM messages WHERE direction = 'inbound' GROUP BY 1, 2",
		"INSERT INTO conversation_counts (location_id, unread) SELECT location_id, count(*)"
		" FROM conversations WHERE unread_count > 0 GROUP BY 1",
		"INSERT INTO unpaid_counts (location_id, unpaid, due_cents) SELECT location_id,"
		" count(*), sum(total_cents - paid_cents) FROM invoices"
		" WHERE status IN ('sent', 'partially_paid') GROUP BY 1",
		"INSERT INTO tag_counts (tag_id, location_id, contacts) SELECT tag_id, location_id,"
		" count(*) FROM contact_tags WHERE contact_deleted = 0 GROUP BY tag_id",
	};
	for (int i = 0; i < COUNT(sql); i++)
		if (run_sql(s->db, sql[i]))
			return -1;
	return 0;
}

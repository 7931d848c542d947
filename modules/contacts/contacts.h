/* SPDX-License-Identifier: MIT */
/*
 * contacts.h: the contacts module's parts. contacts.c registers them;
 * list.c answers the list, record.c one contact; write.c creates, changes,
 * upserts and deletes through store.c, which imports share; custom.c keeps
 * the custom fields and checks their values; tags.c and notes.c the tags
 * and notes of a contact; export.c and import.c move contacts as CSV,
 * import_map.c maps an upload's columns, import_job.c runs imports
 * (import.h);
 * activity.c counts what other modules report about a contact, timeline.c
 * keeps it as readable lines; upkeep.c
 * keeps health scores and company links.
 */
#ifndef CONTACTS_H
#define CONTACTS_H

#include <hyperlevel/hyperlevel.h>

#define CONTACT_TEXT_MAX 200

/* ---- one contact's own fields (store.c) ------------------------------- */

/* The text fields, in this order everywhere (the JSON members, the CSV
 * columns); the statements' parameters are their names with a colon. */
enum contact_text {
	CT_FIRST_NAME, CT_LAST_NAME, CT_EMAIL, CT_PHONE, CT_COMPANY_NAME, CT_SOURCE, CT_COUNT
};
extern const char *const contact_text_names[CT_COUNT];

/* What a create, change, upsert or import row says about a contact. A
 * field whose bit is clear in `given` is left as it is; a given NULL
 * clears it. */
struct contact_input {
	const char *text[CT_COUNT];
	unsigned given;       /* bit (1 << CT_...) per text field, OWNER_GIVEN */
	int64_t owner_id;     /* 0: nobody */
	char phone[HL_PHONE_MAX]; /* text[CT_PHONE] in E.164, once checked */
	const char *phone_typed;  /* the phone as typed, when that is not E.164 */
};
#define OWNER_GIVEN (1u << CT_COUNT)

/* Why `in` cannot be stored as it is: what is wrong with the member it
 * sets *member to (a 422 message is "member: what"), or NULL. `whole`: a
 * new contact (it needs a name, an e-mail or a phone). A phone is kept in
 * E.164, read as a number of `country` (the sub-account's) when it has
 * no country code: text[CT_PHONE] is that, after, and phone_typed what
 * was typed (NULL when the same), to be shown. */
const char *contact_input_problem(struct contact_input *in, int whole, const char *country,
				  const char **member);
/* The live contact of the location that `in` would duplicate: the same
 * e-mail, or with no e-mail given, the same phone; not `except`. 0 for
 * none, HL_EDB. */
int64_t contact_match(struct hl_db *db, int64_t location, const struct contact_input *in,
		      int64_t except);
/* Insert: the new id, or HL_EDB. (Then contact_index.) */
int64_t contact_insert(struct hl_db *db, int64_t location, const struct contact_input *in);
/* Change the given fields of live contact `id`: 0, HL_ENOENT, HL_EDB.
 * (Then contact_index when contact_searchable.) */
int contact_update(struct hl_db *db, int64_t location, int64_t id,
		   const struct contact_input *in);
/* Write contact `id`'s line in the trigram search index: a new line when
 * `fresh`, else the line replaced. Call it after the transaction's other
 * writes to the contact (its tags, custom values): a statement that takes
 * a savepoint after an FTS5 write makes SQLite 3.40's FTS5 flush its
 * pending terms into a new segment, which cost an import three quarters
 * of its time when it happened once per row (see migration 008). So an
 * import indexes its batch last. 0, HL_EDB. */
int contact_index(struct hl_db *db, int64_t id, int fresh);
/* Whether a change of the fields in `given` changes the search line. */
int contact_searchable(unsigned given);
/* Publish `event` about contact `id` for its owner: on the live channel a
 * user who sees only their own contacts hears only of those. In the
 * request's write transaction. */
int contact_publish(struct hl_req *req, const char *event, int64_t id, const char *data);
/* Whether contact `id` is a live one of the location that the caller may
 * open (an "assigned only" caller: only their own): 1, 0, HL_EDB. Asked
 * of the request's reader, or with `write` of its writer (beginning the
 * write transaction), to act on the answer. */
int contact_visible(struct hl_req *req, int64_t id, int write);
/* The same, with the writer, and the contact's name (first and last, ""
 * when it has none) in name[0..size), its first (size - 1) / 4
 * characters: never cut inside one. */
int contact_visible_name(struct hl_req *req, int64_t id, char *name, size_t size);
/* The condition every statement taking a contact's id adds, so that an
 * "assigned only" caller meets only their own contacts and others are
 * 404 as another location's are (`c`: the table's alias and a dot, or
 * ""). Bind :me to hl_assigned_user(req). */
#define CONTACT_MINE(c) " AND (:me = 0 OR " c "owner_id = :me)"

/* ---- custom fields (custom.c) ------------------------------------------ */

#define CUSTOM_TEXT_MAX 1000

/* The text to store for `value` given to a field of `type` ("text",
 * "number", "date", "select", "checkbox") with `options` (its JSON array of
 * choices, for select): `value` itself or a canonical form written into
 * `room` (a number as SQLite prints it, a checkbox as true or false).
 * NULL with *why set when the value does not fit the type; `db` checks a
 * choice against the options. */
const char *custom_value_check(struct hl_db *db, const char *type, const char *options,
			       const char *value, char room[32], const char **why);
/* Set field `field`'s value on contact `id` (NULL removes it). 0, HL_EDB. */
int custom_value_set(struct hl_db *db, int64_t location, int64_t id, int64_t field,
		     const char *value);
/* Store the body's "custom_fields" object (key: value, null clears) on
 * contact `id`. 0, or HL_EINVAL after answering 422, HL_EDB. */
int custom_values_from_body(struct hl_req *req, int64_t id);

/* ---- tags (tags.c) ------------------------------------------------------ */

#define TAG_NAME_MAX 64

/* Put tag `name` (made when the location lacks it) on contact `id`: 1 when
 * newly put, 0 when it was there, HL_EDB. */
int tag_attach(struct hl_db *db, int64_t location, int64_t id, const char *name);
/* A name a tag may have (tags.c says which): 1, else 0. */
int tag_name_ok(const char *s);
/* Put the body's "tags" (an array of names) on contact `id`. 0, or
 * HL_EINVAL after answering 422, HL_EDB. */
int tags_from_body(struct hl_req *req, int64_t id);

/* ---- the list's filters (list.c), which the export shares ---------------- */

struct contact_filters {
	const struct contact_sort *sort;
	const char *q;          /* without wildcards; NULL: none */
	int fts_first;          /* few matches: read them first (list.c) */
	int like_walk;          /* many: LIKE along the page, no match set */
	const char **tags;
	int ntags, all_tags;
	int tags_first;         /* read the tags' contacts first (list.c) */
	int64_t owner;          /* 0: any */
	const char *after, *before, *cursor;
};

/* The setting search_matches_first (list.c). */
extern long long contacts_matches_first;
/* Read and check the query string for pages of `page` rows (0: every
 * row in one go): 0, HL_EINVAL after answering 400, or HL_EDB. */
int contact_filters_read(struct hl_req *req, struct contact_filters *f, int64_t page);
/* " FROM contacts c WHERE ...": the location's live contacts (c) that pass
 * the filters, and are the caller's own for "assigned only" callers. */
const char *contact_filters_where(struct hl_req *req, const struct contact_filters *f);
/* Bind the filters' parameters in a statement built on that text. */
void contact_filters_bind(struct hl_req *req, sqlite3_stmt *st, const struct contact_filters *f);

/* ---- handlers ----------------------------------------------------------- */

int contacts_list(struct hl_req *req);             /* list.c */
int contacts_record(struct hl_req *req);           /* record.c */
/* Answer contact `id` of the location whole, with `status`; 404 if none. */
int contacts_reply_record(struct hl_req *req, int status, int64_t id);
int contacts_create(struct hl_req *req);           /* write.c */
int contacts_change(struct hl_req *req);
int contacts_upsert(struct hl_req *req);
int contacts_delete(struct hl_req *req);
int custom_fields_list(struct hl_req *req);        /* custom.c */
int custom_fields_create(struct hl_req *req);
int custom_fields_change(struct hl_req *req);
int custom_fields_delete(struct hl_req *req);
int tags_list(struct hl_req *req);                 /* tags.c */
int tags_add(struct hl_req *req);
int tags_remove(struct hl_req *req);
int tags_bulk(struct hl_req *req);
int tags_rename(struct hl_req *req);
int tags_merge(struct hl_req *req);
int tags_delete(struct hl_req *req);
int notes_list(struct hl_req *req);                /* notes.c */
int notes_add(struct hl_req *req);
int notes_delete(struct hl_req *req);
int timeline_list(struct hl_req *req);             /* timeline.c */
int contacts_export(struct hl_req *req);           /* export.c */
int contacts_import(struct hl_req *req);           /* import_job.c */
int contacts_import_upload(struct hl_req *req);
int contacts_import_preview(struct hl_req *req);
int contacts_import_run(struct hl_req *req);
int contacts_import_status(struct hl_req *req);
int contacts_import_cancel(struct hl_req *req);
int import_slice(struct hl_job_run *run);
/* Drop the uploads left unrun for a day, while the budget lasts (the
 * purge job's first step): HL_JOB_MORE when some remain, 0, HL_EDB. */
int import_drop_stale(struct hl_job_run *run);
/* Published when a large file is queued: the import job wakes on it. */
#define IMPORT_QUEUED "contact_import.queued"

/* The upkeep jobs: health scores and company links (upkeep.c). */
int health_slice(struct hl_job_run *run);
int companies_slice(struct hl_job_run *run);

/* Count an event about a contact as its activity (activity.c). */
int activity_count(struct hl_job_run *run, const struct hl_event *ev);

/* Write an event about a contact on its timeline; a deleted note's line
 * goes (timeline.c). */
int timeline_add(struct hl_job_run *run, const struct hl_event *ev);
int timeline_note_gone(struct hl_job_run *run, const struct hl_event *ev);

/* The service contacts.find_or_add (intake.c). */
int contacts_find_or_add(struct hl_req *req, const char *in, const char **out);

#endif

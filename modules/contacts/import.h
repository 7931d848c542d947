/* SPDX-License-Identifier: MIT */
/*
 * import.h: the parts of a CSV import of contacts. import.c reads a
 * file's header (or its mapping) and rows into the location;
 * import_map.c says what a file's columns become (the mapping guessed,
 * saved per file shape, previewed); import_job.c keeps imports as
 * records: the routes that upload, start, show and cancel one, the file
 * stored in parts, and the job that runs it in slices.
 */
#ifndef CONTACTS_IMPORT_H
#define CONTACTS_IMPORT_H

#include "contacts.h"

/* About 1,000 rows: some 60 ms of the write lock, which other writers wait
 * out; a larger file goes to the job, which holds it 40 ms at a time. */
#define INLINE_MAX (64 * 1024)

/* What a row that matches a contact of the sub-account (the same e-mail,
 * or with none the same phone) does: change it, be skipped, or be added
 * anyway. Their names, in this order, are import_duplicates[]. */
enum { DUP_UPDATE, DUP_SKIP, DUP_CREATE, DUP_COUNT };
extern const char *const import_duplicates[DUP_COUNT];

/* Where a column goes: a contact_text, or one of these. */
enum { T_IGNORE = -1, T_OWNER = CT_COUNT, T_TAGS, T_CUSTOM, T_NAME };

struct column {
	int target;      /* a contact_text, or T_ */
	int64_t field;   /* T_CUSTOM: the custom field */
	char *type, *options, *key;
	char room[32];   /* the row's canonical custom value */
	const char *value;
};

struct import {
	struct hl_db *db;
	struct hl_req *req;       /* inline: its request; NULL in the job */
	struct hl_job_run *run;   /* in the job: its slice */
	int64_t id, location;
	char country[3];         /* the sub-account's, for its phone numbers */
	struct hl_csv *csv;
	/* In the job the reader walks a window of the stored file, from file
	 * offset `base` to `end`; a row may start only before file offset
	 * `stop` (0: anywhere), and `partial` says the window ends before the
	 * file does, so a row reaching its end may go on past it. */
	size_t base, end, stop;
	int partial;
	struct column *cols;
	int ncols;
	/* The column mapping: per column a field's key or NULL (ignored),
	 * malloc'd; map NULL: guessed from the header's names. */
	char **map;
	int nmap;
	int duplicates;           /* DUP_ */
	int64_t created, updated, skipped, errors_kept, merges_kept;
	char why[320];            /* the current row's reason to be skipped */
	char first[CONTACT_TEXT_MAX * 4 + 1]; /* the row's first name, from a full name */
	/* The contacts this import added, with their lines, by id (ids grow
	 * as they are added): a later row matching one names its line. */
	struct { int64_t id; long line; } *made;
	size_t nmade, made_cap;
	/* The batch's merged lines for the report, as JSON objects joined by
	 * commas (room kept for a NUL). */
	char *merged;
	size_t merged_len, merged_cap;
	/* The contacts to index for search once the batch's other writes are
	 * done (see contact_index), and whether each is new. */
	struct { int64_t id; int fresh; } *index;
	size_t nindex, index_cap;
};

#define HEADER_NAME_MAX 64

/* A header's name as a key: lower case, spaces and dashes as _, trimmed. */
void import_header_key(const char *header, char key[HEADER_NAME_MAX + 1]);
/* The field a header's name guesses, its key put in `key`: 1, 0 (none:
 * `key` holds the name as a key), HL_EDB. */
int import_guess(struct import *im, const char *header, char key[HEADER_NAME_MAX + 1]);
/* Whether `key` names a field of the location's contacts: 1, 0, HL_EDB. */
int import_field_exists(struct import *im, const char *key);
/* Read the header row into im->cols, by im->map when set, else guessed
 * from the names. 0, HL_EINVAL with im->why, HL_EDB, HL_ENOMEM. `first`:
 * note the ignored columns in the import's record. */
int import_read_header(struct import *im, int first);
/* The field's key column `i` goes to, as a mapping names it; NULL when
 * it is ignored. */
const char *import_target_name(const struct import *im, int i);
/* Read a mapping (a JSON array of keys or nulls) into im->map. 0,
 * HL_EDB, HL_ENOMEM. */
int import_map_read(struct import *im, const char *json);
/* Read and check the current row of nfields fields into `in` and the
 * columns' values: 0, 1 with im->why to skip it, HL_EDB. */
int import_check_row(struct import *im, int nfields, struct contact_input *in);
/* The contact the checked row `in` would change: 0 for none (or with
 * DUP_CREATE), HL_EDB; *line the line of this file that added it, 0 when
 * it was there before. */
int64_t import_match(struct import *im, const struct contact_input *in, long *line);
/* Say in im->why what becomes of a row matching a contact: skipped or
 * merged, as im->duplicates says, into the contact of `line` (0: one
 * that was there before). */
void import_dup_reason(struct import *im, const struct contact_input *in, long line);
/* The checked row's values as a JSON object, as they would be stored. */
void import_row_json(struct import *im, struct hl_json *j, const struct contact_input *in);
/* Import rows until the end (1) or until the job's budget is used or the
 * window's stop is reached (0); HL_EINVAL (im->why) for a row longer than
 * the window holds; HL_EDB. */
int import_rows(struct import *im);
/* The byte of the file just after the last row read. */
size_t import_offset(const struct import *im);
/* The parts of import_map.c, for import_job.c's routes. */
/* The body's {"mapping": [...], "duplicates": "..."} into im->map and
 * im->duplicates: 0, HL_EINVAL after answering 422, HL_ENOMEM. */
int import_map_from_body(struct hl_req *req, struct import *im);
/* Answer 201 with an upload: its header, first rows, the mapping saved
 * for its shape or guessed, the fields to map to; im->csv at its start.
 * 0, HL_EINVAL after answering 422, HL_EDB. */
int import_map_reply(struct hl_req *req, struct import *im);
/* Answer what the first rows become under im->map; im->csv at the
 * file's start. 0, HL_EINVAL after answering 422, HL_EDB. */
int import_preview_reply(struct hl_req *req, struct import *im);
/* Keep the mapping of the header just read (im->cols) on the import and
 * for its shape. 0, HL_EDB. */
int import_map_save(struct hl_req *req, struct import *im);

/* Free what the import holds (not the struct itself). */
void import_free(struct import *im);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * import.h: the two halves of a CSV import of contacts. import.c reads a
 * file's header and rows into the location; import_job.c keeps imports
 * as records: the routes that start, show and cancel one, the upload of a
 * large one stored in parts, and the job that runs it in slices.
 */
#ifndef CONTACTS_IMPORT_H
#define CONTACTS_IMPORT_H

#include "contacts.h"

/* About 1,000 rows: some 60 ms of the write lock, which other writers wait
 * out; a larger file goes to the job, which holds it 40 ms at a time. */
#define INLINE_MAX (64 * 1024)

struct column;

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
	int64_t created, updated, skipped, errors_kept;
	char why[160];            /* the current row's reason to be skipped */
	/* The contacts to index for search once the batch's other writes are
	 * done (see contact_index), and whether each is new. */
	struct { int64_t id; int fresh; } *index;
	size_t nindex, index_cap;
};

/* Read the header row into im->cols. 0, HL_EINVAL with im->why, HL_EDB,
 * HL_ENOMEM. `first`: note the ignored columns in the import's record. */
int import_read_header(struct import *im, int first);
/* Import rows until the end (1) or until the job's budget is used or the
 * window's stop is reached (0); HL_EINVAL (im->why) for a row longer than
 * the window holds; HL_EDB. */
int import_rows(struct import *im);
/* The byte of the file just after the last row read. */
size_t import_offset(const struct import *im);
/* Free what the import holds (not the struct itself). */
void import_free(struct import *im);

#endif

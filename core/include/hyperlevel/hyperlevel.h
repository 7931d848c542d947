/* SPDX-License-Identifier: MIT */
/*
 * hyperlevel.h: the public module API of the HyperLevel server.
 *
 * This is the only header a module includes. A module is a shared object that
 * exports one descriptor, `hl_module` (declare it with HL_MODULE), and
 * registers its routes, migrations, tick jobs, event handlers and pages
 * from its init function.
 * Everything else a module needs is a plain hl_ function declared here and
 * exported by the server binary.
 *
 * Threads: request handlers run on the HTTP worker threads, many at once;
 * job slices run on the one scheduler thread; init runs once, on the main
 * thread, before the server listens. Functions say where they may be called.
 *
 * Memory: everything a function returns during a request lives in the
 * request's arena and is freed by the core when the answer has been sent.
 * A module never frees request memory.
 *
 * ABI changelog (bump HL_ABI_MINOR for additions, HL_ABI_MAJOR for anything
 * that changes what an existing module sees):
 *   1.0  first version: descriptor, routes, migrations, jobs (with
 *        hl_job_over_budget), settings, request context, JSON reader and
 *        writer, database access.
 *   1.1  hl_route.max_body_kb; checking body members (hl_field_*,
 *        hl_is_email, hl_text_length, hl_field_time); hl_query_cursor,
 *        hl_query_time, hl_query_user; hl_user_in_location; hl_bind_int,
 *        hl_bind_text; hl_assigned_user; events (hl_publish, hl_job_publish, event
 *        handlers); CSV (hl_csv_* reader, hl_stream_csv_* writer).
 *   1.2  hl_module_info; hl_json_columns; the core's tables a module may read
 *        (locations, users, the location_users view).
 *   1.3  HL_ROUTE_PER_USER; hl_agency_read; hl_json_page; hl_time_text.
 *   1.4  hl_read_end; hl_read may return NULL (no reader free in time);
 *        hl_csv_check; hl_query_keyset; the CSV writer guards formulas
 *        and hl_csv_field takes the guard off.
 *   1.5  pages: struct hl_page and hl_add_pages, the browser pages a
 *        module offers and its menu entries (GET /api/pages).
 *   1.6  hl_page.data and hl_page.uses, the GET and the files a page
 *        opens with, asked for beside its script.
 *   1.7  hl_page.flags: HL_PAGE_PHONE_HOME, the page a phone opens first.
 *   1.8  the live channel: hl_event.assigned_to, HL_EVERYONE,
 *        hl_publish_assigned and hl_job_publish_assigned; hl_scoped_write_int.
 *   1.9  the module platform 1.0: every table read by its declared size
 *        (the frozen HL_*_SIZE_* below); hl_module.wants,
 *        hl_module_loaded and hl_json_absent_modules; "table?" in
 *        hl_route.reads, and a view; hl_migration.flags and
 *        HL_MIGRATION_RETIRED; hl_reply_invalid, hl_reply_empty, hl_step_int, hl_step_changes,
 *        hl_step_last_id; a handler may return HL_EINVAL after a 4xx
 *        answer; hl_scoped_write_int binds :id.
 *   1.10 "table:lookup" in hl_route.reads: rows added to it keep the
 *        answer.
 *   1.11 hl_job.wake_on: an event that makes the job's next slice run at
 *        once.
 *   1.12 HL_SQL_NOW, HL_SQL_TODAY and HL_SQL_TOMORROW.
 *   1.13 hl_answer_uncached: an answer the read cache does not keep;
 *        HL_PAGE_ALL_RECORDS.
 *   1.14 hl_stmt_scoped: a scoped statement outside a request; the
 *        descriptor's tables (struct hl_table, HL_TABLE), init optional;
 *        hl_reply_record, hl_delete_if_empty.
 *   1.15 a sub-account's days: hl_location_zone, hl_local_day,
 *        hl_day_start, the SQL functions local_day and day_start, the
 *        descriptor's recounts (struct hl_recount); locations.currency.
 *   1.16 hl_move_to_position (HL_POSITION_LAST, HL_POSITION_MAKE_ROOM):
 *        a row put at a position among those of its scope;
 *        hl_scoped_read_int; hl_json_members (struct hl_member);
 *        hl_reply_page, hl_json_page and hl_reply_row answer HL_EDB for a
 *        NULL statement, as hl_step_* do; hl_reply_path_record and
 *        hl_route.record, a record's GET as data.
 *   1.17 hl_bind_blob; hl_json_rows, every row of a statement as an
 *        array. HL_SQL_TODAY and HL_SQL_TOMORROW (UTC days) give way to
 *        HL_SQL_LOCAL_TODAY and HL_SQL_LOCAL_TOMORROW.
 *   1.18 sending: the descriptor's channels (struct hl_channel), which
 *        a provider module delivers; hl_job_send (struct hl_outgoing,
 *        struct hl_outcome) and the hl_send_* functions of a send;
 *        hl_channel_provider; the descriptor's inbox (struct hl_inbox),
 *        hl_receive and hl_report; hl_public_url; the descriptor's
 *        services (struct hl_service) and hl_call.
 *   1.19 phone numbers: hl_location_country, hl_phone_e164
 *        (HL_PHONE_MAX), the SQL function e164; locations.country.
 *        hl_send_reference; hl_send_answer gives the relay's last reply
 *        of an SMTP send. hl_hook_location.
 *   1.20 struct hl_incoming grows: answers (the messages a received one
 *        replies to) and files (what came with it), read by the size of
 *        the minor its provider was built with.
 *   1.21 hl_job_again_in: a slice's next one sooner than the period.
 *   1.22 the descriptor's records (struct hl_record_kind): the records
 *        people know, which the audit log names.
 *   1.23 hl_fold, and fold() in SQL: text as a search compares it.
 *   1.24 hl_body_decimal: a number with decimals, read exactly;
 *        hl_search_text: the words of a search, as folded lines hold them.
 *   1.25 the descriptor's event lines (struct hl_event_line): how a
 *        module's events read on a contact's timeline; hl_job_event_line.
 *   1.26 the business details a module may read (agencies, agency_logos,
 *        location_logos); hl_reply_download and hl_reply_csp.
 *   1.27 hl_page.search: the module's part of the header's search;
 *        notifications (hl_notify), the person's own list in the header;
 *        hl_html_text, a value put in a page of plain HTML.
 */
#ifndef HYPERLEVEL_H
#define HYPERLEVEL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <sqlite3.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HL_ABI_MAJOR 1
#define HL_ABI_MINOR 27

#define HL_API __attribute__((visibility("default")))
/* A function kept for the modules built against it (the ABI rules: never
 * removed within a major), with a better one to use in new code; the
 * compiler says which. */
#define HL_DEPRECATED(use) __attribute__((deprecated(use)))
#define HL_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* ---------------------------------------------------------------------------
 * Error codes. Functions return 0 on success, a negative HL_E... otherwise.
 */
enum hl_error {
	HL_OK = 0,
	HL_ENOMEM = -1,   /* out of memory */
	HL_EINVAL = -2,   /* invalid argument or input */
	HL_ENOENT = -3,   /* no such thing */
	HL_EEXIST = -4,   /* already exists */
	HL_EDB = -5,      /* the database reported an error (it is logged) */
	HL_EIO = -6,      /* a file or socket operation failed */
	HL_ESTATE = -7,   /* called at the wrong time (e.g. outside init) */
	HL_ETOOBIG = -8,  /* a size limit was exceeded */
	HL_EABI = -9,     /* a module and the core disagree on the ABI */
};

/* A short English message for an HL_E code; never NULL. */
HL_API const char *hl_strerror(int err);

/* ---------------------------------------------------------------------------
 * Opaque handles.
 */
struct hl_mod;   /* a module being loaded; valid only inside its init */
struct hl_req;   /* one request; valid only inside its handler */
struct hl_db;    /* a database connection lent to a request or a job slice */
struct hl_json;  /* a JSON writer, writing into an answer */
struct hl_job_run; /* one slice of a tick job */

/* ---------------------------------------------------------------------------
 * Routes.
 *
 * A handler returns 0 once it has produced an answer (hl_reply_json,
 * hl_reply_error, ...), or a negative HL_E code, which the core turns into a
 * 500 answer with a generic message; HL_EINVAL after a 4xx answer (what
 * hl_reply_invalid, hl_field_* and hl_param_id return) leaves that answer
 * as it is (ABI 1.9; before, return 0 after them). A write transaction the handler opened
 * is committed when the answer's status is below 400 and rolled back
 * otherwise, so an error answer never leaves half a write behind.
 */
typedef int hl_handler(struct hl_req *req);

/* Who may call a route. The zero value is the safe default: a signed-in
 * user with access to the current location. Without a session the core
 * answers 401, with one that lacks the role 403. */
enum hl_access {
	HL_ACCESS_USER = 0,       /* any signed-in user, scoped to a location */
	HL_ACCESS_PUBLIC,         /* anyone, no session needed */
	HL_ACCESS_LOCATION_ADMIN, /* a location admin of the current location */
	HL_ACCESS_AGENCY,         /* agency staff (every location) */
	HL_ACCESS_ADMIN,          /* agency administrators */
};

enum hl_route_flags {
	/* The body is handed over as it came (e.g. a CSV upload) instead of
	 * being required to be, and parsed as, JSON. */
	HL_ROUTE_RAW_BODY = 1u << 0,
	/* The route needs a signed-in user but no current location (the
	 * caller's own account, sign-out). */
	HL_ROUTE_NO_LOCATION = 1u << 1,
	/* The answer is the caller's own (their deals, the locations they may
	 * open): the read cache keeps one per user, so the handler may ask
	 * hl_user_id and still be cached. */
	HL_ROUTE_PER_USER = 1u << 2,
};

struct hl_route {
	const char *method;  /* "GET", "POST", "PUT", "PATCH" or "DELETE" */
	const char *pattern; /* "/api/contacts/:id": literal and :param segments */
	hl_handler *handler;
	enum hl_access access;
	unsigned flags;      /* enum hl_route_flags */
	/* The read cache: a GET whose answer depends only on its path, query,
	 * location, the caller's agency and role (and the user, for "assigned
	 * only" callers, or every caller with HL_ROUTE_PER_USER) may be kept up
	 * to cache_ms; 0: never. `reads` names, space-separated, every table
	 * the answer is built from: a committed write to one of them drops the
	 * answer (in a route of a location, only a write to that location's
	 * rows, for tables with a location_id). A view another module
	 * publishes (ABI 1.9) stands for the tables it reads, so the reader
	 * need not know them; at most 32 tables in all. A table the database lacks
	 * stops the start, unless its name ends in "?" (ABI 1.9: "invoices?"),
	 * a table of a module this one wants, which may be absent.
	 * "contacts:lookup" (ABI 1.10): the answer reads that table only to
	 * look up rows by keys it found elsewhere (each task's contact), so
	 * a row added to it cannot change the answer: only a row of it
	 * changed or deleted drops it. Never for a table the answer lists or
	 * counts, nor one it reads by keys that may name a row not yet
	 * there. An answer
	 * whose handler asked hl_user_id is not
	 * kept unless the caller is "assigned only" or the route is
	 * HL_ROUTE_PER_USER. */
	unsigned cache_ms;
	const char *reads;
	/* The largest body this route accepts, in KB, when it is more than
	 * the server's max_body_kb (an upload, say); 0: the server's. */
	unsigned max_body_kb;
	/* ABI 1.16. A record's GET as data: a GET route with no handler
	 * answers hl_reply_path_record(req, record, record_sql), the record
	 * ("task") its path's :id names:
	 *     { .method = "GET", .pattern = "/api/tasks/:id", .record = "task",
	 *       .record_sql = TASK_RECORD_SQL, .cache_ms = ..., .reads = ... } */
	const char *record;
	const char *record_sql;
};

/* ---------------------------------------------------------------------------
 * Migrations: named SQL steps, applied once each, in table order, each in its
 * own transaction. A shipped migration is never edited: the core records a
 * checksum of its text and refuses to start when it changes. Append new
 * steps instead.
 */
struct hl_migration {
	const char *name; /* "001_contacts": unique within the module */
	const char *sql;  /* one or more statements */
	/* ABI 1.9. 0, or HL_MIGRATION_RETIRED: a shipped step whose work now
	 * belongs elsewhere (an index moved to the module that owns its
	 * table). A database that applied it keeps it; on any other it is
	 * recorded without being run. Its text stays as shipped, so its
	 * checksum still matches. embed-sql sets it for NAME.sql when a
	 * NAME.retired file (saying why) lies beside it. */
	unsigned flags;
};

#define HL_MIGRATION_RETIRED 1u

/* ---------------------------------------------------------------------------
 * Tick jobs. The scheduler thread calls `slice` about every `period_ms`.
 * A slice does a bounded piece of work (40 ms of write lock at most: it
 * works in small pieces while !hl_job_over_budget), remembers where it
 * stopped with hl_job_set_cursor, and returns HL_JOB_MORE when work remains
 * (it is called again soon), HL_JOB_DONE when it has caught up (next call
 * after period_ms), or a negative HL_E code on failure (its writes are
 * rolled back and the job backs off: the period doubles per failure in a
 * row, up to an hour). Writes made through hl_job_db and the new cursor are
 * committed together after a successful slice. The core times every slice;
 * one over the budget is logged and counted as an overrun. The functions
 * below take the slice's `run` and may be called only inside the slice, on
 * the scheduler thread.
 */
enum { HL_JOB_DONE = 0, HL_JOB_MORE = 1 };

struct hl_job {
	const char *name;   /* "purge": the full name is "MODULE.purge" */
	unsigned period_ms;
	int (*slice)(struct hl_job_run *run);
	/* ABI 1.11. An event name, or a prefix ending in ".*", as an event
	 * handler takes: once such an event is committed (by a request, a
	 * handler or another job's slice, never the job's own), the job's
	 * next slice runs as soon as it is its turn instead of at its period;
	 * after a slice during which one came, again. A job whose work is
	 * queued by requests (an upload to import) then runs when there is
	 * work, and its period is only the fallback; a failing one backs off
	 * from a second, not from its period, and is not woken meanwhile.
	 * NULL: the period alone. */
	const char *wake_on;
};

HL_API struct hl_db *hl_job_db(struct hl_job_run *run);
HL_API int64_t hl_job_cursor(const struct hl_job_run *run);
HL_API void hl_job_set_cursor(struct hl_job_run *run, int64_t cursor);
/* True (1) once the slice has used its budget, measured from when it took
 * the write lock, or when one more piece of work as long as the one since
 * the previous call (or since the slice began) would exceed it, a quarter
 * of the budget being kept for the commit; also as soon as a request
 * waits for the write lock (requests go first), or once it has worked
 * 3 ms when requests wait one after another (one waited within 20 ms
 * before the slice began), and the budget is 5 ms while requests keep
 * waiting; 0 otherwise. Call it between small pieces of work (a row, a batch of a
 * hundred rows):
 *     while (row < last && !hl_job_over_budget(run))
 *             process(++row);
 */
HL_API int hl_job_over_budget(struct hl_job_run *run);
/* ABI 1.21. The next slice no later than `ms` from now, though this one
 * returns HL_JOB_DONE: work that waits for a time sooner than the period
 * (a rate's next token). The earliest of several calls counts; a slice
 * that fails, or returns HL_JOB_MORE, is scheduled as before. */
HL_API void hl_job_again_in(struct hl_job_run *run, unsigned ms);
/* The module's setting `key` from its conf, or NULL when the conf does not
 * set it (a module reads its settings in init; see hl_setting). */
HL_API const char *hl_job_setting(const struct hl_job_run *run, const char *key);

/* ---------------------------------------------------------------------------
 * Events. A module publishes what happened ("contact.created") for a
 * location; other modules react through event handlers, and the live
 * channel (GET /api/live) passes it on to the location's users who are
 * looking: as {"type":"event","seq","event","location_id","id","data"},
 * the data whole up to 4 KB, else null. A user who sees only the records
 * assigned to them gets an event only when the module said it is theirs
 * or everyone's (hl_publish_assigned); so keep data to what any user who
 * gets it may see, ids and what changed. An event published
 * during a request or a job slice is delivered only once that transaction
 * has committed (never for a rolled-back one), in the order published.
 * Delivery is at most once and in memory: a consumer that must never miss
 * a change keeps its own cursor over the publisher's tables instead.
 */
struct hl_event {
	const char *name;   /* "contact.created" */
	int64_t location_id;
	int64_t subject_id; /* the record the event is about, or 0 */
	const char *data;   /* a JSON object (text), never NULL: "{}" at least */
	/* ABI 1.8: the user the record is assigned to, HL_EVERYONE, or 0
	 * (nobody: "assigned only" users are not told). */
	int64_t assigned_to;
};

/* hl_event.assigned_to of an event every user of the location may see. */
#define HL_EVERYONE ((int64_t)-1)

/* A handler runs on the scheduler thread like a job slice: `run` gives it
 * the write connection (hl_job_db), the budget (hl_job_over_budget), the
 * module's settings and hl_job_publish (its cursor is 0 and not kept); its
 * writes are committed after it returns 0, rolled back when it returns a
 * negative HL_E code (then logged and counted; the event is not retried).
 * `event` is a full name or a prefix ending in ".*" ("contact.*" takes
 * "contact.created" and "contact.tag.added"). An event goes to every
 * handler that takes it, in module load order, then table order. The
 * event and its strings live until the handler returns. Handlers do not
 * run when the server's jobs are turned off. */
struct hl_event_handler {
	const char *event;
	int (*handle)(struct hl_job_run *run, const struct hl_event *ev);
};

/* Publish `name` about record `subject_id` (0: none) with `data`, a JSON
 * object's text (NULL: "{}"), copied. hl_publish, inside a route handler:
 * for the request's location, sent once the request has answered with a
 * status below 400 and its write transaction, if it began one, has
 * committed; dropped otherwise. hl_job_publish, inside a slice or an event
 * handler: for `location_id`, sent after the slice (or handler) commits,
 * dropped when it fails. 0; HL_EINVAL (logged) for a name that is not
 * "noun.verb" of [a-z0-9_.] (no dot first or last, none doubled, 64 bytes
 * at most) or data that is not a JSON object; HL_ETOOBIG for data over 64
 * KB or over 65536 events in one transaction; HL_ENOMEM. */
HL_API int hl_publish(struct hl_req *req, const char *name, int64_t subject_id,
		      const char *data);
HL_API int hl_job_publish(struct hl_job_run *run, const char *name, int64_t location_id,
			  int64_t subject_id, const char *data);
/* ABI 1.25. The line a person reads for `ev` (struct hl_event_line), in
 * an event handler or slice: its statement, run on hl_job_db(run) and
 * stepped to its row (column 0 the line, 1 the link); the connection
 * owns it and it holds until the next hl_stmt of the same text. NULL
 * when no loaded module describes the event, its SQL answers no row or
 * fails (logged). */
HL_API sqlite3_stmt *hl_job_event_line(struct hl_job_run *run, const struct hl_event *ev);
/* ABI 1.8. As hl_publish and hl_job_publish, for a record assigned to
 * user `assigned_to` (HL_EVERYONE: a thing every user of the location
 * sees, a pipeline or a dashboard; 0: nobody's). Plain hl_publish and
 * hl_job_publish give 0, so a user who sees only what is assigned to them
 * hears of nothing a module did not say is theirs. */
HL_API int hl_publish_assigned(struct hl_req *req, const char *name, int64_t subject_id,
			       int64_t assigned_to, const char *data);
HL_API int hl_job_publish_assigned(struct hl_job_run *run, const char *name,
				   int64_t location_id, int64_t subject_id, int64_t assigned_to,
				   const char *data);

/* ---------------------------------------------------------------------------
 * Notifications (ABI 1.27). What a person is told in the header's bell:
 * someone assigned them a record, mentioned them in a note, a contact
 * replied in their conversation. A module tells them in the transaction
 * of what it tells of (rolled back with it); the core keeps the
 * notification for 90 days, lists it to that person only (GET
 * /api/notifications), and rings their bell live, whatever sub-account
 * they look at. From a request, the bell shows the name of the person
 * who did it before the text, so the text goes on from it ("assigned you
 * the task “Call back”"); from a job, or with HL_NOTICE_FROM_OUTSIDE
 * (a contact's message), no one's name is shown and the text is the
 * whole sentence ("Zoë Vidal replied: “Thanks!”"). Name the record, not
 * only its kind.
 */
struct hl_notice {
	int64_t user;      /* who is told */
	const char *kind;  /* "assigned", "mention", "reply": a word of [a-z_] */
	const char *text;  /* what the bell says (above): UTF-8, not empty; past 500
			    * characters it is cut to 500, ending in "…" */
	/* the page it opens, under /app, in the sub-account of the record:
	 * "/tasks/12" (of [A-Za-z0-9/._-?=&%], no "..", 300 bytes at most) */
	const char *path;
	unsigned flags;    /* 0, or HL_NOTICE_FROM_OUTSIDE */
};
/* What the notice tells of was done by someone outside (a contact wrote),
 * not by the request's user, who is told too when it is theirs (a
 * provider's hook called with their token). */
#define HL_NOTICE_FROM_OUTSIDE 1u
/* Tell `n->user` about a record of the request's location (hl_notify,
 * inside a route handler that writes: it begins the write transaction) or
 * of `location_id` (hl_job_notify, inside a slice or an event handler).
 * Nobody is told of their own doing (the request's user is n->user,
 * unless HL_NOTICE_FROM_OUTSIDE), nor
 * of a sub-account they may not open (an agency user, or one given that
 * location; a disabled user is not told): then nothing is written and 0
 * is returned, as on success. Whether they may see the record itself (a
 * user who sees only what is theirs) is the module's to check. HL_EINVAL
 * for a notice that breaks the rules above (not logged), HL_EDB,
 * HL_ENOMEM. Request handlers' and job slices' threads. */
HL_API int hl_notify(struct hl_req *req, const struct hl_notice *n);
HL_API int hl_job_notify(struct hl_job_run *run, int64_t location_id, const struct hl_notice *n);

/* ---------------------------------------------------------------------------
 * Sending (ABI 1.18). A message leaves through a channel ("email", "sms"),
 * which one provider module delivers: it lists the channel in its
 * descriptor's `channels` and says how a message goes out over the network
 * (an HTTP request to the provider's API, an SMTP submission). The module
 * that keeps the messages (the owner) hands each one over in its job
 * slice with hl_job_send, after recording it as sending in that slice's
 * transaction; it leaves only once that transaction has committed, never
 * for a rolled-back one. The core sends many at once on a thread of its
 * own (libcurl's multi interface, bounded time-outs, certificates always
 * verified), asks the provider what the answer means, and hands the
 * outcome to the owner's `settle` on the scheduler thread, in a
 * transaction. A crash between the two leaves the owner's record as
 * sending: the owner must then never send it again blindly (it does not
 * know whether it left), but show it as unknown.
 *
 * The provider's side, in its descriptor:
 *     static const struct hl_channel channels[] = {
 *             { .name = "sms", .label = "SMS", .prepare = sms_prepare,
 *               .conclude = sms_conclude } };
 *     HL_MODULE(..., .channels = HL_TABLE(channels));
 */
struct hl_send;      /* one message on its way out, as its provider sees it */
struct hl_outcome;   /* how it ended, for the owner */

/* What the owner hands a channel. Strings are copied. */
struct hl_outgoing {
	const char *channel;   /* "sms" */
	int64_t location_id;   /* the sub-account sending */
	int64_t id;            /* the owner's id of the message, given back */
	const char *to;        /* the recipient: an address, a number */
	const char *subject;   /* NULL for a channel without one */
	const char *body;      /* the text */
	/* NULL, or a JSON object's text with what else the channel takes
	 * (the provider documents its members: an HTML part, a reply's
	 * Message-ID ...). */
	const char *data;
	/* The owner's, called once with the outcome (below). */
	int (*settle)(struct hl_job_run *run, const struct hl_outcome *o);
};

/* How a send ended. */
enum hl_outcome_kind {
	HL_SENT = 1,       /* the provider took it */
	HL_SEND_LATER,     /* a temporary failure (SMTP 4xx, HTTP 429 or 5xx, a
			    * time-out, no connection): worth trying again */
	HL_SEND_FAILED,    /* a permanent one: trying again would fail too */
};

/* The outcome, for the owner's `settle`: called on the scheduler thread
 * in a write transaction (hl_job_db(run)), like an event handler, with
 * the owner's settings; its writes commit when it returns 0 and are
 * undone when it returns a negative HL_E code (the outcome is then lost:
 * the record stays as sending). Strings live until it returns. */
struct hl_outcome {
	int64_t location_id, id;   /* as given to hl_job_send */
	enum hl_outcome_kind kind;
	/* In the provider's words, for a person: "550 5.1.1 No such user";
	 * NULL when sent. */
	const char *reason;
	/* The provider's id of the message (an SMS's SID, an e-mail's
	 * Message-ID), by which its later reports name it; or NULL. */
	const char *reference;
	/* HL_SEND_LATER: the wait the provider asked for (Retry-After), in
	 * seconds; 0 when it asked none. */
	unsigned retry_after_s;
};

struct hl_channel {
	/* "sms": lower-case letters, digits and "_", at most 16 bytes; one
	 * provider per channel among the loaded modules. */
	const char *name;
	/* "SMS", "e-mail": in what a person reads ("no e-mail provider is
	 * set up"). */
	const char *label;
	/* On the scheduler thread, inside hl_job_send, in the owner's slice
	 * (hl_job_db(run) reads the provider's own tables: the sub-account's
	 * credentials): say how `m` goes out, with hl_send_http or
	 * hl_send_smtp and what goes with them. 0 when it may go;
	 * HL_ENOENT when the sub-account has not set the channel up (the
	 * message waits; hl_send_refuse says why); HL_EINVAL when this
	 * message can never go (a number that is not one); another negative
	 * HL_E code for a fault of the provider's own. */
	int (*prepare)(struct hl_job_run *run, struct hl_send *s, const struct hl_outgoing *m);
	/* On the sending thread once the answer came or the request
	 * failed: what it means (hl_send_status and hl_send_answer read it;
	 * hl_send_sent, hl_send_later and hl_send_failed say it). Not a
	 * place to read or write the database. NULL, or a conclude that says
	 * nothing: a 2xx answer is sent; a failure to connect, a time-out,
	 * HTTP 429 and 5xx and SMTP 4xx are tried again later; anything
	 * else failed, with the answer's status. */
	void (*conclude)(struct hl_send *s);
	/* How many of the channel's messages may be on their way at once
	 * (hl_job_send answers HL_ETOOBIG beyond); 0: 32. */
	unsigned max_in_flight;
};

/* In the owner's slice: hand message `m` to its channel's provider, to
 * leave once the slice commits. 0; HL_ENOENT when no loaded module
 * delivers the channel (`why` left empty: the owner says "no SMS
 * provider is set up" in its own words), or when the provider says the
 * sub-account has not set it up (both wait); HL_EINVAL when the provider
 * refuses this message (it failed); HL_ETOOBIG when the channel has
 * max_in_flight messages on their way (try again in a later slice);
 * HL_ESTATE when the server is stopping. `why` (`size` bytes) gets the
 * provider's sentence for a person, or is left empty. */
HL_API int hl_job_send(struct hl_job_run *run, const struct hl_outgoing *m, char *why,
		       size_t size);

/* The name of the loaded module that delivers `channel` ("sms"), or NULL
 * when none does: what a page says of a channel. Any thread; the answer
 * does not change once the server has started. */
HL_API const char *hl_channel_provider(struct hl_req *req, const char *channel);

/* What comes back (ABI 1.18). A provider's hooks (its public routes,
 * each checking the provider's signature before reading anything) hand
 * what they heard to the module that keeps the messages, the inbox,
 * which lists one struct hl_inbox in its descriptor's `inbox` (one module
 * per server). The call runs in the hook's request, in its write
 * transaction, as a request of the sub-account it names: the inbox's
 * writes and the provider's answer commit together, so a received
 * message is never acknowledged and then lost. */

/* Whether a received message changes the contact's consent: the
 * provider's keywords (STOP, START for SMS). */
enum hl_consent_change {
	HL_CONSENT_SAME = 0,
	HL_CONSENT_OPT_OUT,   /* the contact asks for no more messages on the channel */
	HL_CONSENT_OPT_IN,    /* and again for them */
};

/* A message a contact sent. Strings are the provider's, UTF-8. */
struct hl_incoming {
	const char *channel;   /* "sms" */
	int64_t location_id;   /* the sub-account it came to */
	const char *from;      /* the sender's address or number (E.164) */
	const char *to;        /* the sub-account's address or number it came to */
	const char *subject;   /* NULL for a channel without one */
	const char *body;
	const char *reference; /* the provider's id of it, or NULL */
	enum hl_consent_change consent;
	/* ABI 1.20. The provider's references of earlier messages this one
	 * replies to, nearest first (an e-mail's In-Reply-To, then its
	 * References backwards): the inbox puts it in the thread of the
	 * first it knows, whoever sent it; none known, the sender's. */
	const char *const *answers;
	size_t nanswers;
	/* The ids of files the provider keeps for it (an e-mail's
	 * attachments), for its thread to link to. */
	const int64_t *files;
	size_t nfiles;
};

/* What became of a message sent earlier, named by the reference its
 * provider gave (struct hl_outcome). */
enum hl_report_kind {
	HL_DELIVERED = 1,     /* it reached the contact's phone or mailbox */
	HL_UNDELIVERED,       /* it was taken, then failed on the way */
	HL_BOUNCED,           /* the address does not take mail (e-mail) */
};

struct hl_report {
	const char *channel;
	int64_t location_id;
	const char *reference;
	enum hl_report_kind kind;
	const char *reason;    /* in the provider's words, or NULL */
};

struct hl_inbox {
	/* 0, or a negative HL_E code (the hook answers 500 and its
	 * provider tries again later). */
	int (*receive)(struct hl_req *req, const struct hl_incoming *m);
	/* 0 also when no message has the reference (it is not ours). */
	int (*report)(struct hl_req *req, const struct hl_report *r);
};

/* In a provider's hook: hand `m` (or `r`) to the inbox; the request is
 * one of m's sub-account from then on (a second sub-account in the same
 * request is HL_EINVAL). 0; HL_ENOENT when no loaded module keeps
 * messages; what the inbox returned. */
HL_API int hl_receive(struct hl_req *req, const struct hl_incoming *m);
HL_API int hl_report(struct hl_req *req, const struct hl_report *r);
/* ABI 1.19. In a public route that has proved which sub-account it acts
 * for (a provider's signature, a link the server signed): the request is
 * one of `location` from then on, as hl_receive makes it, so that scoped
 * statements and services (hl_call) work for it. 0; HL_EINVAL for no
 * sub-account or when the request is already one of another. */
HL_API int hl_hook_location(struct hl_req *req, int64_t location);

/* Services (ABI 1.18): a function a module offers the others by name,
 * since no module includes another's header. It takes and gives a JSON
 * object's text, so that caller and callee agree on members, not on a
 * struct: the callee documents them beside its table. It runs in the
 * caller's request (its sub-account, its write transaction).
 *     static const struct hl_service services[] = {
 *             { "contacts.find_or_add", find_or_add } };
 *     HL_MODULE(..., .services = HL_TABLE(services)); */
struct hl_service {
	const char *name;   /* "module.verb": the module's name first */
	/* 0 with *out a JSON object's text (in the request's arena), or a
	 * negative HL_E code (HL_EINVAL for members it cannot take). */
	int (*call)(struct hl_req *req, const char *in, const char **out);
};

/* Call service `name` with `in` (a JSON object's text): what it returns;
 * HL_ENOENT when no loaded module offers it. */
HL_API int hl_call(struct hl_req *req, const char *name, const char *in, const char **out);

/* The address people and providers reach this server at, the setting
 * public_url ("https://crm.example.com", no "/" at the end), for links
 * in messages and the callbacks a provider is told to call; "" when it
 * is not set. Any thread. */
HL_API const char *hl_public_url(void);

/* In prepare. Memory that lives as long as the send; never NULL (as
 * hl_alloc). */
HL_API void *hl_send_alloc(struct hl_send *s, size_t n);
HL_API char *hl_send_sprintf(struct hl_send *s, const char *fmt, ...) HL_PRINTF(2, 3);
/* An HTTP request: `method` ("POST"), an http:// or https:// `url`, and a
 * body of `len` bytes of `content_type` (NULL body: none). Redirects are
 * not followed. 0, or HL_EINVAL (logged) for another scheme. */
HL_API int hl_send_http(struct hl_send *s, const char *method, const char *url,
			const char *content_type, const void *body, size_t len);
/* A header line of the HTTP request ("Accept: application/json"). */
HL_API int hl_send_header(struct hl_send *s, const char *line);
/* An SMTP submission to a relay: `url` smtp://host:port (STARTTLS is
 * required) or smtps://host:port; the envelope's sender and the
 * NULL-terminated recipients; `message` the whole RFC 5322 message (CRLF
 * line ends). 0, or HL_EINVAL (logged) for another scheme. */
HL_API int hl_send_smtp(struct hl_send *s, const char *url, const char *from,
			const char *const *to, const void *message, size_t len);
/* The user and password for HTTP basic authentication or SMTP AUTH. */
HL_API void hl_send_auth(struct hl_send *s, const char *user, const char *password);
/* A file of certificate authorities the server's certificate must chain
 * to, instead of the system's (a relay with a private authority). */
HL_API void hl_send_ca_file(struct hl_send *s, const char *path);
/* ABI 1.19. The provider's id of the message when it is known before it
 * leaves (an e-mail's Message-ID): the outcome's reference when it is
 * sent and conclude names none. */
HL_API void hl_send_reference(struct hl_send *s, const char *reference);
/* Why prepare refused (HL_ENOENT, HL_EINVAL): the sentence hl_job_send
 * gives its caller. */
HL_API void hl_send_refuse(struct hl_send *s, const char *fmt, ...) HL_PRINTF(2, 3);

/* In conclude. The answer's status (HTTP's, or the SMTP server's last
 * reply code), 0 when none came; why the request failed before an answer
 * ("Connection refused", "Timeout was reached"), or NULL; the answer's
 * body (at most 64 KB kept, NUL-terminated; for SMTP the relay's last
 * reply line, "550 5.1.1 <ann@example.com>: Recipient address rejected",
 * which is also the reason of the default outcome of a refusal). */
HL_API long hl_send_status(const struct hl_send *s);
HL_API const char *hl_send_error(const struct hl_send *s);
HL_API const char *hl_send_answer(const struct hl_send *s, size_t *len);
/* A header of the answer (case-insensitive name), or NULL. */
HL_API const char *hl_send_answer_header(const struct hl_send *s, const char *name);
/* What it means: sent, with the provider's id of it (NULL: none); to be
 * tried again (after `after_s` seconds the provider asked, 0: the owner's
 * back-off), with the reason; failed for good, with the reason. The last
 * call counts. */
HL_API void hl_send_sent(struct hl_send *s, const char *reference);
HL_API void hl_send_later(struct hl_send *s, unsigned after_s, const char *fmt, ...)
	HL_PRINTF(3, 4);
HL_API void hl_send_failed(struct hl_send *s, const char *fmt, ...) HL_PRINTF(2, 3);

/* ---------------------------------------------------------------------------
 * Pages. A module ships the browser pages of its feature as ES modules in
 * its webui/ folder, installed into the server's web folder under
 * modules/NAME/, and declares them here. GET /api/pages answers the pages
 * the enabled modules offer the caller, in menu order (order, then module
 * load order, then table order); the browser's shell builds its menu and
 * its routes from that answer and loads a page's script when it is opened
 * (see the README for the script's shape). A page is a convenience for
 * people, not a permission: the routes its script calls check access.
 */
struct hl_page {
	/* "/contacts" or "/contacts/:id": the page's address under /app, of
	 * literal and :param segments like a route's pattern; unique among
	 * every module's pages (":param" names do not count). */
	const char *path;
	/* "contacts.js": a file of the module's webui/ folder, a plain name
	 * of [A-Za-z0-9._-] ending in ".js" (no folder, no "..", no leading
	 * dot); the answer gives its URL, content-hashed when the folder was
	 * built with a manifest. */
	const char *script;
	/* "Contacts": its menu entry; NULL for a page with no entry (a
	 * record's page, reached by a link). At most 64 characters. */
	const char *label;
	/* Who sees it, with the rules of routes: the zero value is every
	 * signed-in user; HL_ACCESS_LOCATION_ADMIN pages are shown to location
	 * admins when the request names a location they may open (the
	 * browser's current one) and to agency admins always. */
	enum hl_access access;
	int order;          /* menu position, lower first */
	/* ABI 1.6. "/api/dashboard": the GET the page's script makes first
	 * when it opens, or NULL. The app's first answer tells the browser
	 * each page's script and data, so a signed-in browser opening the
	 * page asks for both beside /api/auth/me instead of one after the
	 * other; the script must then ask for exactly this path, its :param
	 * segments the page's, with the page address's query (less
	 * `location`) in the same order, or the early answer goes unused. An
	 * absolute path of [A-Za-z0-9/._:-] under /api/, without "..". */
	const char *data;
	/* ABI 1.6. NULL, or up to 8 file names, then NULL:
	 * the .js and .css files the page's script loads as it opens, fetched
	 * beside it for the same reason. Plain names like `script`'s, of the
	 * module's webui/ folder ("dashboard.css"), or of the shell's with a
	 * leading "/" ("/chart.js"). */
	const char *const *uses;
	/* ABI 1.7. 0, or HL_PAGE_PHONE_HOME: on a screen at most 600 CSS
	 * pixels wide the app opens this page at /app instead of the first
	 * menu entry (the first such page in menu order that the user may
	 * see; a page with a menu entry and no :param). ABI 1.13: or with
	 * HL_PAGE_ALL_RECORDS: the page shows everyone's records (its routes
	 * refuse a user who sees only what is assigned to them), so it is
	 * not offered to such a user. */
	unsigned flags;
	/* ABI 1.27. "search.js": a file of the module's webui/ folder (a
	 * plain name, like `script`'s) that answers the header's search for
	 * this menu entry's records, or NULL. Only on a page with a label: the
	 * results are grouped under it. The shell imports it when a person
	 * first searches and calls its default export as
	 *     search(q, {api, signal, limit}) -> [{title, detail, path}]
	 * with what they typed, the API client of the current sub-account
	 * and a signal aborted when a newer search supersedes this one; each
	 * result is shown as its title (and detail) and opens the page at
	 * `path` ("/contacts/12"). The file asks the module's own routes, so
	 * their rules (the sub-account, records assigned to the user) hold. */
	const char *search;
};

#define HL_PAGE_PHONE_HOME 1u
#define HL_PAGE_ALL_RECORDS 2u

/* ---------------------------------------------------------------------------
 * The module descriptor. Its first five fields never move: the core reads
 * them before it calls any function of the module.
 */
/* ABI 1.14. A table handed over in the descriptor: its entries, how
 * many, and the size of one as the module was built (so that the structs
 * can grow: see below). HL_TABLE(routes) makes one of an array. */
struct hl_table {
	const void *entries;
	size_t count;
	size_t size;
};
#define HL_TABLE(t) { (t), sizeof(t) / sizeof((t)[0]), sizeof((t)[0]) }

struct hl_module {
	uint16_t abi_major;        /* HL_ABI_MAJOR the module was built with */
	uint16_t abi_minor;        /* HL_ABI_MINOR the module was built with */
	uint32_t size;             /* sizeof(struct hl_module) at build time */
	const char *name;          /* "contacts": matches plugins.d/NAME.conf */
	const char *version;       /* the module's own version, "1.0.0" */
	const char *const *requires; /* NULL-terminated module names, or NULL */
	int (*init)(struct hl_mod *mod); /* registers the rest (below); 0 or HL_E;
	                                  * NULL when the tables say it all */
	const char *summary;       /* one line for `hyperlevel modules` */
	/* ABI 1.9. NULL-terminated names of modules this one uses when they
	 * are loaded and works without (leaving out what they would add,
	 * and saying so in its answers), or NULL; at most 32. Those that load
	 * are initialised first (unless they require this one); ask
	 * hl_module_loaded in init. A module whose
	 * required module is disabled is not loaded either (a warning); one
	 * whose requirement is missing or refused is refused. */
	const char *const *wants;
	/* ABI 1.14. What a module registers whatever its settings, as data:
	 * each table is added as hl_add_migrations, hl_add_routes,
	 * hl_add_jobs, hl_add_event_handlers and hl_add_pages would add it, in
	 * that order, before init runs. init is left for what depends on a
	 * setting or on another module being loaded. */
	struct hl_table migrations, routes, jobs, handlers, pages;
	/* ABI 1.15. struct hl_recount entries: what the module keeps by day,
	 * made again when a sub-account's time zone changes. */
	struct hl_table recounts;
	/* ABI 1.18. struct hl_channel entries: the channels this module
	 * delivers (see "Sending"). */
	struct hl_table channels;
	/* ABI 1.18. One struct hl_inbox: this module keeps the messages
	 * providers hear (see "What comes back"). */
	struct hl_table inbox;
	/* ABI 1.18. struct hl_service entries: what it offers other
	 * modules by name (see "Services"). */
	struct hl_table services;
	/* ABI 1.22. struct hl_record_kind entries: the records people know
	 * (see below). */
	struct hl_table records;
	/* ABI 1.25. struct hl_event_line entries: how this module's events
	 * read to a person (see below). */
	struct hl_table event_lines;
};

/* ABI 1.25. How an event of this module reads to a person, on the
 * timeline of the contact it is about ("Deal Website moved to Won"), and
 * which page it links to, so that a module that shows others' events
 * never reads their tables: `sql`, one statement with :location (a
 * module with an entry whose SQL does not name it is refused at load),
 * :subject (hl_event.subject_id) and :data (its data,
 * for json_extract), answering the line (text) and the link (an app
 * path such as '/opportunities/' || :subject, or NULL), or no row when
 * the event is not worth a line. It runs in the transaction of the
 * handler that asks (hl_job_event_line), so it reads the record as it is
 * when the event is handled. `event` is a full event name; an event two
 * entries name reads by the first loaded. Entries without both are
 * passed over. For example:
 *     { "invoice.paid", "SELECT 'Invoice ' || number || ' paid',"
 *       " '/invoices/' || id FROM invoices WHERE id = :subject"
 *       " AND location_id = :location" } */
struct hl_event_line {
	const char *event;
	const char *sql;
};

/* ABI 1.22. A kind of record people know, as the audit log names it.
 * When a module's route writes (this module's or another's: the agency
 * module edits contacts too), the audit log notes each row added,
 * changed or deleted in `table` as "<noun> <name>", the name read by
 * `name_sql` at that moment, in the write's transaction: one statement
 * with :id, the row's id, answering one text column (an invoice's
 * number, a contact's name), or no row or NULL (then the log says
 * "<noun> #<id>"). Rows of tables no entry names (counts, caches, search
 * indexes) are not noted. A deleted row is read as it was just before:
 * `name_sql` then runs with `table` standing for a one-row table of the
 * old values, so it must name `table` unqualified and its key by its
 * column name (id), not rowid; other tables it reads are as they are
 * after the write. For example:
 *     { .table = "invoices", .noun = "invoice",
 *       .name_sql = "SELECT number FROM invoices WHERE id = :id" }
 * A table is named by one module only (HL_EEXIST); `table`, `noun` (a
 * word or two as they read mid-sentence: "invoice", "SMS account") and
 * `name_sql` are required (HL_EINVAL). A
 * `name_sql` that does not prepare is logged at start and the rows of
 * its table are noted without a name. */
struct hl_record_kind {
	const char *table;
	const char *noun;
	const char *name_sql;
};

/* ABI 1.15. Counts kept by the sub-account's days (local_day, below) are
 * made again when its time zone changes: each entry's `sql`, one
 * statement with :location, runs in the transaction that changes the
 * zone, after the new zone is written, in module load order then table
 * order. A count kept by triggers is typically deleted by one entry and
 * made again from its records by the next, through what its triggers
 * write (the contacts module's view contact_day_moves turns a time into
 * the day it counts on):
 *     { "contact_days", "DELETE FROM contact_days WHERE location_id = :location" },
 *     { "contact_days", "INSERT INTO contact_day_moves SELECT location_id,"
 *       " created_at, 1 FROM contacts WHERE location_id = :location ..." }
 * A failing entry (logged, with its name) refuses the change. */
struct hl_recount {
	const char *name;
	const char *sql;
};

#define HL_MODULE(...)                                                      \
	HL_API const struct hl_module hl_module = {                         \
		.abi_major = HL_ABI_MAJOR,                                  \
		.abi_minor = HL_ABI_MINOR,                                  \
		.size = sizeof(struct hl_module),                           \
		__VA_ARGS__                                                 \
	}

/* How the tables grow. Every table a module hands the core (the
 * descriptor and the routes, migrations, jobs, event handlers and pages)
 * is read by the size the module was built with: the descriptor's `size`,
 * the element size the hl_add_* macros pass. The core copies each entry
 * into a zeroed struct of its own, so:
 *   - a later minor only ever adds members at the end of a struct, and a
 *     member's zero value is always its old behaviour; members never move
 *     or change type within a major;
 *   - a module built for an older minor keeps loading: what it did not
 *     have reads as zero;
 *   - an entry smaller than the sizes below, those of the minor that
 *     introduced the struct, is refused (HL_EABI).
 * A struct a module hands over in a call (struct hl_incoming, to
 * hl_receive) is read the same way, by the minor of the module whose
 * route makes the call.
 * These sizes are frozen: they are the end of the last member each struct
 * had in that minor, whatever is added after it. */
#define HL_MODULE_SIZE_1_0 (offsetof(struct hl_module, summary) + sizeof(const char *))
#define HL_ROUTE_SIZE_1_0 (offsetof(struct hl_route, reads) + sizeof(const char *))
#define HL_MIGRATION_SIZE_1_0 (offsetof(struct hl_migration, sql) + sizeof(const char *))
#define HL_JOB_SIZE_1_0 (offsetof(struct hl_job, slice) + sizeof(void (*)(void)))
#define HL_EVENT_HANDLER_SIZE_1_1 \
	(offsetof(struct hl_event_handler, handle) + sizeof(void (*)(void)))
#define HL_PAGE_SIZE_1_5 (offsetof(struct hl_page, order) + sizeof(int))
#define HL_CHANNEL_SIZE_1_18 (offsetof(struct hl_channel, max_in_flight) + sizeof(unsigned))
#define HL_INCOMING_SIZE_1_18 \
	(offsetof(struct hl_incoming, consent) + sizeof(enum hl_consent_change))
#define HL_INBOX_SIZE_1_18 (offsetof(struct hl_inbox, report) + sizeof(void (*)(void)))
#define HL_SERVICE_SIZE_1_18 (offsetof(struct hl_service, call) + sizeof(void (*)(void)))
#define HL_RECORD_KIND_SIZE_1_22 (offsetof(struct hl_record_kind, name_sql) + sizeof(const char *))
#define HL_EVENT_LINE_SIZE_1_25 (offsetof(struct hl_event_line, sql) + sizeof(const char *))

/* Registration, allowed only inside init. Each takes a whole table; the
 * macros pass the element size so the structs can grow in later minors.
 * Fails with HL_EEXIST for a route another module (or this one) already
 * has, a job or migration name used twice; HL_EINVAL for a malformed entry;
 * HL_ESTATE outside init. A failed call fails the module's load even if
 * init ignores it; then nothing the module registered remains. */
#define hl_add_routes(mod, table) \
	hl_add_routes_((mod), (table), sizeof(table) / sizeof((table)[0]), sizeof((table)[0]))
#define hl_add_migrations(mod, table) \
	hl_add_migrations_((mod), (table), sizeof(table) / sizeof((table)[0]), sizeof((table)[0]))
#define hl_add_jobs(mod, table) \
	hl_add_jobs_((mod), (table), sizeof(table) / sizeof((table)[0]), sizeof((table)[0]))
#define hl_add_event_handlers(mod, table) \
	hl_add_event_handlers_((mod), (table), sizeof(table) / sizeof((table)[0]), sizeof((table)[0]))
#define hl_add_pages(mod, table) \
	hl_add_pages_((mod), (table), sizeof(table) / sizeof((table)[0]), sizeof((table)[0]))
HL_API int hl_add_routes_(struct hl_mod *mod, const struct hl_route *t, size_t n, size_t size);
HL_API int hl_add_migrations_(struct hl_mod *mod, const struct hl_migration *t, size_t n, size_t size);
HL_API int hl_add_jobs_(struct hl_mod *mod, const struct hl_job *t, size_t n, size_t size);
HL_API int hl_add_event_handlers_(struct hl_mod *mod, const struct hl_event_handler *t,
				  size_t n, size_t size);
/* Pages (ABI 1.5): HL_EINVAL, logged with the module and the entry, for a
 * path, script, label or access that breaks the rules of struct hl_page;
 * HL_EEXIST for a path another page (of any module, or the core's) has. */
HL_API int hl_add_pages_(struct hl_mod *mod, const struct hl_page *t, size_t n, size_t size);

/* ABI 1.9. Inside a handler: the member "absent_modules": [names] of the
 * modules that the route's module wants and that are not loaded, written
 * into the object being written when there are any (nothing otherwise):
 * how an answer says why some of its figures are null. */
HL_API void hl_json_absent_modules(struct hl_req *req, struct hl_json *j);
/* ABI 1.9. Inside init: 1 when module `name`, one this module requires
 * or wants, is loaded, 0 when it is not; HL_EINVAL (logged) for a name
 * the descriptor lists in neither; HL_ESTATE outside init. The answer is
 * final: a wanted module is initialised first, unless it requires this
 * one (directly or not), in which case it is initialised after it and
 * counts as absent to this module for the life of the process. */
HL_API int hl_module_loaded(struct hl_mod *mod, const char *name);

/* Settings from plugins.d/NAME.conf, read inside init. hl_setting returns
 * the value or `def` when the file does not set it; the string lives as long
 * as the process. A key the file sets but the module never asks for stops
 * the start (it is most likely a typo). hl_setting_int fails with HL_EINVAL,
 * after logging the file, line and key, when the value is not an integer in
 * [min, max]. */
HL_API const char *hl_setting(struct hl_mod *mod, const char *key, const char *def);
HL_API int hl_setting_int(struct hl_mod *mod, const char *key, long long def,
			  long long min, long long max, long long *out);

/* Log a line prefixed with "[module] "; any thread. */
HL_API void hl_log(const char *module, const char *fmt, ...) HL_PRINTF(2, 3);

/* ---------------------------------------------------------------------------
 * The request context.
 */

/* Request memory: freed by the core after the answer. Never NULL: when
 * memory runs out, or for an absurd size, the process stops with a log line
 * (as Redis does), since request sizes are bounded by the core's limits. */
HL_API void *hl_alloc(struct hl_req *req, size_t n);
HL_API char *hl_strndup(struct hl_req *req, const char *s, size_t n);
HL_API char *hl_sprintf(struct hl_req *req, const char *fmt, ...) HL_PRINTF(2, 3);
/* ABI 1.27. `s` as HTML text or an attribute's value (&, <, >, " and '
 * written as entities), in request memory; "" for NULL: what a public
 * page of plain HTML puts its values in with. */
HL_API const char *hl_html_text(struct hl_req *req, const char *s);

HL_API const char *hl_method(const struct hl_req *req);
/* The raw path, still percent-encoded. */
HL_API const char *hl_path(const struct hl_req *req);
/* A :param of the route's pattern, percent-decoded; NULL if no such name
 * or when the value holds a bad escape, %00 or bytes that are not UTF-8. */
HL_API const char *hl_param(struct hl_req *req, const char *name);
/* A query parameter, percent-decoded ('+' is a space); the first one when
 * repeated; NULL when absent. Always UTF-8 without NUL: the core answers
 * 400 for a query string that decodes to anything else. */
HL_API const char *hl_query(struct hl_req *req, const char *name);
/* Every value of a repeated query parameter (?tag=a&tag=b); returns the
 * count and sets *values to an arena array. */
HL_API int hl_query_all(struct hl_req *req, const char *name, const char ***values);
/* A request header (case-insensitive name), or NULL. */
HL_API const char *hl_header(const struct hl_req *req, const char *name);

/* Integer parameters. On bad input they answer for the handler and return
 * HL_EINVAL, which the handler returns (or 0): hl_param_id answers 404 (a
 * path naming no record), hl_query_int 400 naming the parameter and the
 * range. */
HL_API int hl_param_id(struct hl_req *req, const char *name, int64_t *out);
HL_API int hl_query_int(struct hl_req *req, const char *name, int64_t def,
			int64_t min, int64_t max, int64_t *out);
/* A keyset page's opaque cursor, the query parameter `name`. A list
 * writes it in SQL as hex(json_array(sort key..., id)) (a "_cursor" column
 * for hl_reply_page) and reads it back here as the JSON text, whose values
 * SQLite takes apart with json_extract. `shape` says what the list wrote,
 * a letter per member: 'i' a row id (an integer from 1), 's' a string or
 * null, 'n' a 64-bit integer or null, '*' any number, string or null. *out is NULL when absent;
 * on anything else than hex of a JSON array of that shape (a forged or
 * stale cursor) it answers 400 and returns HL_EINVAL, so a list's
 * statement never meets JSON SQLite cannot read. */
HL_API int hl_query_keyset(struct hl_req *req, const char *name, const char *shape,
			   const char **out);
/* hl_query_keyset with any shape: 1 to 8 strings, numbers or nulls. For
 * modules built before ABI 1.4; a list should say its shape. */
HL_API HL_DEPRECATED("use hl_query_keyset, with the cursor's shape")
int hl_query_cursor(struct hl_req *req, const char *name, const char **out);
/* A date or time in the query, read as hl_field_time reads one; *out is
 * NULL when absent; otherwise 400 and HL_EINVAL. */
HL_API int hl_query_time(struct hl_req *req, const char *name, const char **out);

/* The raw body (any route) and its length. */
HL_API const char *hl_body(const struct hl_req *req, size_t *len);

/* The signed-in user and the current location the core resolved before
 * the handler ran; 0 when none. A route with the default access always has
 * both: the location is one the user may open (an agency user picks it with
 * the X-Location-Id header or the location_id query parameter, others
 * default to their first location), so scoping every query by
 * hl_location_id(req) is enough to keep sub-accounts apart. */
HL_API int64_t hl_user_id(const struct hl_req *req);
HL_API int64_t hl_location_id(const struct hl_req *req);
/* ABI 1.15. The days of the request's sub-account, in its time zone:
 * what "today", "this week" and every by-day figure mean for it. Days are
 * numbered from 1970-01-01 (day 0), as SQLite's unixepoch() / 86400 would
 * number them in UTC; a day lasts 23, 24 or 25 hours.
 *   hl_location_zone: its IANA name, "UTC" without a sub-account
 *   hl_local_day: the day `t` (seconds since 1970) falls on
 *   hl_day_start: the first second of `day` (its midnight)
 * In SQL, on every connection, for triggers, views and the agency's
 * queries across sub-accounts:
 *   local_day(t, zone)   as hl_local_day, for `zone` ("UTC" or NULL: UTC)
 *   day_start(day, zone) as hl_day_start
 * e.g. local_day(unixepoch(new.created_at), (SELECT timezone FROM
 * locations WHERE id = new.location_id)). The arithmetic is libical's,
 * over the system's tz database. */
HL_API const char *hl_location_zone(struct hl_req *req);
HL_API int64_t hl_local_day(struct hl_req *req, int64_t t);
HL_API int64_t hl_day_start(struct hl_req *req, int64_t day);
/* ABI 1.19. Phone numbers are kept in E.164 ("+15550102000"), the form
 * providers send to and report from, so a number matches however it was
 * typed. hl_location_country is the request's sub-account's country, an
 * ISO 3166-1 code ("US"; "US" without a sub-account). hl_phone_e164 reads
 * `typed` ("(555) 010-2000", "030 1234567") into `out`: a number without
 * its country code is read as national in `country` (NULL: none is, and
 * only numbers written with + or 00 are read); HL_EINVAL for what is not
 * a phone number. In SQL, on every connection: e164(phone, country), NULL
 * for what is not one. */
#define HL_PHONE_MAX 17
HL_API const char *hl_location_country(struct hl_req *req);
HL_API int hl_phone_e164(const char *typed, const char *country, char out[HL_PHONE_MAX]);
/* ABI 1.23. `text` (UTF-8) as a search compares it, into `out` (`size`
 * bytes, its NUL included): case folded, accents taken off, look-alike
 * punctuation and compatibility forms made one ("José" and "JOSE" are
 * "jose", "Straße" is "strasse", "O’Brien" is "o'brien"). A search index
 * holds its text folded and a query is folded the same way, so each finds
 * the other however it was typed. Its length; HL_ETOOBIG when it does not
 * fit (a text folds to about its own length, but a few rare signs fold to
 * many letters), HL_EINVAL for what is not UTF-8, HL_ENOMEM. Any thread.
 * In SQL, on every connection: fold(text), NULL for NULL. */
HL_API int hl_fold(const char *text, char *out, size_t size);
/* ABI 1.24. What a person typed into a search, as an index of folded
 * lines (hl_fold) is asked: folded from 3 characters on (a shorter one is
 * a prefix of names, kept as typed); LIKE's % and _ taken out (a person
 * does not mean them); a phone number written with spaces, dashes, dots
 * or brackets, 7 digits or more, as its digits ("(512) 867-5309" is
 * "5128675309", which "+15128675309" holds). In the request's memory;
 * NULL for text that is not UTF-8. */
HL_API const char *hl_search_text(struct hl_req *req, const char *typed);
/* Whether the user may see only records assigned to them (modules with
 * an owner or assignee column filter by hl_user_id when this is set). */
HL_API int hl_assigned_only(const struct hl_req *req);
/* The caller's id when they see only records assigned to them, else 0:
 * the value to filter an owner or assignee column by (":me = 0 OR
 * owner_id = :me"). It asks for the id only for such callers, so the
 * answers of everyone else stay cacheable (see hl_route.cache_ms). */
HL_API int64_t hl_assigned_user(struct hl_req *req);
/* ABI 1.13. The answer being made is not to be kept by the read cache:
 * it reads tables the route's `reads` does not name, for this caller
 * only. For figures an "assigned only" caller gets counted from their own
 * rows, where everyone else reads counts a module keeps: naming the rows'
 * tables in `reads` would drop everyone's cached answers at each write. */
HL_API void hl_answer_uncached(struct hl_req *req);
/* Whether `user` is an active user of the location's agency who may open
 * `location` (an agency user, or one given that location): the check for
 * an owner or an assignee a record is given. 1, 0, or HL_EDB. `db`: the
 * request's (hl_read) or a job's. */
HL_API int hl_user_in_location(struct hl_db *db, int64_t location, int64_t user);
/* A user id in the query, or "me" for the caller: *out is 0 when absent;
 * otherwise 400 and HL_EINVAL. */
HL_API int hl_query_user(struct hl_req *req, const char *name, int64_t *out);

/* The modules the server found, for an answer that shows them: module
 * `i` (0 for the first, in the order of their names), its name, its
 * version (NULL when its file was never opened: a disabled module) and
 * its state: "loaded", "disabled" (enabled = no) or "refused" (it failed
 * a check; the log says why). The strings live as long as the process;
 * the list does not change once the server has started. Any thread. 0,
 * or HL_ENOENT when there is no module `i`. */
HL_API int hl_module_info(struct hl_req *req, int i, const char **name, const char **version,
			  const char **state);

/* ---------------------------------------------------------------------------
 * Reading a JSON body. The core parses the body of a JSON route before the
 * handler runs (invalid JSON, or nesting deeper than 64, is answered 400, an
 * oversized body 413, a non-JSON content type 415). Values are addressed by token index; the root
 * is index 0. Lookups return -1 when absent.
 */
enum hl_json_type { HL_JSON_NONE, HL_JSON_OBJECT, HL_JSON_ARRAY,
		    HL_JSON_STRING, HL_JSON_NUMBER, HL_JSON_BOOL, HL_JSON_NULL };

HL_API enum hl_json_type hl_body_type(struct hl_req *req, int tok);
/* The value of `key` in the object at `obj`, or -1. */
HL_API int hl_body_find(struct hl_req *req, int obj, const char *key);
/* Number of members (object) or elements (array) at `tok`. */
HL_API int hl_body_count(struct hl_req *req, int tok);
/* The i-th element of the array at `arr`, or -1. Asking for i + 1 after i
 * costs one step, so a loop over an array is linear. */
HL_API int hl_body_index(struct hl_req *req, int arr, int i);
/* A string value, unescaped into the arena (NULL if not a string). */
HL_API const char *hl_body_string(struct hl_req *req, int tok);
/* An integer value; HL_EINVAL if not a number or not an integer in range. */
HL_API int hl_body_int(struct hl_req *req, int tok, int64_t *out);
/* ABI 1.24. A number with at most `places` (0 to 18) decimals and no
 * exponent, read exactly as an integer in units of 10^-places: 1.5 at 3
 * places is 1500 (a quantity of 1.5 hours, in thousandths). HL_EINVAL for
 * anything else or past int64. */
HL_API int hl_body_decimal(struct hl_req *req, int tok, int places, int64_t *out);
HL_API int hl_body_bool(struct hl_req *req, int tok, int *out);

/* Checking the members of an object in the body (`obj`: a token, 0 for
 * the root). On bad input each answers 422 with the member's name and what
 * it must be ("email: not an e-mail address"), and returns HL_EINVAL; the
 * handler then returns 0. Otherwise they return HL_FIELD_ABSENT,
 * HL_FIELD_NULL (a JSON null: *out is NULL or 0) or HL_FIELD_SET, so a
 * PATCH can tell "leave" from "clear". */
enum { HL_FIELD_ABSENT = 0, HL_FIELD_NULL = 1, HL_FIELD_SET = 2 };
/* `obj` must be an object whose members are all named in `keys` (NULL-
 * terminated): a misspelt member is refused, not silently ignored. */
HL_API int hl_fields_only(struct hl_req *req, int obj, const char *const *keys);
/* Text of at most `max` characters (code points), any UTF-8. */
HL_API int hl_field_text(struct hl_req *req, int obj, const char *key, size_t max,
			 const char **out);
/* An integer in [min, max]. */
HL_API int hl_field_int(struct hl_req *req, int obj, const char *key, int64_t min,
			int64_t max, int64_t *out);
HL_API int hl_field_bool(struct hl_req *req, int obj, const char *key, int *out);
/* An ISO 8601 date ("2026-11-29": its midnight) or time (with seconds,
 * fractions and an offset optional: "2026-11-29T10:30+01:00"), a real one
 * (not February 30), as the tables keep times: UTC with milliseconds,
 * "2026-11-29T09:30:00.000Z", which compares and sorts as text. */
HL_API int hl_field_time(struct hl_req *req, int obj, const char *key, const char **out);
/* `t` (seconds since 1970) as the tables keep times, to the second:
 * "2026-11-29T09:30:00.000Z", NUL-terminated in `out`; empty outside the
 * years 0 to 9999. Any thread. */
HL_API void hl_time_text(time_t t, char out[32]);
/* SQL for now as the tables keep times. A statement that compares with it
 * reads SQLite's clock, which stands still for the length of a step: what
 * it counts before now meets what a view counts by the same clock (the
 * tasks module's overdue_task_totals), with no time bound from C. */
#define HL_SQL_NOW "strftime('%Y-%m-%dT%H:%M:%fZ')"
/* Deprecated in 1.17: a UTC day is no sub-account's day. A module using
 * them is warned (as HL_DEPRECATED warns) and still builds. */
#define HL_SQL_TODAY                                                         \
	_Pragma("GCC warning \"HL_SQL_TODAY is deprecated: use HL_SQL_LOCAL_TODAY\"") \
	"strftime('%Y-%m-%dT00:00:00.000Z')"
#define HL_SQL_TOMORROW                                                      \
	_Pragma("GCC warning \"HL_SQL_TOMORROW is deprecated: use HL_SQL_LOCAL_TOMORROW\"") \
	"strftime('%Y-%m-%dT00:00:00.000Z', 'now', '+1 day')"
/* ABI 1.15. The same in a sub-account's time zone (hl_local_day): the
 * midnight `days_ahead` days after today's in the zone SQL `zone` names,
 * as the tables keep times; HL_SQL_LOCAL_TODAY and _TOMORROW for a
 * statement with :location. A query across sub-accounts names each one's
 * zone: HL_SQL_MIDNIGHT("loc.timezone", 0). */
#define HL_SQL_ZONE "(SELECT timezone FROM locations WHERE id = :location)"
#define HL_SQL_MIDNIGHT(zone, days_ahead)                                    \
	"strftime('%Y-%m-%dT%H:%M:%fZ', day_start(local_day(unixepoch(), " zone \
	") + " #days_ahead ", " zone "), 'unixepoch')"
#define HL_SQL_LOCAL_TODAY HL_SQL_MIDNIGHT(HL_SQL_ZONE, 0)
#define HL_SQL_LOCAL_TOMORROW HL_SQL_MIDNIGHT(HL_SQL_ZONE, 1)
/* Whether `s` has the shape of an e-mail address (one @, a dot in the
 * domain, no spaces); the one check every module uses. */
HL_API int hl_is_email(const char *s);
/* The characters (code points) of UTF-8 text: what every length limit
 * counts, so "at most 200 characters" means the same to everyone. */
HL_API size_t hl_text_length(const char *s);

/* ---------------------------------------------------------------------------
 * Answers. The core adds the status line, Content-Length, the security
 * headers and the rest; a module never writes a header by hand.
 */

/* Start a JSON answer with `status`; write the value with hl_json_*. */
HL_API struct hl_json *hl_reply_json(struct hl_req *req, int status);
/* Answer {"error":{"code":code,"message":...}} with `status`; returns 0 so
 * a handler can `return hl_reply_error(...)`. A 503 (busy: try again)
 * says Retry-After: 1. */
HL_API int hl_reply_error(struct hl_req *req, int status, const char *code,
			  const char *fmt, ...) HL_PRINTF(4, 5);
/* ABI 1.9. Answer 422 {"error":{"code":"validation","message":"MEMBER:
 * what"}}, the shape hl_field_* answer and the app shows beside the field
 * it names ("email: not an e-mail address"; a nested member is
 * "custom_fields.size"). Returns HL_EINVAL, so that a check can `return
 * hl_reply_invalid(...)` up to the handler, which may return it too. */
HL_API int hl_reply_invalid(struct hl_req *req, const char *member, const char *fmt, ...)
	HL_PRINTF(3, 4);
/* ABI 1.9. Answer 204 No Content (a DELETE done, say); returns 0. */
HL_API int hl_reply_empty(struct hl_req *req);
/* Answer with a body of the given media type. The body is copied; the
 * content_type string must outlive the request (use a literal). HL_ENOMEM
 * when the copy fails. */
HL_API int hl_reply_raw(struct hl_req *req, int status, const char *content_type,
			const void *body, size_t len);

/* ABI 1.26. After hl_reply_raw: the answer is a file to save, not to
 * show (Content-Disposition: attachment), named `name`, of letters,
 * digits, ".", "_" and "-" only, at most 100 bytes ("INV-00042.pdf").
 * 0, or HL_EINVAL (logged) for another name or before an answer. */
HL_API int hl_reply_download(struct hl_req *req, const char *name);
/* ABI 1.26. After hl_reply_raw: the answer's Content-Security-Policy
 * instead of the app's, for a public page that carries its own style
 * (allowed by its hash); `csp` must outlive the request (a literal, or
 * made once in init) and hold no line break. 0, or HL_EINVAL (logged). */
HL_API int hl_reply_csp(struct hl_req *req, const char *csp);

/* Answer a list in the API's shape, {"data": [...], "next_cursor": ...}:
 * up to `limit` rows of `st` as hl_json_row objects. When a further row
 * exists, next_cursor is the text of column `cursor_col` of the last row
 * written (so select limit + 1 rows), otherwise null; a list that is never
 * paged passes INT64_MAX. 0 or HL_EDB (ABI 1.16: also for a NULL `st`,
 * before anything is written, so that the hl_scoped_read before needs no
 * check of its own). */
HL_API int hl_reply_page(struct hl_req *req, sqlite3_stmt *st, int64_t limit, int cursor_col);
/* The same with "total": `total` (when asked with count=1, say); a
 * negative total is left out. */
HL_API int hl_reply_page_total(struct hl_req *req, sqlite3_stmt *st, int64_t limit,
			       int cursor_col, int64_t total);
/* The members "data" and "next_cursor" of such a list, written into the
 * object being written, so that an answer can hold more than the list
 * (hl_reply_page is hl_reply_json, an object, this, and its end). 0 or
 * HL_EDB (the answer is then left unfinished: return the error). */
HL_API int hl_json_page(struct hl_req *req, struct hl_json *j, sqlite3_stmt *st, int64_t limit,
			int cursor_col);
/* Answer the first row of `st` as an object with `status`, or 404 with
 * "no such `what`" when there is none. 0 or HL_EDB (for a NULL `st` too). */
HL_API int hl_reply_row(struct hl_req *req, int status, sqlite3_stmt *st, const char *what);
/* ABI 1.14. One record of the current sub-account, answered as
 * hl_reply_row answers: `sql` runs as hl_scoped_read runs it, with :id
 * bound to `id` and :me to hl_assigned_user(req), so an "assigned only"
 * caller's 404 is one clause (AND (:me = 0 OR t.assignee_id = :me)).
 * 0 or HL_EDB. A write answers with its record so:
 *     return hl_reply_record(req, 201, id, "task", "SELECT " TASK_COLUMNS
 *         " FROM tasks t WHERE t.id = :id AND t.location_id = :location"
 *         " AND (:me = 0 OR t.assignee_id = :me)"); */
HL_API int hl_reply_record(struct hl_req *req, int status, int64_t id, const char *what,
			   const char *sql);
/* ABI 1.16. The same for the record the path's :id names, with 200: a
 * record's GET route in one line (404 for an id that is not one). */
HL_API int hl_reply_path_record(struct hl_req *req, const char *what, const char *sql);
/* ABI 1.14. Delete record `id` of the current sub-account, a `what`
 * ("stage"), unless it still holds others: `count_sql` (run as
 * hl_scoped_write runs it, :id bound; NULL: no check) counts them, and
 * no row is 404 "no such stage", a count 409 "the stage holds 3 deals:
 * move or delete them first" (`held` "deal"). Then each statement of
 * `deletes` (NULL-terminated, scoped, :id bound) runs in order, the last
 * deleting the record itself: no row deleted is 404. 1 when it is gone
 * (publish, then hl_reply_empty); 0 after answering; HL_EDB. */
HL_API int hl_delete_if_empty(struct hl_req *req, int64_t id, const char *what,
			      const char *count_sql, const char *held,
			      const char *const *deletes);
/* ABI 1.16. Put row `id` of `table`, a row of the current sub-account,
 * at `position` among the rows of its scope: those of the sub-account
 * whose `scope` columns (space-separated: "pipeline_id status stage_id";
 * NULL or "": the whole sub-account) hold what the row's hold, once it
 * has them (call it after the INSERT or the UPDATE that gave it its
 * scope). The table has the columns id, location_id and position (an
 * integer sort key; ties sort by id); `table` and `scope` are names, never
 * input. HL_POSITION_LAST puts the row after the last of its scope (a new
 * row's place when none is asked for, or a row moved to another scope).
 * With HL_POSITION_MAKE_ROOM in `flags`, the others of the scope at
 * `position` or after it go down by one, so the row stands before the one
 * that held it (what a board's drop sends); without, the others stay (what
 * a client that renumbers a whole list 0, 1, 2... sends). One statement,
 * run as hl_scoped_write runs it. 1 when placed, 0 when the sub-account
 * has no row `id`, HL_EDB; HL_EINVAL (logged) for a table or scope that
 * is not plain names. Inside a handler:
 *     hl_move_to_position(req, "stages", "pipeline_id", id,
 *                         has_position ? position : HL_POSITION_LAST,
 *                         HL_POSITION_MAKE_ROOM) */
#define HL_POSITION_LAST ((int64_t)-1)
#define HL_POSITION_MAKE_ROOM 1u
HL_API int hl_move_to_position(struct hl_req *req, const char *table, const char *scope,
			       int64_t id, int64_t position, unsigned flags);

/* A streamed answer, for big ones (exports): the status and headers leave
 * at once, the body in pieces as hl_stream_write is called, compressed on
 * the way (brotli or gzip, as the client accepts) for text media types,
 * and never held whole in memory. The core ends the body after the handler
 * returns; a handler that fails after hl_stream_begin leaves the body cut
 * short, which clients report as an error. The connection closes after a
 * stream. hl_stream_begin: 0, HL_ESTATE when an answer was already begun,
 * HL_ENOMEM. hl_stream_write: 0, or HL_EIO once the client has gone (stop
 * then), HL_ESTATE without hl_stream_begin. */
HL_API int hl_stream_begin(struct hl_req *req, int status, const char *content_type);
HL_API int hl_stream_write(struct hl_req *req, const void *data, size_t len);

/* CSV (RFC 4180). The writer adds rows to a streamed answer: fields with a
 * comma, a quote, CR or LF are quoted (quotes doubled), NULL and BLOBs are
 * empty, numbers are SQLite's text of them, lines end in CRLF. Text a
 * spreadsheet would run as a formula (=, +, -, @, TAB or CR first, perhaps
 * after quotes) gets one ' in front and double quotes (OWASP's guard
 * against CSV injection); hl_csv_field takes that quote off again, so an
 * export reads back unchanged. Columns whose names start with "_" are
 * left out, as in hl_json_row. 0, or what hl_stream_write returns. */
HL_API int hl_stream_csv_header(struct hl_req *req, sqlite3_stmt *st);
HL_API int hl_stream_csv_row(struct hl_req *req, sqlite3_stmt *st);
/* One line of `n` fields put together by the caller (a NULL field is
 * empty); `lens` gives their lengths, or is NULL for NUL-terminated text. */
HL_API int hl_stream_csv_fields(struct hl_req *req, const char *const *fields,
				const size_t *lens, int n);

/* The reader walks `len` bytes at `data` (not copied: keep them alive)
 * from byte `offset`, which starts line `line` (0 and 1 for the start,
 * where a UTF-8 byte order mark is skipped; a job resuming an import
 * passes what hl_csv_offset and hl_csv_line said). Quoted fields may hold
 * commas, doubled quotes and line breaks; lines end in CRLF, LF or a lone
 * CR, and are counted as an editor shows them (breaks inside quotes too).
 * A quote inside an unquoted field is kept as text. Any thread, one at a
 * time per reader; NULL when memory runs out. Close with hl_csv_close. */
struct hl_csv;
/* Whether `len` bytes at `data` are a file the reader takes as text: NULL
 * when they are UTF-8 without NUL bytes; otherwise a sentence for the
 * user saying what the file is (UTF-16, Latin-1 ...) and how to save it
 * as UTF-8, with *line set to the first line at fault (0 for the whole
 * file). Meant for an upload, before reading any record of it: a file in
 * another encoding is refused whole rather than imported in part. */
HL_API const char *hl_csv_check(const char *data, size_t len, long *line);
HL_API struct hl_csv *hl_csv_open(const char *data, size_t len, size_t offset, long line);
HL_API void hl_csv_close(struct hl_csv *csv);
/* Read the next record: its number of fields (a blank line is skipped),
 * 0 at the end, or HL_EINVAL for a malformed record (text after a closing
 * quote, a NUL byte, invalid UTF-8, more than 1000 fields, a field over
 * 1 MB, a quote left open), which hl_csv_error describes; the reader then
 * goes on at the line after that record (a quote left open takes the rest
 * of the input with it). HL_ENOMEM leaves the reader before the record,
 * to try again. */
HL_API int hl_csv_next(struct hl_csv *csv);
/* Field `i` of the current record, NUL-terminated (NULL past the last),
 * valid until the next hl_csv_next; *len (when not NULL) its length. A
 * field of one or more ' and then =, +, -, @, TAB or CR loses its first
 * ', the writer's guard against formulas. */
HL_API const char *hl_csv_field(const struct hl_csv *csv, int i, size_t *len);
/* The line the current record began on; the byte offset and line just
 * after it, to resume from; what was wrong with a malformed record (NULL
 * after any other outcome of hl_csv_next). */
HL_API long hl_csv_record_line(const struct hl_csv *csv);
HL_API size_t hl_csv_offset(const struct hl_csv *csv);
HL_API long hl_csv_line(const struct hl_csv *csv);
HL_API const char *hl_csv_error(const struct hl_csv *csv);

/* The JSON writer: call in document order; commas and escaping are done
 * for you. Strings must be UTF-8; invalid bytes become U+FFFD. */
HL_API void hl_json_object(struct hl_json *j);
HL_API void hl_json_object_end(struct hl_json *j);
HL_API void hl_json_array(struct hl_json *j);
HL_API void hl_json_array_end(struct hl_json *j);
HL_API void hl_json_key(struct hl_json *j, const char *key);
HL_API void hl_json_string(struct hl_json *j, const char *s);
HL_API void hl_json_stringn(struct hl_json *j, const char *s, size_t n);
HL_API void hl_json_int(struct hl_json *j, int64_t v);
HL_API void hl_json_double(struct hl_json *j, double v);
HL_API void hl_json_bool(struct hl_json *j, int v);
HL_API void hl_json_null(struct hl_json *j);
/* The current row of `st` as an object keyed by column name; NULL columns
 * are null, integers and reals numbers, text strings, BLOBs null. Names
 * starting with "json_" are taken as JSON text produced by SQLite and
 * written as they are, under the name without the prefix; names starting
 * with "_" are left out (a page's cursor column, say). */
HL_API void hl_json_row(struct hl_json *j, sqlite3_stmt *st);
/* The same members without the braces, into the object being written,
 * so that a caller can add members of its own after them. */
HL_API void hl_json_columns(struct hl_json *j, sqlite3_stmt *st);
/* Column `col` of `st` as a value, by its storage class. */
HL_API void hl_json_column(struct hl_json *j, sqlite3_stmt *st, int col);
/* ABI 1.17. Every row of `st` (stepped to its end, then reset) as an
 * array of hl_json_row objects: 0, or HL_EDB when a step fails or `st` is
 * NULL. For a list with no paging (hl_json_page pages one). */
HL_API int hl_json_rows(struct hl_json *j, sqlite3_stmt *st);
/* ABI 1.16. Members of the object being written, each a key and a column
 * of the current row of `st` (written as hl_json_column writes it), up to
 * the entry whose key is NULL: what a row holding several objects (a
 * stage and its deals, say) writes of each:
 *     static const struct hl_member stage[] = {
 *             { "id", 0 }, { "name", 1 }, { NULL, 0 } };
 *     hl_json_members(j, st, stage); */
struct hl_member {
	const char *key;
	int col;
};
HL_API void hl_json_members(struct hl_json *j, sqlite3_stmt *st, const struct hl_member *m);

/* ---------------------------------------------------------------------------
 * The database. One SQLite file in WAL mode; readers run side by side, one
 * writer at a time. Handlers never open connections: they borrow one.
 */

/* The core's tables a module may read (never write) to show a location
 * and its people; these columns stay, others may be added:
 *   locations (id, agency_id, name, timezone, disabled_at, created_at,
 *       updated_at, currency, country); timezone is an IANA name
 *       ("America/Chicago", "UTC"), currency an ISO 4217 code ("USD") in
 *       whose minor units (cents; yen for JPY) the sub-account's amounts
 *       are kept (1.15), country an ISO 3166-1 code ("US") (1.19)
 *   users (id, agency_id, email, name, role, assigned_only, disabled_at,
 *       created_at); never password_hash
 *   location_users (location_id, user_id), a view: who may open which
 *       location, the rule hl_user_in_location checks. A cached route that
 *       reads it names "users user_locations locations" in its reads.
 *   agencies (id, name, address, email, phone, tax_id) (1.26): the agency
 *       a location belongs to (locations.agency_id) and the business
 *       details it prints on invoices ("" for none)
 *   agency_logos (agency_id, key, content_type, content), location_logos
 *       (location_id, key, content_type, content) (1.26): the logo of an
 *       agency, and of a sub-account that has its own, which anyone may
 *       fetch at /api/logos/KEY (a new key at each upload); content_type
 *       is "image/png", "image/jpeg" or "image/webp", content the image
 *       (at most 512 KB and 4096 x 4096 pixels)
 */

/* A read connection lent to this request until its answer is sent (or
 * hl_read_end); waits while every reader is lent, for at most the setting
 * reader_wait_ms, then returns NULL and the core answers 503 for a handler
 * that fails (hl_stmt(NULL, ...) is NULL, so the usual check covers it).
 * After hl_write_begin it returns the write connection, so a handler reads
 * its own writes. */
HL_API struct hl_db *hl_read(struct hl_req *req);
/* Give the read connection back before the request ends: its statements
 * must no longer be used, and the next hl_read lends one again (perhaps
 * another, with a newer view of the data). A streamed answer sends what it
 * holds back only at these points, so that a client who reads slowly never
 * keeps a connection others wait for: call it between the pages of a
 * long export. Nothing happens without a read connection. */
HL_API void hl_read_end(struct hl_req *req);
/* Take the write lock and begin a transaction (BEGIN IMMEDIATE). Writers
 * queue inside the process instead of spinning on SQLITE_BUSY. The core
 * commits after the handler when the answer's status is below 400, and rolls
 * back otherwise. Calling it twice returns the same connection. NULL (after
 * logging) when the transaction cannot begin: another process held the
 * database for over 10 s, an I/O error, or a GET or HEAD request (which a
 * link on any site can make with the user's cookie, so it never writes); hl_stmt(NULL, ...) is NULL, so
 * one check after hl_stmt covers both. */
HL_API struct hl_db *hl_write_begin(struct hl_req *req);

/* A prepared statement for the first statement in `sql`, from the
 * connection's cache (prepared once per connection, reset and unbound on
 * each call: a second call with the same text resets a statement you may
 * still be stepping). The connection owns it: do not finalize it. NULL when
 * `db` is NULL, or after logging when `sql` is invalid or memory runs out.
 * Use it within the current request or slice only. */
HL_API sqlite3_stmt *hl_stmt(struct hl_db *db, const char *sql);
/* A statement scoped to the request's location: hl_stmt on hl_read(req)
 * (hl_scoped_write: on hl_write_begin(req)) with the parameter :location
 * bound to hl_location_id(req). SQL without a :location parameter is
 * refused (NULL, logged), so a query of tenant data cannot forget its
 * scope. Bind other parameters by their index as usual. */
HL_API sqlite3_stmt *hl_scoped_read(struct hl_req *req, const char *sql);
HL_API sqlite3_stmt *hl_scoped_write(struct hl_req *req, const char *sql);
/* ABI 1.8. The integer in the first column of the first row of `sql`, run
 * as hl_scoped_write runs it, with :id bound to `id` (?1 in a statement
 * without :id, as 1.8 had it): 0 when there is no row or the value is
 * NULL; HL_EDB. For what a write just changed, such as whose record it is
 * (hl_publish_assigned):
 *     hl_scoped_write_int(req, "SELECT owner_id FROM deals"
 *                         " WHERE id = :id AND location_id = :location", id) */
HL_API int64_t hl_scoped_write_int(struct hl_req *req, const char *sql, int64_t id);
/* ABI 1.16. The same read as hl_scoped_read runs it, with :me bound to
 * hl_assigned_user(req) as hl_reply_record binds it: whether a record the
 * caller may see exists, in one call:
 *     hl_scoped_read_int(req, "SELECT 1 FROM contacts WHERE id = :id"
 *                        " AND location_id = :location"
 *                        " AND (:me = 0 OR owner_id = :me)", contact)
 * is 1 when it does, 0 when not, HL_EDB. */
HL_API int64_t hl_scoped_read_int(struct hl_req *req, const char *sql, int64_t id);
/* A read across every location of the caller's agency, for agency staff
 * (the routes of HL_ACCESS_AGENCY): hl_stmt on hl_read(req) with :agency
 * bound to the caller's agency. The SQL picks its locations by agency
 * ("location_id IN (SELECT id FROM locations WHERE agency_id = :agency)"),
 * so another agency's rows stay out. NULL (logged) without an :agency
 * parameter, or when the caller is not agency staff who see every record
 * (an "assigned only" agency user is refused: answer 403 before). */
HL_API sqlite3_stmt *hl_agency_read(struct hl_req *req, const char *sql);

/* ABI 1.14. The scoped statement of a store or a job, which has a
 * connection and a location but no request: hl_stmt on `db` with
 * :location bound to `location`; NULL (logged) without a :location
 * parameter or a location. What a request's handlers and an import's
 * slices share is written once with it:
 *     hl_stmt_scoped(db, location, "UPDATE contacts SET ... WHERE id = :id"
 *                    " AND location_id = :location") */
HL_API sqlite3_stmt *hl_stmt_scoped(struct hl_db *db, int64_t location, const char *sql);

/* Bind parameter `name` (":id") of `st`, when the statement has it (so
 * one binding serves statement texts with and without an optional
 * filter). The text is copied. A NULL `st` is passed over, so that the
 * hl_step_* after them (HL_EDB for NULL) is the one check needed. */
HL_API void hl_bind_int(sqlite3_stmt *st, const char *name, int64_t value);
HL_API void hl_bind_text(sqlite3_stmt *st, const char *name, const char *value);
/* ABI 1.17. `len` bytes at `data` as a BLOB (copied; NULL binds NULL). */
HL_API void hl_bind_blob(sqlite3_stmt *st, const char *name, const void *data, size_t len);

/* ABI 1.9. Stepping a statement to its end, then resetting it, in one
 * call; each returns HL_EDB when a step fails or `st` is NULL, so one
 * check after hl_stmt covers both.
 *   hl_step_int: 1 with *out the integer in the first column of the first
 *     row (0 when NULL), or 0 with *out 0 when there is no row: a lookup,
 *     an UPDATE ... RETURNING id, a count of a record that may not exist.
 *   hl_step_changes: the rows the statement inserted, changed or deleted
 *     (not counting those of triggers): 0 tells "no such record".
 *   hl_step_last_id: the rowid of the row an INSERT added, 0 when it
 *     added none (INSERT OR IGNORE of a duplicate). Not for an upsert
 *     (ON CONFLICT DO UPDATE), whose update leaves SQLite's last rowid
 *     as it was: use RETURNING id and hl_step_int. */
HL_API int hl_step_int(sqlite3_stmt *st, int64_t *out);
HL_API int64_t hl_step_changes(sqlite3_stmt *st);
HL_API int64_t hl_step_last_id(sqlite3_stmt *st);

/* Run one or more statements that return no rows; HL_EDB on error or when
 * `db` is NULL. */
HL_API int hl_exec(struct hl_db *db, const char *sql);
/* The underlying connection, for SQLite calls not wrapped here. */
HL_API sqlite3 *hl_sqlite(struct hl_db *db);
/* The last SQLite error message of the connection. */
HL_API const char *hl_db_errmsg(struct hl_db *db);

#ifdef __cplusplus
}
#endif
#endif /* HYPERLEVEL_H */

/* SPDX-License-Identifier: MIT */
/*
 * audit.h: the audit log: who did what, where, to which record, the record
 * named as people know it.
 */
#ifndef HL_AUDIT_H
#define HL_AUDIT_H

#include "request/request.h"

struct db;

/* Record `action` on `entity` `id` by the request's caller (or `user` when
 * the caller is not signed in yet, e.g. a login), with the record's name
 * of the moment (a person's, a sub-account's, a token's) for the core's
 * entities "user", "location" and "api_token". Inside the request's write
 * transaction when it has one, so the entry stands or falls with the
 * write; in a transaction of its own otherwise (a failed login must be
 * kept). Returns 0 or HL_EDB: a write whose entry cannot be made must not
 * commit. */
int audit_note(struct hl_req *r, int64_t user, const char *action, const char *entity,
	       int64_t id);

/* Before a module route's write commits: an entry per record of a kind
 * the modules declare (audit_kinds_new) that it added, changed or deleted
 * (action insert/update/delete, entity the kind's noun, the record's id
 * and its name read then), one per record however often it was written;
 * rows of other tables are not noted. When more rows changed than are
 * kept, one entry "more_changes" whose id is the number left out.
 * Returns 0 or HL_EDB. */
int audit_module_writes(struct hl_req *r);

/* The kinds of record the audit log names: `n` entries, copied, checked
 * against the database (after migrations, before serving, on the main
 * thread); the tables are watched (db_watch). An entry whose name_sql
 * does not prepare is logged and kept without a name. 0, HL_ENOMEM or
 * HL_EDB. */
struct audit_kinds;
int audit_kinds_new(struct audit_kinds **out, struct db *db, const struct hl_record_kind *kinds,
		    int n);
void audit_kinds_free(struct audit_kinds *k);
/* A JSON object naming each kind as people read it, keyed by what an
 * entry's `entity` holds: the core's entities ("user": "person"), each
 * declared noun, and each declared table (entries made before labels
 * named the table). Never NULL. */
const char *audit_kind_names(const struct audit_kinds *k);
/* What an entry's `entity` may hold for `kind` as people read it: the
 * core's entity ("person": "user"), or the noun and the tables declared
 * with it ("invoice": "invoice", "invoices"). At most `max` in out (the
 * strings are k's); how many, 0 for a kind no one declares. */
int audit_kind_entities(const struct audit_kinds *k, const char *kind, const char **out, int max);

#endif

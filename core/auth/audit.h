/* SPDX-License-Identifier: MIT */
/*
 * audit.h: the audit log: who did what, where, to which record.
 */
#ifndef HL_AUDIT_H
#define HL_AUDIT_H

#include "request/request.h"

/* Record `action` on `entity` `id` by the request's caller (or `user` when
 * the caller is not signed in yet, e.g. a login). Inside the request's write
 * transaction when it has one, so the entry stands or falls with the write;
 * in a transaction of its own otherwise (a failed login must be kept).
 * Returns 0 or HL_EDB: a write whose entry cannot be made must not commit. */
int audit_note(struct hl_req *r, int64_t user, const char *action, const char *entity,
	       int64_t id);

/* Before a module route's write commits: an entry per row it changed
 * (action insert/update/delete, entity the table, id the rowid), and when
 * more rows changed than are kept, one entry "more_changes" whose id is the
 * number left out. Returns 0 or HL_EDB. */
int audit_module_writes(struct hl_req *r);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * audit.h: the audit log: who did what, where, to which record.
 */
#ifndef HL_AUDIT_H
#define HL_AUDIT_H

#include "request.h"

/* Record `action` on `entity` `id` by the request's caller (or `user` when
 * the caller is not signed in yet, e.g. a login). Inside the request's write
 * transaction when it has one, so the entry stands or falls with the write;
 * in a transaction of its own otherwise (a failed login must be kept). */
void audit_note(struct hl_req *r, int64_t user, const char *action, const char *entity,
		int64_t id);

#endif

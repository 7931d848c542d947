/* SPDX-License-Identifier: MIT */
/*
 * contacts.h: the contacts module's parts: contacts.c registers them,
 * list.c answers the list, record.c one contact and the tags, write.c
 * creates and deletes.
 */
#ifndef CONTACTS_H
#define CONTACTS_H

#include <hyperlevel/hyperlevel.h>

/* GET /api/contacts (list.c) */
int contacts_list(struct hl_req *req);
/* GET /api/contacts/:id and GET /api/tags (record.c) */
int contacts_record(struct hl_req *req);
int contacts_tags(struct hl_req *req);
/* Answer contact `id` of the location whole, with `status`; 404 if none. */
int contacts_reply_record(struct hl_req *req, int status, int64_t id);
/* POST /api/contacts and DELETE /api/contacts/:id (write.c) */
int contacts_create(struct hl_req *req);
int contacts_delete(struct hl_req *req);

#endif

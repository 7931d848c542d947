/* SPDX-License-Identifier: MIT */
/*
 * contacts.h: the contacts module's parts: contacts.c registers them,
 * list.c answers the list, record.c one contact and the tags.
 */
#ifndef CONTACTS_H
#define CONTACTS_H

#include <hyperlevel/hyperlevel.h>

/* GET /api/contacts (list.c) */
int contacts_list(struct hl_req *req);
/* GET /api/contacts/:id and GET /api/tags (record.c) */
int contacts_record(struct hl_req *req);
int contacts_tags(struct hl_req *req);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * contacts.h: the contacts module's parts: contacts.c registers them,
 * list.c answers the list.
 */
#ifndef CONTACTS_H
#define CONTACTS_H

#include <hyperlevel/hyperlevel.h>

/* GET /api/contacts */
int contacts_list(struct hl_req *req);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * early.h: the answers a signed-in page of the app asks for first, carried
 * in the app's document (early.c).
 */
#ifndef HL_EARLY_H
#define HL_EARLY_H

struct buf;
struct hl_req;

/* For the document answering r (a GET of an address under /app with a
 * session cookie): the links to the page's files, added to `links`, and
 * the elements of the answers it carries, added to `answers`. 1 when it
 * carries any (the document is then the caller's own: never cached,
 * never compared), else 0. */
int early_answers(struct hl_req *r, struct buf *links, struct buf *answers);

#endif

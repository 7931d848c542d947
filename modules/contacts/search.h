/* SPDX-License-Identifier: MIT */
/*
 * search.h: how the contacts' trigram search index is asked by the
 * contact list (list.c). The index holds one line per contact: its name,
 * e-mail, phone and company joined as SEARCH_TEXT joins them, folded
 * (hl_fold: "José Núñez" is "jose nunez"; store.c writes it). :q is the
 * search folded alike, so a phrase MATCH of it finds exactly the lines
 * holding it, from the index alone, whatever the case and accents either
 * was typed with. Walking contacts without the index, fold(SEARCH_TEXT)
 * LIKE :q asks the same. Terms under 3 characters have no trigram:
 * SEARCH_PREFIX finds the contacts whose name or e-mail begins with them.
 */
#ifndef CONTACTS_SEARCH_H
#define CONTACTS_SEARCH_H

#include <hyperlevel/hyperlevel.h>

#include <string.h>

/* The searched text of contact row `c`. */
#define SEARCH_TEXT "c.first_name || ' ' || c.last_name || ' ' || coalesce(c.email, '') ||" \
	" ' ' || coalesce(c.phone, '') || ' ' || coalesce(c.company_name, '')"
/* A name or the e-mail of contact row `c` begins with :q, in any case
 * (NOCASE ranges, where LIKE would not be). The list walks the
 * sub-account's live contacts in its order and keeps those that match: no
 * logged plan went through the name and e-mail indexes, with the full
 * data set's statistics or without, so contacts 017 dropped the
 * first-name one. */
#define SEARCH_PREFIX "(c.first_name COLLATE NOCASE BETWEEN :q AND :q || char(1114111)" \
	" OR c.last_name COLLATE NOCASE BETWEEN :q AND :q || char(1114111)" \
	" OR c.email COLLATE NOCASE BETWEEN :q AND :q || char(1114111))"
/* The MATCH phrase of :q. */
#define PHRASE "'\"' || replace(:q, '\"', '\"\"') || '\"'"

/* The search as the index holds its lines, in the request's memory:
 * folded, without LIKE's wildcards (which it is not meant to hold); a
 * phone number written with spaces, dashes, dots or brackets, as its
 * digits ("(512) 555-0199" is "5125550199", which the line's
 * "+15125550199" holds). NULL for text that is not UTF-8. */
static inline char *search_text(struct hl_req *req, const char *q)
{
	size_t n = strlen(q), size = n * 4 + 64;
	char *out = hl_alloc(req, size);
	if (!out || hl_fold(q, out, size) < 0)
		return NULL;
	char *w = out;
	int phone = strspn(out, "+0123456789 -.()/") == strlen(out) && strpbrk(out, "0123456789");
	for (const char *p = out; *p; p++)
		if (phone ? (*p >= '0' && *p <= '9') || (*p == '+' && p == out)
			  : *p != '%' && *p != '_')
			*w++ = *p;
	*w = '\0';
	return out;
}

#endif

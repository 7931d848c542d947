/* SPDX-License-Identifier: MIT */
/*
 * search.h: how the contacts' trigram search index is asked by the
 * contact list (list.c). The index holds one line per contact: its name,
 * e-mail, phone and company joined as SEARCH_TEXT joins them, folded
 * (hl_fold: "José Núñez" is "jose nunez"; store.c writes it). :q is the
 * search folded alike (hl_search_text), so a phrase MATCH of it finds exactly the lines
 * holding it, from the index alone, whatever the case and accents either
 * was typed with. Walking contacts without the index, fold(SEARCH_TEXT)
 * LIKE :q asks the same. Terms under 3 characters have no trigram:
 * SEARCH_PREFIX finds the contacts whose name or e-mail begins with them.
 */
#ifndef CONTACTS_SEARCH_H
#define CONTACTS_SEARCH_H

#include <hyperlevel/hyperlevel.h>

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

#endif

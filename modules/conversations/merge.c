/* SPDX-License-Identifier: MIT */
/*
 * merge.c: merge fields in what a user writes to a contact: "Hi
 * {{contact.first_name}}" becomes "Hi Ann" when the message is written,
 * and the thread keeps what the contact got. A field may give a fallback
 * for a contact without the value ("{{contact.first_name|there}}"). A
 * field that is not one, or one the contact has no value for and no
 * fallback, is refused then (422), so nothing leaves with a blank in it.
 */
#include "conversations.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fields, as the contact's columns give them. */
static const char *const fields[] = {
	"contact.first_name", "contact.last_name", "contact.name", "contact.email",
	"contact.phone", "contact.company_name",
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

/* The contact's values, in the order of fields; read once. */
struct values {
	char *v[NFIELDS];
	int read;
};

static int read_values(struct hl_req *req, int64_t contact, struct values *vals)
{
	sqlite3_stmt *st = hl_scoped_read(req, "SELECT first_name, last_name,"
		" trim(coalesce(first_name, '') || ' ' || coalesce(last_name, '')), email, phone,"
		" company_name FROM contacts WHERE id = :id AND location_id = :location");
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":id", contact);
	int rc = sqlite3_step(st);
	for (size_t i = 0; rc == SQLITE_ROW && i < NFIELDS; i++) {
		const char *v = (const char *)sqlite3_column_text(st, (int)i);
		vals->v[i] = v ? hl_strndup(req, v, strlen(v)) : NULL;
	}
	sqlite3_reset(st);
	vals->read = 1;
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : HL_EDB;
}

/* `s` (`n` bytes) without spaces at its ends: *s and *n moved. */
static void trim(const char **s, size_t *n)
{
	while (*n && (**s == ' ' || **s == '\t'))
		(*s)++, (*n)--;
	while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t'))
		(*n)--;
}

/* Writes the field between "{{" and "}}" (`n` bytes at `p`) into `f`:
 * 0, or HL_EINVAL after a 422 naming `member`. */
static int merge_one(struct hl_req *req, int64_t contact, struct values *vals, FILE *f,
		     const char *member, const char *p, size_t n)
{
	const char *bar = memchr(p, '|', n);
	const char *name = p, *fallback = bar ? bar + 1 : NULL;
	size_t nlen = bar ? (size_t)(bar - p) : n, flen = bar ? n - nlen - 1 : 0;
	trim(&name, &nlen);
	if (fallback)
		trim(&fallback, &flen);
	size_t i = 0;
	while (i < NFIELDS && (strlen(fields[i]) != nlen || strncmp(fields[i], name, nlen)))
		i++;
	if (i == NFIELDS)
		return hl_reply_invalid(req, member, "{{%.*s}} is not a merge field; the fields are"
					" contact.first_name, last_name, name, email, phone and"
					" company_name", (int)(nlen > 64 ? 64 : nlen), name);
	if (!contact) /* only checking (a saved reply): no contact, no value */
		return 0;
	int rc = vals->read ? 0 : read_values(req, contact, vals);
	if (rc)
		return rc;
	const char *v = vals->v[i];
	if (v && *v)
		fputs(v, f);
	else if (fallback && flen)
		fwrite(fallback, 1, flen, f);
	else
		return hl_reply_invalid(req, member, "this contact has no %s for {{%s}}: give a"
					" fallback, as in {{%s|there}}", fields[i] + 8, fields[i],
					fields[i]);
	return 0;
}

int conv_merge(struct hl_req *req, int64_t contact, const char *member, const char *text,
	       const char **out)
{
	*out = text;
	if (!text || !strstr(text, "{{"))
		return 0;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return HL_ENOMEM;
	struct values vals = { .read = 0 };
	int rc = 0;
	const char *p = text, *open;
	while (!rc && (open = strstr(p, "{{"))) {
		const char *close = strstr(open + 2, "}}");
		if (!close) {
			rc = hl_reply_invalid(req, member, "a merge field is opened with {{ and not"
					      " closed with }}");
			break;
		}
		fwrite(p, 1, (size_t)(open - p), f);
		rc = merge_one(req, contact, &vals, f, member, open + 2, (size_t)(close - open - 2));
		p = close + 2;
	}
	if (!rc)
		fputs(p, f);
	if (fclose(f) && !rc)
		rc = HL_ENOMEM;
	if (!rc)
		*out = hl_strndup(req, buf, len);
	free(buf);
	return rc;
}

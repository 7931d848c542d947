/* SPDX-License-Identifier: MIT */
/*
 * files.c: files attached to mail sent. The composer uploads each one
 * (POST /api/email/files, the file as the body, its name in ?name=),
 * kept with the sub-account's attachments (migration 002's table, with
 * no message yet), within attachment_max_mb; the message names them by
 * id ("attachments": [3, 4]) and send.c reads them back when it writes
 * it. Any user of the sub-account may attach: the files are theirs to
 * send, not to read back another's (GET /api/email/attachments/:id
 * serves the files of mail received and sent alike, to the sub-account),
 * nor to send: ids are random (EMAIL_NEW_FILE_ID), not a count to guess.
 * A thread names the files it links to by GET /api/email/attachments?ids=.
 */
#include "email.h"

#include <string.h>

#define FILES_MAX 16   /* a message's files, at most (the composer sends 10) */

/* A name as a file may carry it: one line, no path, at most 200 bytes. */
static int name_ok(const char *name)
{
	return name && *name && mail_name_ok(name) && !strpbrk(name, "/\\\\");
}

/* POST /api/email/files?name=plan.pdf: 201 {"id", "name", "bytes"}. */
int email_file_upload(struct hl_req *req)
{
	const char *name = hl_query(req, "name");
	const char *type = hl_header(req, "Content-Type");
	size_t len;
	const char *body = hl_body(req, &len);
	if (!name_ok(name))
		return hl_reply_error(req, 422, "validation", "name: the file's name, one line without"
				      " a path, at most 200 bytes");
	if (!len)
		return hl_reply_error(req, 422, "validation", "the body is the file, and it is empty");
	if (len > email_attachment_max)
		return hl_reply_error(req, 413, "too_large", "a file of at most %zu MB may be attached",
				      email_attachment_max / (1024 * 1024));
	if (!type || !*type || strlen(type) > 100 || strpbrk(type, "\r\n\"") || !strchr(type, '/'))
		type = "application/octet-stream";
	if (!hl_write_begin(req))
		return HL_EDB;
	sqlite3_stmt *st = hl_scoped_write(req, "INSERT INTO email_attachments (id, location_id, name,"
		" content_type, bytes, content) VALUES (" EMAIL_NEW_FILE_ID ", :location, :name, :type,"
		" :bytes, :content)");
	hl_bind_text(st, ":name", name);
	hl_bind_text(st, ":type", type);
	hl_bind_int(st, ":bytes", (int64_t)len);
	hl_bind_blob(st, ":content", body, len);
	int64_t id = hl_step_last_id(st);
	if (id <= 0)
		return HL_EDB;
	return hl_reply_record(req, 201, id, "file", "SELECT id, name, bytes FROM email_attachments"
			       " WHERE id = :id AND location_id = :location");
}

int email_read_files(struct hl_job_run *run, struct hl_send *s, int64_t location,
		     const char *ids, struct mail *m)
{
	sqlite3_stmt *st = hl_stmt_scoped(hl_job_db(run), location, "SELECT a.name, a.content_type,"
		" a.content FROM json_each(:ids) j LEFT JOIN email_attachments a ON a.id = j.value"
		" AND a.location_id = :location ORDER BY j.key");
	if (!st)
		return HL_EDB;
	hl_bind_text(st, ":ids", ids);
	size_t n = 0, total = 0;
	int gone = 0, too_big = 0, rc;
	struct mail_file *files = hl_send_alloc(s, FILES_MAX * sizeof(*files));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) == SQLITE_NULL || n == FILES_MAX) {
			gone = 1;
			continue;
		}
		size_t len = (size_t)sqlite3_column_bytes(st, 2);
		if ((total += len) > email_attachment_max) {
			too_big = 1;
			break;
		}
		struct mail_file *f = &files[n++];
		unsigned char *data = hl_send_alloc(s, len ? len : 1);
		if (len) /* an empty BLOB is NULL */
			memcpy(data, sqlite3_column_blob(st, 2), len);
		f->name = hl_send_sprintf(s, "%s", (const char *)sqlite3_column_text(st, 0));
		f->type = hl_send_sprintf(s, "%s", (const char *)sqlite3_column_text(st, 1));
		f->data = data;
		f->len = len;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE && !too_big)
		return HL_EDB;
	if (too_big) {
		hl_send_refuse(s, "its files come to more than %zu MB", email_attachment_max >> 20);
		return HL_EINVAL;
	}
	if (gone) {
		hl_send_refuse(s, "a file attached to it is no longer kept");
		return HL_EINVAL;
	}
	m->files = files;
	m->nfiles = n;
	return 0;
}

/* "3,4": ids, as JSON reads numbers, at most 100 of them. */
static int ids_ok(const char *ids)
{
	int count = 0;
	for (const char *p = ids; p && *p; count++) {
		size_t n = strspn(p, "0123456789");
		if (!n || n > 18 || *p == '0' || (p[n] && p[n] != ','))
			return 0;
		p += n + (p[n] == ',');
		if (p[-1] == ',' && !*p)
			return 0;
	}
	return count > 0 && count <= 100;
}

/* GET /api/email/attachments?ids=3,4: the names a thread shows for its
 * files, {"data": [{"id", "name", "bytes"}]}, the sub-account's among
 * those asked for (at most 100). */
int email_attachments_named(struct hl_req *req)
{
	const char *ids = hl_query(req, "ids");
	if (!ids_ok(ids))
		return hl_reply_error(req, 422, "validation", "ids: at most 100 files' ids,"
				      " comma-separated");
	if (hl_assigned_only(req))
		return hl_reply_error(req, 403, "forbidden", "files are for users who see every"
				      " conversation");
	sqlite3_stmt *st = hl_scoped_read(req, "SELECT id, name, bytes FROM email_attachments"
		" WHERE location_id = :location AND id IN (SELECT value FROM json_each(:ids))"
		" ORDER BY id LIMIT 100");
	hl_bind_text(st, ":ids", hl_sprintf(req, "[%s]", ids));
	return hl_reply_page(req, st, INT64_MAX, 0);
}

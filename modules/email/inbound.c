/* SPDX-License-Identifier: MIT */
/*
 * inbound.c: mail that arrives, as an MTA hands it over (Postfix's pipe
 * transport, say): POST /api/email/inbound with the raw message as the
 * body and the server's inbound key in X-Inbound-Key, checked before the
 * body is read. The sub-account is the one whose sender's address or
 * reply-to the message came to (?recipient=, as the MTA knows it, else
 * Delivered-To or To). A message goes to the conversations module's
 * inbox, where it joins the thread of the message it replies to
 * (In-Reply-To, References), else its sender's contact's (found or added)
 * e-mail thread; its attachments are kept here, each within
 * attachment_max_mb, for GET /api/email/attachments/:id. A bounce (a
 * delivery status notification) of a message the server sent marks it
 * bounced and its address undeliverable. POST /api/email/inbound-key
 * makes the key (the agency's administrators), shown once.
 */
#include "email.h"
#include "parse.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reply_json(struct hl_req *req, int status, const char *json)
{
	return hl_reply_raw(req, status, "application/json", json, strlen(json));
}

/* Whether `given` is the key whose hash the server keeps: 1, 0, or
 * HL_EDB (the MTA is answered 500 and tries again, never told no). */
static int key_matches(struct hl_req *req, const char *given)
{
	sqlite3_stmt *st = hl_stmt(hl_read(req), "SELECT key_hash FROM email_inbound_keys");
	if (!st)
		return HL_EDB;
	int rc = sqlite3_step(st), ok = 0;
	if (given && rc == SQLITE_ROW && sqlite3_column_bytes(st, 0) == crypto_generichash_BYTES) {
		unsigned char hash[crypto_generichash_BYTES];
		crypto_generichash(hash, sizeof(hash), (const unsigned char *)given, strlen(given), NULL, 0);
		ok = !sodium_memcmp(hash, sqlite3_column_blob(st, 0), sizeof(hash));
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? ok : HL_EDB;
}

/* The sub-account that receives mail at `address`: its id, 0 for none,
 * HL_EDB. An address is one sub-account's at most (settings.c). */
static int64_t location_of(struct hl_req *req, const char *address)
{
	if (!address)
		return 0;
	sqlite3_stmt *st = hl_stmt(hl_read(req), "SELECT location_id FROM email_senders"
		" WHERE from_address = :address COLLATE NOCASE OR reply_to = :address COLLATE NOCASE"
		" ORDER BY location_id LIMIT 1");
	hl_bind_text(st, ":address", address);
	int64_t id = 0;
	int rc = hl_step_int(st, &id);
	return rc < 0 ? HL_EDB : id;
}

/* The text a person reads in the thread: the message's, then what came
 * with it and what could not be read. */
static const char *thread_text(struct hl_req *req, const struct received *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	const char *sep = "";
	if (r->text && *r->text) {
		fputs(r->text, f);
		sep = "\n\n";
	}
	for (size_t i = 0; i < r->nattachments; i++) {
		const struct attachment *a = &r->attachments[i];
		if (!a->too_big) /* kept: the thread links to it */
			continue;
		fprintf(f, "%s[Attachment: %s, %zu KB, over the size this server keeps: not kept]", sep,
			a->name, (a->len + 1023) / 1024);
		sep = "\n";
	}
	if (r->more_attachments)
		fprintf(f, "%s[%zu more attachments, not kept]", sep, r->more_attachments);
	if (r->warning)
		fprintf(f, "%s[%s]", *sep || r->nattachments ? "\n\n" : "", r->warning);
	int bad = fclose(f);
	const char *text = bad ? NULL : hl_strndup(req, buf, len);
	free(buf);
	return text;
}

/* The attachments kept, before the message goes to its thread: their
 * ids in m->files, for the thread to link to. */
static int keep_attachments(struct hl_req *req, int64_t location, const struct received *r,
			    struct hl_incoming *m)
{
	int64_t *ids = hl_alloc(req, (r->nattachments + 1) * sizeof(*ids));
	m->files = ids;
	for (size_t i = 0; i < r->nattachments; i++) {
		const struct attachment *a = &r->attachments[i];
		if (a->too_big)
			continue;
		sqlite3_stmt *st = hl_stmt_scoped(hl_write_begin(req), location, "INSERT INTO"
			" email_attachments (id, location_id, message, name, content_type, bytes, content)"
			" VALUES (" EMAIL_NEW_FILE_ID ", :location, :message, :name, :type, :bytes, :content)");
		hl_bind_text(st, ":message", r->message_id);
		hl_bind_text(st, ":name", a->name);
		hl_bind_text(st, ":type", a->type ? a->type : "application/octet-stream");
		hl_bind_int(st, ":bytes", (int64_t)a->len);
		hl_bind_blob(st, ":content", a->data ? (const void *)a->data : "", a->len);
		int64_t id = hl_step_last_id(st);
		if (id <= 0)
			return HL_EDB;
		ids[m->nfiles++] = id;
	}
	return 0;
}

/* A delivery status notification. A bounce naming a message this server
 * sent for the sub-account (its Message-ID is signed) marks it bounced and
 * the address undeliverable; any other report (a delay, a relay's note, a
 * bounce of mail not ours) is acknowledged and dropped. */
static int take_report(struct hl_req *req, int64_t location, const struct received *r)
{
	int ours = r->bounce ? email_message_id_ours(req, location, r->bounced_id) : 0;
	if (ours < 0)
		return ours;
	if (!ours)
		return reply_json(req, 200, "{\"bounce\":false}");
	struct hl_report report = { .channel = "email", .location_id = location,
				    .reference = r->bounced_id, .kind = HL_BOUNCED,
				    .reason = r->bounce_reason };
	int rc = hl_report(req, &report);
	if (rc && rc != HL_ENOENT)
		return rc;
	if (r->bounced_to) {
		sqlite3_stmt *st = hl_stmt_scoped(hl_write_begin(req), location, "INSERT INTO"
			" email_undeliverable (location_id, address, reason) VALUES (:location, :address,"
			" :reason) ON CONFLICT DO UPDATE SET reason = excluded.reason, at = excluded.at");
		hl_bind_text(st, ":address", r->bounced_to);
		hl_bind_text(st, ":reason", r->bounce_reason);
		if (hl_step_changes(st) < 0)
			return HL_EDB;
	}
	return reply_json(req, 200, "{\"bounce\":true}");
}

static int take_message(struct hl_req *req, int64_t location, const struct received *r)
{
	if (!r->from || !hl_is_email(r->from))
		return hl_reply_error(req, 422, "validation", "the message has no sender's address"
				      " (From)");
	const char *text = thread_text(req, r);
	if (!text)
		return HL_ENOMEM;
	struct hl_incoming m = { .channel = "email", .location_id = location, .from = r->from,
				 .to = r->to, .subject = r->subject, .body = text,
				 .reference = r->message_id,
				 .answers = (const char *const *)r->answers, .nanswers = r->nanswers };
	int rc = keep_attachments(req, location, r, &m);
	if (!rc)
		rc = hl_receive(req, &m);
	return rc ? rc : reply_json(req, 201, "{\"received\":true}");
}

int email_inbound(struct hl_req *req)
{
	int ok = key_matches(req, hl_header(req, "X-Inbound-Key"));
	if (ok <= 0)
		return ok < 0 ? ok : hl_reply_error(req, 403, "forbidden", "X-Inbound-Key is not this"
						    " server's inbound key");
	size_t len;
	const char *raw = hl_body(req, &len);
	if (!len)
		return hl_reply_error(req, 422, "validation", "the body is the message, as it"
				      " arrived (message/rfc822)");
	struct received r;
	if (received_parse(raw, len, email_attachment_max, &r))
		return HL_ENOMEM;
	const char *to = hl_query(req, "recipient");
	int64_t location = location_of(req, to && *to ? to : r.to);
	int rc;
	if (location < 0)
		rc = (int)location;
	else if (!location)
		rc = hl_reply_error(req, 404, "not_found", "no sub-account receives mail at %s",
				    to && *to ? to : r.to ? r.to : "(no recipient)");
	else if (!hl_write_begin(req))
		rc = HL_EDB;
	else
		rc = r.report ? take_report(req, location, &r) : take_message(req, location, &r);
	received_free(&r);
	return rc;
}

/* POST /api/email/inbound-key: a new key, answered once; the old one no
 * longer works. */
int email_inbound_key(struct hl_req *req)
{
	unsigned char key[24], hash[crypto_generichash_BYTES];
	char text[2 * sizeof(key) + 1];
	randombytes_buf(key, sizeof(key));
	sodium_bin2hex(text, sizeof(text), key, sizeof(key));
	crypto_generichash(hash, sizeof(hash), (const unsigned char *)text, strlen(text), NULL, 0);
	sqlite3_stmt *st = hl_stmt(hl_write_begin(req), "INSERT INTO email_inbound_keys (id, key_hash)"
		" VALUES (1, :hash) ON CONFLICT (id) DO UPDATE SET key_hash = excluded.key_hash,"
		" created_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')");
	hl_bind_blob(st, ":hash", hash, sizeof(hash));
	if (hl_step_changes(st) < 0)
		return HL_EDB;
	return reply_json(req, 201, hl_sprintf(req, "{\"key\":\"%s\",\"inbound_url\":\"%s/api/email/inbound\"}",
					       text, hl_public_url()));
}

/* GET /api/email/attachments/:id: the file's bytes, as they came, as
 * application/octet-stream whatever the sender called them: a file from
 * outside is downloaded, never shown as a page of this server. */
int email_attachment_get(struct hl_req *req)
{
	int64_t id;
	if (hl_param_id(req, "id", &id))
		return 0;
	/* the files are the sub-account's, not tied to a conversation one
	 * may see: kept from those who see only their own */
	if (hl_assigned_only(req))
		return hl_reply_error(req, 403, "forbidden", "files are for users who see every"
				      " conversation");
	sqlite3_stmt *st = hl_scoped_read(req, "SELECT content"
		" FROM email_attachments WHERE id = :id AND location_id = :location");
	hl_bind_int(st, ":id", id);
	if (!st)
		return HL_EDB;
	int step = sqlite3_step(st);
	if (step != SQLITE_ROW) {
		sqlite3_reset(st);
		return step == SQLITE_DONE ? hl_reply_error(req, 404, "not_found", "no such attachment")
					   : HL_EDB;
	}
	int rc = hl_reply_raw(req, 200, "application/octet-stream", sqlite3_column_blob(st, 0),
			      (size_t)sqlite3_column_bytes(st, 0));
	sqlite3_reset(st);
	return rc;
}

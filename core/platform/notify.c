/* SPDX-License-Identifier: MIT */
/*
 * notify.c: hl_notify and hl_job_notify, a notification for one person
 * written in the transaction of what it tells of (a row of notifications,
 * core migration 013), and the live event that rings their bell.
 *
 * The event, "notice.created" with the notification's id, is the
 * person's own: published for no location (0) and assigned to them, which
 * the live channel sends to that user's connections whatever sub-account
 * they follow, and to nobody else (live.c). Nobody is told of their own
 * doing, nor of a sub-account they may not open. Adding one deletes the
 * person's notifications older than KEEP_DAYS, through the index of their
 * ages (only those rows are read). A text past TEXT_MAX characters is cut
 * to fit, ending in "…". The list and marking them read are
 * admin/notices.c's.
 */
#include "platform/events.h"
#include "lib/utf8.h"

#include <stdio.h>
#include <string.h>

#define KEEP_DAYS "90"
#define TEXT_MAX 500 /* characters */
#define PATH_MAX_BYTES 300
#define KIND_MAX 32

static int kind_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	return n && n <= KIND_MAX && strspn(s, "abcdefghijklmnopqrstuvwxyz_") == n;
}

/* A page's path under /app: "/tasks/12", "/contacts?tag=x". */
static int path_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	return n > 1 && n <= PATH_MAX_BYTES && s[0] == '/' && !strstr(s, "..") && !strstr(s, "//") &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-?=&%") == n;
}

static int notice_ok(const struct hl_notice *n)
{
	size_t len = n && n->text ? strlen(n->text) : 0;
	return n && n->user > 0 && !(n->flags & ~HL_NOTICE_FROM_OUTSIDE) && kind_ok(n->kind) && path_ok(n->path) && len &&
	       utf8_check(n->text, len) == len;
}

/* `text`, or when longer than TEXT_MAX characters its first TEXT_MAX - 1
 * and "…" in `out`: what it tells of (a contact's name, a message) is
 * another's to write and may be long, and the bell shows a line. */
static const char *fitted(const char *text, char out[TEXT_MAX * 4])
{
	if (hl_text_length(text) <= TEXT_MAX)
		return text;
	const char *end = text;
	for (int kept = 0; kept < TEXT_MAX - 1; kept++)
		end += utf8_seq((const unsigned char *)end, 4); /* valid: notice_ok */
	size_t n = (size_t)(end - text);
	memcpy(out, text, n);
	memcpy(out + n, "…", sizeof("…"));
	return out;
}

/* The row, on the write connection `db`, and the old ones let go: its
 * id, 0 when the person may not open the location, or HL_EDB. */
static int64_t write_notice(struct hl_db *db, int64_t location, int64_t actor,
			    const struct hl_notice *n)
{
	char cut[TEXT_MAX * 4];
	int in = hl_user_in_location(db, location, n->user);
	if (in <= 0)
		return in < 0 ? HL_EDB : 0;
	sqlite3_stmt *st = hl_stmt(db, "INSERT INTO notifications (user_id, location_id, actor_id,"
		" kind, text, path) VALUES (:user, :place, nullif(:actor, 0), :kind, :text, :path)");
	hl_bind_int(st, ":user", n->user);
	hl_bind_int(st, ":place", location);
	hl_bind_int(st, ":actor", actor);
	hl_bind_text(st, ":kind", n->kind);
	hl_bind_text(st, ":text", fitted(n->text, cut));
	hl_bind_text(st, ":path", n->path);
	int64_t id = hl_step_last_id(st);
	if (id <= 0)
		return HL_EDB;
	st = hl_stmt(db, "DELETE FROM notifications WHERE user_id = :user"
		" AND created_at < strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-" KEEP_DAYS " days')");
	hl_bind_int(st, ":user", n->user);
	return hl_step_changes(st) < 0 ? HL_EDB : id;
}

HL_API int hl_notify(struct hl_req *req, const struct hl_notice *n)
{
	if (!req || !notice_ok(n))
		return HL_EINVAL;
	int64_t actor = n->flags & HL_NOTICE_FROM_OUTSIDE ? 0 : hl_user_id(req);
	if (n->user == actor)
		return 0; /* nobody is told of what they did themselves */
	int64_t id = write_notice(hl_write_begin(req), hl_location_id(req), actor, n);
	if (id <= 0)
		return (int)id;
	return events_publish_private("notice.created", n->user, id);
}

HL_API int hl_job_notify(struct hl_job_run *run, int64_t location_id, const struct hl_notice *n)
{
	if (!run || location_id <= 0 || !notice_ok(n))
		return HL_EINVAL;
	int64_t id = write_notice(hl_job_db(run), location_id, 0, n);
	if (id <= 0)
		return (int)id;
	return hl_job_publish_assigned(run, "notice.created", 0, id, n->user, "{}");
}

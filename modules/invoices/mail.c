/* SPDX-License-Identifier: MIT */
/*
 * mail.c: an invoice e-mailed to its client, with the link to its public
 * page (view.c). The invoices module is the owner of these mails (the
 * conversations module offers no service to send one): POST
 * /api/invoices/:id/email queues one (migration 010's invoice_mails); the
 * job hands each queued mail to the e-mail provider (hl_job_send), after
 * recording it as sending; mail_settle records the outcome. A mail's
 * states, and who moves them:
 *
 *   queued ──mail_slice──> sending ──mail_settle──> sent
 *      │^                     └──────mail_settle──> failed
 *      │└── mail_settle (tried again later, at most TRIES_MAX times)
 *      └────mail_slice (its invoice voided meanwhile)──> failed
 *
 * A draft becomes sent only once its mail has left (and says so as Send
 * does: invoice.sent): with no e-mail provider, or one the sub-account
 * has not set up, nothing leaves and the invoice stays as it was ("Mark
 * as sent" is the person's own word). The mail's words are written when
 * it is queued, so a draft being mailed cannot be changed (write.c).
 */
#include "invoices.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#define TRIES_MAX 5
#define RETRY_FIRST_S 30

static const char *const email_keys[] = { "to", NULL };

/* The address people open the page at: the server's public_url, else
 * the origin the app was opened at (the browser's Origin) when it names
 * this server (the request's Host): a page elsewhere may send any
 * Origin, and the link would lead there. NULL for neither. */
static const char *site(struct hl_req *req)
{
	const char *url = hl_public_url();
	if (!*url) {
		const char *host = hl_header(req, "Host");
		url = hl_header(req, "Origin");
		const char *name = !url ? NULL : !strncmp(url, "https://", 8) ? url + 8
			: !strncmp(url, "http://", 7) ? url + 7 : NULL;
		if (!name || !host || strcasecmp(name, host))
			return NULL;
	}
	if ((strncmp(url, "https://", 8) && strncmp(url, "http://", 7)) ||
	    strpbrk(url, " \r\n\"<>") || strlen(url) > 200)
		return NULL;
	size_t n = strlen(url);
	return hl_strndup(req, url, n && url[n - 1] == '/' ? n - 1 : n);
}

/* The mail's text, from what the invoice says of itself. The e-mail
 * provider makes its HTML part as Markdown: the link is written <so>, a
 * link there and the usual way to set one apart in plain text. */
static int compose(struct hl_req *req, int64_t id, const char *link, const char **subject,
		   const char **body)
{
	sqlite3_stmt *st = hl_scoped_write(req, "SELECT i.number, json_extract(" INVOICE_BUSINESS
		", '$.name'), c.first_name, i.currency, i.total_cents,"
		" date(local_day(unixepoch(i.due_at), lo.timezone) * 86400, 'unixepoch')"
		" FROM invoices i LEFT JOIN contacts c ON c.id = i.contact_id" INVOICE_BUSINESS_JOIN
		" WHERE i.id = :id AND i.location_id = :location");
	hl_bind_int(st, ":id", id);
	if (!st || sqlite3_step(st) != SQLITE_ROW)
		return st ? (sqlite3_reset(st), HL_EDB) : HL_EDB;
	const char *number = (const char *)sqlite3_column_text(st, 0);
	const char *from = (const char *)sqlite3_column_text(st, 1);
	const char *first = (const char *)sqlite3_column_text(st, 2);
	const char *due = (const char *)sqlite3_column_text(st, 5);
	char total[64], day[32];
	invoice_money(total, sizeof(total), sqlite3_column_int64(st, 4),
		      (const char *)sqlite3_column_text(st, 3));
	invoice_day(day, sizeof(day), due);
	*subject = hl_sprintf(req, "Invoice %s from %s", number, from && *from ? from : "us");
	*body = hl_sprintf(req, "Hello%s%s,\n\nHere is invoice %s for %s%s%s.\n\n"
		"View it, print it or save it as a PDF:\n<%s>\n\nThank you,\n%s\n",
		first && *first ? " " : "", first ? first : "", number, total, *day ? ", due " : "", day,
		link, from && *from ? from : "");
	sqlite3_reset(st);
	return 0;
}

/* The recipient: the body's "to", else the contact's address. NULL after
 * answering 422. */
static const char *recipient(struct hl_req *req, int64_t contact)
{
	const char *to = NULL;
	if (hl_fields_only(req, 0, email_keys) || hl_field_text(req, 0, "to", 200, &to) < 0)
		return NULL;
	if (!to && contact) {
		sqlite3_stmt *st = hl_scoped_write(req, "SELECT email FROM contacts"
						   " WHERE id = :id AND location_id = :location");
		hl_bind_int(st, ":id", contact);
		if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
			to = hl_sprintf(req, "%s", (const char *)sqlite3_column_text(st, 0));
		if (st)
			sqlite3_reset(st);
	}
	if (!to || !*to) {
		hl_reply_invalid(req, "to", "the client has no e-mail address: add one to the contact,"
				 " or mark the invoice as sent and hand them its link");
		return NULL;
	}
	if (!hl_is_email(to)) {
		hl_reply_invalid(req, "to", "an e-mail address, like ann@example.com");
		return NULL;
	}
	return to;
}

/* POST /api/invoices/:id/email {"to"?}: 202 with the invoice, its mail
 * queued; 409 when no module delivers e-mail, or for a void invoice. */
int invoices_email(struct hl_req *req)
{
	struct invoice_state s;
	int64_t id;
	int rc = hl_param_id(req, "id", &id);
	if (!rc && !hl_write_begin(req))
		rc = HL_EDB;
	if (!rc)
		rc = invoice_state_load(req, id, &s);
	if (rc)
		return rc;
	if (!strcmp(s.status, "void"))
		return invoice_refuse(req, s.status, "a void invoice is not sent");
	const char *to = recipient(req, s.contact_id);
	if (!to)
		return HL_EINVAL;
	if (!hl_channel_provider(req, "email"))
		return hl_reply_error(req, 409, "no_provider", "no e-mail provider is set up: nothing"
				      " was e-mailed. Mark the invoice as sent and hand the client its link.");
	const char *base = site(req), *key = invoice_view_key(req, id), *subject, *body;
	if (!base)
		return hl_reply_error(req, 409, "no_public_url", "the server's address is not known,"
				      " so the mail could not link to the invoice: nothing was e-mailed."
				      " Set public_url, or open the app by its address");
	if (!key || compose(req, id, hl_sprintf(req, "%s/i/%s", base, key), &subject, &body))
		return HL_EDB;
	sqlite3_stmt *st = hl_scoped_write(req, "INSERT INTO invoice_mails (location_id, invoice_id,"
		" to_address, subject, body) VALUES (:location, :id, :to, :subject, :body)");
	hl_bind_int(st, ":id", id);
	hl_bind_text(st, ":to", to);
	hl_bind_text(st, ":subject", subject);
	hl_bind_text(st, ":body", body);
	if (hl_step_last_id(st) <= 0)
		return HL_EDB;
	if ((rc = invoice_publish(req, "invoice.mail_queued", id, s.contact_id)))
		return rc;
	return invoices_reply_record(req, 202, id);
}

/* ---- the job ----------------------------------------------------------------- */

static int set_state(struct hl_job_run *run, int64_t location, int64_t mail, const char *state,
		     const char *reason, unsigned retry_s)
{
	sqlite3_stmt *st = hl_stmt_scoped(hl_job_db(run), location, "UPDATE invoice_mails SET"
		" state = :state, reason = :reason, tries = tries + (:state = 'queued'),"
		" due_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+' || :retry_s || ' seconds'),"
		" sent_at = iif(:state = 'sent', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), sent_at)"
		" WHERE id = :id AND location_id = :location");
	hl_bind_text(st, ":state", state);
	hl_bind_text(st, ":reason", reason);
	hl_bind_int(st, ":retry_s", retry_s);
	hl_bind_int(st, ":id", mail);
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

/* Tell the invoice's page (and its contact's owner) what became of it;
 * a draft whose mail left is sent now. */
static int mail_told(struct hl_job_run *run, int64_t location, int64_t mail, int sent)
{
	struct hl_db *db = hl_job_db(run);
	sqlite3_stmt *st = hl_stmt_scoped(db, location, "UPDATE invoices SET status = 'sent',"
		" issued_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now'),"
		" updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
		" WHERE id = (SELECT invoice_id FROM invoice_mails WHERE id = :id) AND status = 'draft'"
		" AND location_id = :location AND :sent");
	hl_bind_int(st, ":id", mail);
	hl_bind_int(st, ":sent", sent);
	int64_t issued = hl_step_changes(st);
	if (issued < 0)
		return HL_EDB;
	st = hl_stmt_scoped(db, location, "SELECT i.id, coalesce(i.contact_id, 0),"
		" coalesce(c.owner_id, 0) FROM invoice_mails m JOIN invoices i ON i.id = m.invoice_id"
		" LEFT JOIN contacts c ON c.id = i.contact_id WHERE m.id = :id AND m.location_id = :location");
	hl_bind_int(st, ":id", mail);
	if (!st || sqlite3_step(st) != SQLITE_ROW)
		return st ? (sqlite3_reset(st), 0) : HL_EDB;
	int64_t invoice = sqlite3_column_int64(st, 0), contact = sqlite3_column_int64(st, 1);
	int64_t owner = sqlite3_column_int64(st, 2);
	sqlite3_reset(st);
	char data[64];
	snprintf(data, sizeof(data), "{\"contact_id\":%lld}", (long long)contact);
	/* issued by its mail, as Send issues it (status.c): the same event */
	int rc = issued ? hl_job_publish_assigned(run, "invoice.sent", location, invoice, owner,
						  contact ? data : NULL) : 0;
	return rc ? rc : hl_job_publish_assigned(run, sent ? "invoice.mailed" : "invoice.mail_failed",
						 location, invoice, owner, contact ? data : NULL);
}

/* The outcome of a mail's send. */
static int mail_settle(struct hl_job_run *run, const struct hl_outcome *o)
{
	if (o->kind == HL_SENT)
		return set_state(run, o->location_id, o->id, "sent", NULL, 0) ? HL_EDB
			: mail_told(run, o->location_id, o->id, 1);
	int64_t tries = 0;
	sqlite3_stmt *st = hl_stmt_scoped(hl_job_db(run), o->location_id,
		"SELECT tries FROM invoice_mails WHERE id = :id AND location_id = :location");
	hl_bind_int(st, ":id", o->id);
	if (hl_step_int(st, &tries) < 0)
		return HL_EDB;
	if (o->kind == HL_SEND_LATER && tries + 1 < TRIES_MAX) {
		unsigned wait = o->retry_after_s ? o->retry_after_s : (unsigned)RETRY_FIRST_S << tries;
		return set_state(run, o->location_id, o->id, "queued", o->reason, wait);
	}
	return set_state(run, o->location_id, o->id, "failed", o->reason ? o->reason : "not sent", 0)
		? HL_EDB : mail_told(run, o->location_id, o->id, 0);
}

/* Hand the mail of the current row of `st` (id, location, to, subject,
 * body, whether its invoice was voided) to the provider: 0, 1 when the
 * channel is full (stop for now), HL_EDB. */
static int hand_over(struct hl_job_run *run, sqlite3_stmt *st)
{
	char why[256] = "";
	int64_t id = sqlite3_column_int64(st, 0), location = sqlite3_column_int64(st, 1);
	if (sqlite3_column_int(st, 5)) { /* voided since it was queued: it must not leave */
		sqlite3_reset(st);
		int rc = set_state(run, location, id, "failed", "the invoice was voided", 0);
		return rc ? rc : mail_told(run, location, id, 0);
	}
	struct hl_outgoing out = { .channel = "email", .location_id = location, .id = id,
		.to = (const char *)sqlite3_column_text(st, 2),
		.subject = (const char *)sqlite3_column_text(st, 3),
		.body = (const char *)sqlite3_column_text(st, 4), .settle = mail_settle };
	int rc = hl_job_send(run, &out, why, sizeof(why));
	sqlite3_reset(st); /* hl_job_send copied what it keeps */
	if (rc == HL_ETOOBIG || rc == HL_ESTATE)
		return 1;
	if (rc == HL_ENOENT || rc == HL_EINVAL) {
		const char *reason = why[0] ? why : "no e-mail provider is set up";
		rc = set_state(run, location, id, "failed", reason, 0);
		return rc ? rc : mail_told(run, location, id, 0);
	}
	if (rc < 0)
		return rc;
	return set_state(run, location, id, "sending", NULL, 0);
}

/* The job: the mails come due, oldest first, while the budget lasts. */
int invoices_mail_slice(struct hl_job_run *run)
{
	struct hl_db *db = hl_job_db(run);
	while (!hl_job_over_budget(run)) {
		sqlite3_stmt *st = hl_stmt(db, "SELECT m.id, m.location_id, m.to_address, m.subject,"
			" m.body, (SELECT status = 'void' FROM invoices WHERE id = m.invoice_id)"
			" FROM invoice_mails m WHERE m.state = 'queued' AND m.due_at <= "
			"strftime('%Y-%m-%dT%H:%M:%fZ', 'now') ORDER BY m.due_at, m.id LIMIT 1");
		if (!st)
			return HL_EDB;
		int step = sqlite3_step(st);
		if (step != SQLITE_ROW) {
			sqlite3_reset(st);
			return step == SQLITE_DONE ? HL_JOB_DONE : HL_EDB;
		}
		int rc = hand_over(run, st);
		if (rc)
			return rc == 1 ? HL_JOB_DONE : rc;
	}
	return HL_JOB_MORE;
}

/* SPDX-License-Identifier: MIT */
/*
 * inbound.c: POST /api/conversations/inbound, the hook a provider module
 * (or an integration) calls with a message a contact sent. The contact is
 * named by id, e-mail address or phone number; the message goes into the
 * contact's conversation on that channel, opened when there is none, as
 * received and unread. E-mail addresses are matched without regard to
 * case, phone numbers in E.164 as contacts keep them; both through the
 * contacts module's indexes (contacts_location_email,
 * contacts_location_phone).
 */
#include "conversations.h"

#include <string.h>

static const char *const inbound_keys[] = {
	"contact_id", "email", "phone", "channel", "body", NULL,
};

/* What a provider sends: one way to name the contact, and the message. */
struct inbound {
	int64_t contact;
	const char *email, *phone, *channel, *body;
	char e164[HL_PHONE_MAX]; /* the phone, read as the sub-account's */
};

/* 1 when `sql` finds a contact (its id in *out), 0 when none, HL_EDB. */
static int first_contact(struct hl_req *req, const char *sql, const struct inbound *in,
			 int64_t *out)
{
	sqlite3_stmt *st = hl_scoped_read(req, sql);
	if (!st)
		return HL_EDB;
	hl_bind_int(st, ":id", in->contact);
	hl_bind_text(st, ":email", in->email);
	hl_bind_text(st, ":phone", in->e164);
	int rc = sqlite3_step(st);
	*out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : HL_EDB;
}

/* The live contact of the location the message names: 0 and *out, or
 * HL_EINVAL after a 422 naming the member. */
static int find_contact(struct hl_req *req, const struct inbound *in, int64_t *out)
{
	int rc;
	if (in->contact)
		rc = first_contact(req, "SELECT id FROM contacts WHERE id = :id"
				   " AND location_id = :location AND deleted_at IS NULL", in, out);
	else if (in->email)
		rc = first_contact(req, "SELECT id FROM contacts WHERE location_id = :location"
				   " AND email = :email COLLATE NOCASE AND email IS NOT NULL"
				   " AND deleted_at IS NULL ORDER BY id LIMIT 1", in, out);
	else
		rc = first_contact(req, "SELECT id FROM contacts WHERE location_id = :location"
				   " AND phone = :phone AND phone IS NOT NULL AND deleted_at IS NULL"
				   " ORDER BY id LIMIT 1", in, out);
	if (rc)
		return rc < 0 ? rc : 0;
	if (in->contact)
		return hl_reply_invalid(req, "contact_id", "no contact of this sub-account");
	return hl_reply_invalid(req, in->email ? "email" : "phone",
				"no contact of this sub-account has it");
}

/* The body as an inbound message: 0, or HL_EINVAL after a 422. */
static int read_inbound(struct hl_req *req, struct inbound *in)
{
	memset(in, 0, sizeof(*in));
	if (hl_fields_only(req, 0, inbound_keys) ||
	    hl_field_int(req, 0, "contact_id", 1, INT64_MAX, &in->contact) < 0 ||
	    hl_field_text(req, 0, "email", 320, &in->email) < 0 ||
	    hl_field_text(req, 0, "phone", 40, &in->phone) < 0 ||
	    conv_read_message(req, &in->body, &in->channel))
		return HL_EINVAL;
	if (!in->channel)
		return hl_reply_invalid(req, "channel", "required, " CHANNEL_WORDS);
	if (!in->contact && !in->email && !in->phone)
		return hl_reply_invalid(req, "contact_id", "required, or email or phone");
	if (!in->contact && in->email && !hl_is_email(in->email))
		return hl_reply_invalid(req, "email", "not an e-mail address");
	if (!in->contact && !in->email &&
	    hl_phone_e164(in->phone, hl_location_country(req), in->e164))
		return hl_reply_invalid(req, "phone", "not a phone number");
	return 0;
}

/* POST /api/conversations/inbound: 201 with the message stored. */
int conv_inbound(struct hl_req *req)
{
	struct inbound in;
	struct conversation cv;
	int64_t contact, message;
	if (hl_assigned_only(req))
		return hl_reply_error(req, 403, "forbidden",
				      "the inbound hook needs a user who sees every conversation");
	int rc = read_inbound(req, &in);
	if (!rc)
		rc = find_contact(req, &in, &contact);
	if (rc)
		return rc == HL_EINVAL ? 0 : rc;
	if (!hl_write_begin(req))
		return HL_EDB;
	rc = conv_find_or_open(req, contact, in.channel, 0, &cv);
	if (rc >= 0)
		rc = conv_add_message(req, &cv, 1, in.channel, in.body, NULL, &message);
	if (!rc)
		rc = conv_tell_reply(req, cv.id, in.body);
	if (!rc)
		rc = conv_publish(req, "message.received", message, contact, cv.id, message,
				  in.channel);
	return rc ? rc : conv_reply_message(req, 201, message);
}

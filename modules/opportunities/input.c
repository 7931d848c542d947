/* SPDX-License-Identifier: MIT */
/*
 * input.c: a deal's body, read member by member and checked (422 naming
 * the member, unknown members refused): the name, the value in whole
 * cents, the currency (three capitals), the contact (a live one of the
 * location), the owner (a user who can open the location), the stage (one
 * of the location's, in the pipeline named or the deal's), the position
 * or the deal it goes before or after, the status and the reason it was
 * lost.
 */
#include "opportunities.h"

#include <stddef.h>
#include <string.h>

#define NAME_MAX_CHARS 200
#define REASON_MAX_CHARS 500

static const char *const create_keys[] = {
	"name", "pipeline_id", "stage_id", "position", "value_cents", "currency",
	"contact_id", "owner_id", NULL,
};

static const char *const change_keys[] = {
	"name", "stage_id", "position", "before_id", "after_id", "value_cents", "currency", "contact_id",
	"owner_id", "status", "lost_reason", NULL,
};

static const char *const statuses[] = { "open", "won", "lost", "abandoned", NULL };

/* Record which members were given, and which as null, from an hl_field_*
 * result. */
static int note(int rc, unsigned bit, struct deal_input *in)
{
	if (rc > HL_FIELD_ABSENT)
		in->given |= bit;
	if (rc == HL_FIELD_NULL)
		in->nulls |= bit;
	return rc;
}

static int read_texts(struct hl_req *req, struct deal_input *in)
{
	int rc = note(hl_field_text(req, 0, "name", NAME_MAX_CHARS, &in->name), DEAL_NAME, in);
	if (rc >= 0)
		rc = note(hl_field_text(req, 0, "currency", 3, &in->currency), DEAL_CURRENCY, in);
	if (rc >= 0)
		rc = note(hl_field_text(req, 0, "status", 16, &in->status), DEAL_STATUS, in);
	if (rc >= 0)
		rc = note(hl_field_text(req, 0, "lost_reason", REASON_MAX_CHARS, &in->lost_reason),
			  DEAL_REASON, in);
	return rc;
}

static int read_numbers(struct hl_req *req, struct deal_input *in)
{
	static const struct { const char *key; unsigned bit; int64_t min, max; size_t at; } nums[] = {
		{ "pipeline_id", DEAL_PIPELINE, 1, INT64_MAX, offsetof(struct deal_input, pipeline) },
		{ "stage_id", DEAL_STAGE, 1, INT64_MAX, offsetof(struct deal_input, stage) },
		{ "position", DEAL_POSITION, 0, INT32_MAX, offsetof(struct deal_input, position) },
		{ "before_id", DEAL_BEFORE, 1, INT64_MAX, offsetof(struct deal_input, before) },
		{ "after_id", DEAL_AFTER, 1, INT64_MAX, offsetof(struct deal_input, after) },
		{ "value_cents", DEAL_VALUE, 0, INT64_C(1000000000000000), offsetof(struct deal_input, value) },
		{ "contact_id", DEAL_CONTACT, 1, INT64_MAX, offsetof(struct deal_input, contact) },
		{ "owner_id", DEAL_OWNER, 1, INT64_MAX, offsetof(struct deal_input, owner) },
	};
	int rc = 0;
	for (size_t i = 0; rc >= 0 && i < sizeof(nums) / sizeof(nums[0]); i++)
		rc = note(hl_field_int(req, 0, nums[i].key, nums[i].min, nums[i].max,
				       (int64_t *)((char *)in + nums[i].at)), nums[i].bit, in);
	return rc;
}

/* The members that may not be null or empty, and the shapes of text. */
static int check_shapes(struct hl_req *req, const struct deal_input *in, int whole)
{
	if ((whole || in->given & DEAL_NAME) && (!in->name || !*in->name))
		return hl_reply_invalid(req, "name", "required, at most 200 characters");
	if (whole && !(in->given & DEAL_STAGE))
		return hl_reply_invalid(req, "stage_id", "required");
	static const char *const names[] = { "pipeline_id", "stage_id", "position", "before_id",
					     "after_id", "value_cents", "currency", "status" };
	static const unsigned bits[] = { DEAL_PIPELINE, DEAL_STAGE, DEAL_POSITION, DEAL_BEFORE,
					 DEAL_AFTER, DEAL_VALUE, DEAL_CURRENCY, DEAL_STATUS };
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (in->nulls & bits[i])
			return hl_reply_invalid(req, names[i], "may not be null");
	unsigned places = in->given & (DEAL_POSITION | DEAL_BEFORE | DEAL_AFTER);
	if (places & (places - 1))
		return hl_reply_invalid(req, places & DEAL_AFTER ? "after_id" : "before_id",
					"give one of position, before_id and after_id");
	const char *c = in->currency;
	if (c && (strlen(c) != 3 || c[0] < 'A' || c[0] > 'Z' || c[1] < 'A' || c[1] > 'Z' ||
		  c[2] < 'A' || c[2] > 'Z'))
		return hl_reply_invalid(req, "currency", "three capital letters, USD");
	int known = 0;
	for (int i = 0; in->status && statuses[i]; i++)
		known |= !strcmp(in->status, statuses[i]);
	if (in->status && !known)
		return hl_reply_invalid(req, "status", "open, won, lost or abandoned");
	return 0;
}

/* 1 when `sql` (with :location and :id) finds a row, 0, or HL_EDB; the
 * row's first column in *out. */
static int lookup(struct hl_req *req, const char *sql, int64_t id, int64_t *out)
{
	sqlite3_stmt *st = hl_scoped_read(req, sql);
	hl_bind_int(st, ":id", id);
	hl_bind_int(st, ":me", hl_assigned_user(req));
	return hl_step_int(st, out);
}

/* The contact, the owner and the stage, when given, are the location's
 * (the contact one an "assigned only" caller owns: the deal would show
 * its name); the stage's pipeline in in->stage_pipeline. */
static int check_refs(struct hl_req *req, struct deal_input *in)
{
	int64_t unused;
	int ok = !in->owner ? 1 : hl_user_in_location(hl_read(req), hl_location_id(req), in->owner);
	if (ok != 1)
		return ok < 0 ? ok : hl_reply_invalid(req, "owner_id", "no user of this sub-account");
	ok = !in->contact ? 1 : lookup(req, "SELECT 1 FROM contacts WHERE id = :id"
		" AND location_id = :location AND deleted_at IS NULL"
		" AND (:me = 0 OR owner_id = :me)", in->contact, &unused);
	if (ok != 1)
		return ok < 0 ? ok : hl_reply_invalid(req, "contact_id", "no contact of this sub-account");
	ok = !in->stage ? 1 : lookup(req, "SELECT pipeline_id FROM stages WHERE id = :id"
		" AND location_id = :location", in->stage, &in->stage_pipeline);
	if (ok != 1)
		return ok < 0 ? ok : hl_reply_invalid(req, "stage_id", "no stage of this sub-account");
	if (in->pipeline && in->stage_pipeline != in->pipeline)
		return hl_reply_invalid(req, "stage_id", "not a stage of pipeline_id");
	return 0;
}

int deal_read_input(struct hl_req *req, struct deal_input *in, int whole)
{
	memset(in, 0, sizeof(*in));
	int rc = hl_fields_only(req, 0, whole ? create_keys : change_keys);
	if (rc >= 0)
		rc = read_texts(req, in);
	if (rc >= 0)
		rc = read_numbers(req, in);
	if (rc < 0)
		return rc;
	if ((rc = check_shapes(req, in, whole)))
		return rc;
	return check_refs(req, in);
}

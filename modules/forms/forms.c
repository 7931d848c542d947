/* SPDX-License-Identifier: MIT */
/*
 * forms.c: the forms module: forms a sub-account puts on its website (a
 * hosted page /f/SLUG that strangers fill in without signing in) and the
 * submissions they send, each upserting a contact through the contacts
 * module's service contacts.find_or_add, tagging it and publishing
 * form.submitted, which the contact's timeline reads. Location admins
 * make and change forms; every user of the sub-account reads them.
 */
#include "forms.h"

#include "migrations.h"

static const char *const requires[] = { "contacts", NULL };

#define ADMIN .access = HL_ACCESS_LOCATION_ADMIN

static const struct hl_route routes[] = {
	{ .method = "GET", .pattern = "/api/forms", .handler = forms_list },
	{ .method = "POST", .pattern = "/api/forms", .handler = forms_create, ADMIN },
	{ .method = "GET", .pattern = "/api/forms/:id", .handler = forms_record },
	{ .method = "PATCH", .pattern = "/api/forms/:id", .handler = forms_change, ADMIN },
	{ .method = "DELETE", .pattern = "/api/forms/:id", .handler = forms_delete, ADMIN },
	{ .method = "GET", .pattern = "/api/forms/:id/submissions", .handler = forms_submissions },
	{ .method = "GET", .pattern = "/f/:slug", .handler = forms_page, .access = HL_ACCESS_PUBLIC },
	{ .method = "POST", .pattern = "/f/:slug", .handler = forms_post,
	  .access = HL_ACCESS_PUBLIC, .flags = HL_ROUTE_RAW_BODY },
};

/* The records people know, as the audit log names them. */
static const struct hl_record_kind records[] = {
	{ .table = "forms", .noun = "form", .name_sql = "SELECT name FROM forms WHERE id = :id" },
	{ .table = "form_submissions", .noun = "form submission",
	  .name_sql = "SELECT 'to ' || f.name FROM form_submissions s JOIN forms f ON f.id = s.form_id"
		      " WHERE s.id = :id" },
};

/* A submission on its contact's timeline; no link until the forms have a
 * page in the browser to lead to. */
static const struct hl_event_line event_lines[] = {
	{ "form.submitted", "SELECT 'Form ' || f.name || ' submitted', NULL"
	  " FROM form_submissions s JOIN forms f ON f.id = s.form_id"
	  " WHERE s.id = :subject AND s.location_id = :location" },
};

static int init(struct hl_mod *mod)
{
	int rc = forms_page_init(mod);
	return rc ? rc : forms_token_init(mod);
}

HL_MODULE(.name = "forms", .version = "0.1.0", .requires = requires, .init = init,
	  .summary = "forms on a website: public pages, submissions, contacts from them",
	  .migrations = HL_TABLE(migrations), .routes = HL_TABLE(routes),
	  .records = HL_TABLE(records), .event_lines = HL_TABLE(event_lines));

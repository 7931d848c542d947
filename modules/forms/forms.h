/* SPDX-License-Identifier: MIT */
/*
 * forms.h: the forms module's parts. forms.c registers them; api.c is the
 * staff's API (a sub-account's forms and their submissions), fields.c
 * checks a form's body; page.c is the public page /f/:slug and submit.c
 * what a visitor's POST does (the spam checks, the contact, the
 * submission).
 */
#ifndef FORMS_H
#define FORMS_H

#include <hyperlevel/hyperlevel.h>

#define FORM_FIELDS_MAX 50
#define FORM_TEXT_MAX 2000   /* a visitor's answer, in characters */

/* api.c */
int forms_list(struct hl_req *req);
int forms_record(struct hl_req *req);
int forms_create(struct hl_req *req);
int forms_change(struct hl_req *req);
int forms_delete(struct hl_req *req);
int forms_submissions(struct hl_req *req);

/* fields.c: a form's body checked (422 naming the member, HL_EINVAL;
 * `whole`: a new form, name and fields required); fields and tags are
 * their JSON text, NULL when absent. */
struct form_body {
	const char *name, *fields, *tags, *thank_you, *redirect_url;
	int has_thank_you, has_redirect;
};
int form_body_read(struct hl_req *req, struct form_body *b, int whole);

/* page.c: the public page. */
int forms_page_init(struct hl_mod *mod);
int forms_page(struct hl_req *req);
int forms_post(struct hl_req *req);

/* One field of a form, as its JSON says (fields.c checked it). */
struct form_field {
	const char *key, *label, *type, *consent, *maps_to;
	const char *options;   /* JSON array text, or NULL */
	int required;
	const char *value;     /* what the visitor gave ("\n" between boxes), or NULL */
	const char *error;     /* what is wrong with it, or NULL */
};

/* A form as its public page shows it. */
struct form_view {
	int64_t id, location;
	const char *slug, *name, *tags, *thank_you, *redirect_url;
	int n;
	struct form_field field[FORM_FIELDS_MAX];
	const char *notice;    /* above the form, or NULL */
	const char *origin[6]; /* referrer and the utm_* values it came with */
};
extern const char *const form_origin_keys[6];

/* The form with public address `slug`: 1, 0 for none, HL_EDB. */
int form_load(struct hl_req *req, struct hl_db *db, const char *slug, struct form_view *v);
/* Answer the form's page (done: the thank-you words instead), own CSP. */
int form_reply(struct hl_req *req, int status, const struct form_view *v, int done);
/* The 404 page of an unknown slug. */
int forms_reply_missing(struct hl_req *req);

/* submit.c */
/* The setting token_key (64 hex digits), when set: 0, HL_EINVAL. */
int forms_token_init(struct hl_mod *mod);
/* The signed time token the page carries. */
const char *form_token(struct hl_req *req, struct hl_db *db, const char *slug);
/* The setting min_fill_seconds (page.c reads it): how long a person
 * takes at least. */
int forms_min_fill_s(void);

#endif

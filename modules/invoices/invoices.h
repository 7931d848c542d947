/* SPDX-License-Identifier: MIT */
/*
 * invoices.h: the invoices module's parts. invoices.c registers them;
 * list.c answers the list, record.c one invoice with its lines and
 * payments; money.c computes a line's amount and tax and the totals;
 * lines.c reads the body's items and stores them; write.c creates,
 * changes and deletes drafts; status.c sends, voids and records
 * payments; settings.c keeps the sub-account's business details and
 * the notes and terms new invoices start with; store.c holds what the writers share (the invoice's state,
 * the next number, the contact check, events).
 */
#ifndef INVOICES_H
#define INVOICES_H

#include <hyperlevel/hyperlevel.h>

/* No amount, line or total may exceed this many cents (a hundred billion
 * dollars): products of two bounded values then stay far inside int64. */
#define MONEY_MAX 10000000000000LL
#define ITEMS_MAX 200
#define DESCRIPTION_MAX 500
/* What the printout says beside the lines, in characters. */
#define ADDRESS_MAX 500
#define NOTE_MAX 2000
/* A line's quantity has at most 3 decimals (1.5 hours, 0.125 kg): it is
 * kept in thousandths; at most a billion. */
#define QUANTITY_PLACES 3
#define QUANTITY_SCALE 1000
#define QUANTITY_MAX (1000000000LL * QUANTITY_SCALE)

/* ---- money (money.c) ------------------------------------------------------- */

struct line {
	const char *description;
	int64_t quantity_milli; /* the quantity in thousandths */
	int64_t unit_price_cents, tax_rate_bp, discount_cents;
	int64_t amount_cents, tax_cents; /* computed */
};

struct totals {
	int64_t subtotal_cents, tax_cents, total_cents;
};

/* Compute `l`'s amount and tax: NULL, or why it cannot be (a 422 message
 * without the member's name). */
const char *line_compute(struct line *l);
/* Add up `n` computed lines: 0, or HL_ETOOBIG past MONEY_MAX. */
int totals_compute(const struct line *lines, int n, struct totals *t);

/* ---- lines (lines.c) --------------------------------------------------------- */

/* The body's "items" (1 to ITEMS_MAX objects), computed, and their
 * totals. 0, or HL_EINVAL after answering 422 naming the member. */
int lines_read(struct hl_req *req, int tok, struct line **lines, int *n, struct totals *t);
/* Replace invoice `id`'s lines and totals with these. 0, HL_EDB. */
int lines_store(struct hl_req *req, int64_t id, const struct line *lines, int n,
		const struct totals *t);

/* ---- what the writers share (store.c) ------------------------------------------- */

struct invoice_state {
	int64_t id, contact_id, total_cents, paid_cents;
	char status[16];
};

/* Invoice `id` of the location as the write transaction sees it: 0, or
 * HL_EINVAL after answering 404 (a handler may return it), HL_EDB. */
int invoice_state_load(struct hl_req *req, int64_t id, struct invoice_state *s);
/* The next number of the location ("INV-00042"), taken in the write
 * transaction. NULL on a database error. */
const char *invoice_number_next(struct hl_req *req);
/* The column of an invoice's contact's name (contacts as c). */
#define INVOICE_CONTACT_NAME " trim(c.first_name || ' ' || c.last_name) AS contact_name"
/* The business an invoice (as i) comes from, as a JSON object {"name",
 * "address", "email", "phone", "tax_id", "logo_url"}: the sub-account's
 * own with its logo (invoice_settings as s, location_logos as sl) when it
 * gives a business name, else the agency's with its logo (agencies as a,
 * agency_logos as g); joined by INVOICE_BUSINESS_JOIN. */
#define INVOICE_BUSINESS "iif(s.business_name <> '', json_object('name', s.business_name," \
	" 'address', s.address, 'email', s.email, 'phone', s.phone, 'tax_id', s.tax_id," \
	" 'logo_url', '/api/logos/' || sl.key), json_object('name', a.name, 'address', a.address," \
	" 'email', a.email, 'phone', a.phone, 'tax_id', a.tax_id, 'logo_url', '/api/logos/' || g.key))"
#define INVOICE_BUSINESS_JOIN " LEFT JOIN invoice_settings s ON s.location_id = i.location_id" \
	" JOIN locations lo ON lo.id = i.location_id JOIN agencies a ON a.id = lo.agency_id" \
	" LEFT JOIN agency_logos g ON g.agency_id = a.id" \
	" LEFT JOIN location_logos sl ON sl.location_id = i.location_id"
/* Invoices have no owner of their own: an invoice is the user's who owns
 * its contact, and a caller who sees only what is assigned to them sees
 * the invoices of their own live contacts, and no other (the reports
 * module counts their figures by the same rule). A condition on invoices
 * as i; bind :me to hl_assigned_user(req). */
#define INVOICE_MINE " AND (:me = 0 OR i.contact_id IN (SELECT id FROM contacts" \
	" WHERE location_id = :location AND owner_id = :me AND deleted_at IS NULL))"
/* Whether `id` is a live contact of the location (for an "assigned only"
 * caller, one they own): 1, 0, HL_EDB. */
int invoice_contact_ok(struct hl_req *req, int64_t id);
/* Publish `name` about invoice `id`, with {"contact_id": N} when it has
 * one, as a record of the contact's owner. */
int invoice_publish(struct hl_req *req, const char *name, int64_t id, int64_t contact_id);
/* Answer 409 because the invoice is `status`, saying what cannot be done. */
int invoice_refuse(struct hl_req *req, const char *status, const char *what);

/* ---- the printouts (doc.c, view.c, mail.c) --------------------------------------- */

struct invoice_doc_line {
	const char *description, *quantity;
	int64_t unit_price_cents, discount_cents, tax_rate_bp, amount_cents;
};

/* An invoice as it is printed; texts are "" when there is none. */
enum { DOC_SUBTOTAL, DOC_TAX, DOC_TOTAL, DOC_PAID, DOC_BALANCE };
enum { DOC_ISSUED, DOC_DUE, DOC_CLIENT, DOC_CLIENT_EMAIL, DOC_CLIENT_ADDRESS, DOC_NOTES,
       DOC_TERMS, DOC_FROM_NAME, DOC_FROM_ADDRESS, DOC_FROM_EMAIL, DOC_FROM_PHONE,
       DOC_FROM_TAX_ID, DOC_LOGO_KEY, DOC_TEXTS };
struct invoice_doc {
	int64_t id, location;
	const char *number, *status, *currency;
	int64_t cents[5];            /* DOC_SUBTOTAL ... */
	const char *texts[DOC_TEXTS]; /* DOC_ISSUED ... ("YYYY-MM-DD" days) */
	struct invoice_doc_line *lines;
	int nlines;
	int letter;                  /* printed on US Letter (else A4) */
	const char *logo_type;       /* "image/png" ..., "" without a logo */
	const void *logo;            /* its bytes */
	size_t logo_len;
};

/* The invoice whose view key is `key`: 0, HL_ENOENT, HL_EDB. */
int invoice_doc_load(struct hl_req *req, const char *key, struct invoice_doc *d);
/* The same for invoice `id` of the request's sub-account, as the caller
 * may see it (INVOICE_MINE). */
int invoice_doc_load_id(struct hl_req *req, int64_t id, struct invoice_doc *d);
/* The invoice as a PDF, the same as its printout, in the request's
 * memory: 0, HL_ENOMEM, HL_EIO (cairo failed; logged), HL_ESTATE (others
 * were being drawn for longer than a second: busy). Any thread. */
int invoice_pdf(struct hl_req *req, const struct invoice_doc *d, const void **pdf, size_t *len);
/* What a printout says of the invoice's state: "Awaiting payment", "Paid". */
const char *invoice_status_words(const char *status);
/* Invoice `id`'s view key, made when it has none, in the write
 * transaction: NULL on a database error. */
const char *invoice_view_key(struct hl_req *req, int64_t id);
/* The currencies whose amounts have no minor unit: an amount of them is
 * kept, and printed, in whole units (for invoice_money and SQL alike). */
#define INVOICE_WHOLE_UNITS "BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX VND VUV XAF XOF XPF"
/* `minor` units of `currency` for people, as English prints them on a
 * document: "$1,234.50", "€12.00", "CHF 7.50" (a no-break space). */
void invoice_money(char *out, size_t size, int64_t minor, const char *currency);
/* A "YYYY-MM-DD" day for people: "Dec 7, 2026"; "" for "". */
void invoice_day(char *out, size_t size, const char *ymd);
/* Make the public page's policy, once, in init: 0 or HL_ETOOBIG. */
int invoices_view_init(void);

/* ---- handlers ------------------------------------------------------------------- */

int invoices_list(struct hl_req *req);        /* list.c */
int invoices_record(struct hl_req *req);      /* record.c */
/* Answer invoice `id` of the location whole, with `status`; 404 if none. */
int invoices_reply_record(struct hl_req *req, int status, int64_t id);
int invoices_create(struct hl_req *req);      /* write.c */
int invoices_change(struct hl_req *req);
int invoices_delete(struct hl_req *req);
int invoices_send(struct hl_req *req);        /* status.c */
int invoices_void(struct hl_req *req);
int invoices_pay(struct hl_req *req);
int invoices_email(struct hl_req *req);       /* mail.c */
int invoices_mail_slice(struct hl_job_run *run);
int invoices_view(struct hl_req *req);        /* view.c */
int invoices_pdf(struct hl_req *req);         /* pdf.c */
int invoices_view_pdf(struct hl_req *req);
int invoices_settings_get(struct hl_req *req); /* settings.c */
int invoices_settings_put(struct hl_req *req);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * lines.c: an invoice's lines from the body's "items", checked one by one
 * (a 422 names the member as items[2].quantity) and computed by money.c,
 * and their storage: a change replaces every line and the invoice's
 * totals in the same write transaction.
 */
#include "invoices.h"

#include <string.h>

/* Answer 422 about member `key` of item `i`; HL_EINVAL. */
static int refuse(struct hl_req *req, int i, const char *key, const char *what)
{
	hl_reply_error(req, 422, "validation", "items[%d]%s%s: %s", i, *key ? "." : "", key, what);
	return HL_EINVAL;
}

/* Member `key` of item `item` as an integer in [min, max], or `def` when
 * absent (required when def < 0). Members found are counted in *known. */
static int item_int(struct hl_req *req, int item, int i, const char *key, int64_t min,
		    int64_t max, int64_t def, int64_t *out, int *known)
{
	int tok = hl_body_find(req, item, key);
	*out = def;
	if (tok >= 0)
		++*known;
	if (tok < 0 && def >= 0)
		return 0;
	if (tok < 0 || hl_body_int(req, tok, out) || *out < min || *out > max)
		return refuse(req, i, key, hl_sprintf(req, "an integer from %lld to %lld",
						      (long long)min, (long long)max));
	return 0;
}

static int item_read(struct hl_req *req, int item, int i, struct line *l)
{
	if (hl_body_type(req, item) != HL_JSON_OBJECT)
		return refuse(req, i, "", "an object with description, quantity and unit_price_cents");
	int known = 0, tok = hl_body_find(req, item, "description");
	l->description = tok >= 0 ? hl_body_string(req, tok) : NULL;
	if (tok >= 0)
		known++;
	if (!l->description || !*l->description || hl_text_length(l->description) > DESCRIPTION_MAX)
		return refuse(req, i, "description", "text of 1 to 500 characters");
	int rc = item_int(req, item, i, "quantity", 1, MONEY_MAX, -1, &l->quantity, &known);
	if (!rc)
		rc = item_int(req, item, i, "unit_price_cents", 0, MONEY_MAX, -1,
			      &l->unit_price_cents, &known);
	if (!rc)
		rc = item_int(req, item, i, "tax_rate_bp", 0, 10000, 0, &l->tax_rate_bp, &known);
	if (!rc)
		rc = item_int(req, item, i, "discount_cents", 0, MONEY_MAX, 0, &l->discount_cents,
			      &known);
	if (rc)
		return rc;
	if (known != hl_body_count(req, item))
		return refuse(req, i, "", "only description, quantity, unit_price_cents,"
			      " tax_rate_bp and discount_cents");
	const char *problem = line_compute(l);
	return problem ? refuse(req, i, "", problem) : 0;
}

int lines_read(struct hl_req *req, int tok, struct line **lines, int *n, struct totals *t)
{
	*n = tok >= 0 && hl_body_type(req, tok) == HL_JSON_ARRAY ? hl_body_count(req, tok) : 0;
	if (*n < 1 || *n > ITEMS_MAX) {
		hl_reply_error(req, 422, "validation", "items: an array of 1 to %d lines", ITEMS_MAX);
		return HL_EINVAL;
	}
	*lines = hl_alloc(req, sizeof(**lines) * (size_t)*n);
	memset(*lines, 0, sizeof(**lines) * (size_t)*n);
	for (int i = 0; i < *n; i++) {
		int rc = item_read(req, hl_body_index(req, tok, i), i, &(*lines)[i]);
		if (rc)
			return rc;
	}
	if (totals_compute(*lines, *n, t)) {
		hl_reply_error(req, 422, "validation", "items: the total is over 10000000000000 cents");
		return HL_EINVAL;
	}
	return 0;
}

static int step_done(sqlite3_stmt *st)
{
	return st && sqlite3_step(st) == SQLITE_DONE ? 0 : HL_EDB;
}

/* The same statement for every line: prepared once per connection. */
static int line_insert(struct hl_req *req, int64_t id, int position, const struct line *l)
{
	sqlite3_stmt *st = hl_scoped_write(req,
		"INSERT INTO invoice_items (location_id, invoice_id, position, description,"
		" quantity, unit_price_cents, tax_rate_bp, discount_cents, amount_cents, tax_cents)"
		" VALUES (:location, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
	if (!st)
		return HL_EDB;
	sqlite3_bind_int64(st, 2, id);
	sqlite3_bind_int(st, 3, position);
	sqlite3_bind_text(st, 4, l->description, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, l->quantity);
	sqlite3_bind_int64(st, 6, l->unit_price_cents);
	sqlite3_bind_int64(st, 7, l->tax_rate_bp);
	sqlite3_bind_int64(st, 8, l->discount_cents);
	sqlite3_bind_int64(st, 9, l->amount_cents);
	sqlite3_bind_int64(st, 10, l->tax_cents);
	return step_done(st);
}

int lines_store(struct hl_req *req, int64_t id, const struct line *lines, int n,
		const struct totals *t)
{
	sqlite3_stmt *st = hl_scoped_write(req, "DELETE FROM invoice_items"
					   " WHERE invoice_id = ?2 AND location_id = :location");
	if (st)
		sqlite3_bind_int64(st, 2, id);
	int rc = step_done(st);
	for (int i = 0; i < n && !rc; i++)
		rc = line_insert(req, id, i, &lines[i]);
	st = rc ? NULL : hl_scoped_write(req,
		"UPDATE invoices SET subtotal_cents = ?3, tax_cents = ?4, total_cents = ?5"
		" WHERE id = ?2 AND location_id = :location");
	if (!st)
		return HL_EDB;
	sqlite3_bind_int64(st, 2, id);
	sqlite3_bind_int64(st, 3, t->subtotal_cents);
	sqlite3_bind_int64(st, 4, t->tax_cents);
	sqlite3_bind_int64(st, 5, t->total_cents);
	return step_done(st);
}

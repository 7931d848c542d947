/* SPDX-License-Identifier: MIT */
/*
 * lines.c: an invoice's lines from the body's "items", checked one by one
 * (a 422 names the member as items[2].quantity) and computed by money.c,
 * and their storage: a change replaces every line and the invoice's
 * totals in the same write transaction.
 */
#include "invoices.h"

#include <string.h>

/* The name a 422 gives member `key` of item `i`: "items[2].quantity", or
 * "items[2]" for the item itself (key ""). */
static const char *member(struct hl_req *req, int i, const char *key)
{
	return hl_sprintf(req, "items[%d]%s%s", i, *key ? "." : "", key);
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
		return hl_reply_invalid(req, member(req, i, key), "an integer from %lld to %lld",
					(long long)min, (long long)max);
	return 0;
}

/* The item's quantity, required: a number from 0.001 up, with at most 3
 * decimals, into l->quantity_milli. */
static int item_quantity(struct hl_req *req, int item, int i, struct line *l, int *known)
{
	int tok = hl_body_find(req, item, "quantity");
	if (tok >= 0)
		++*known;
	if (tok < 0 || hl_body_decimal(req, tok, QUANTITY_PLACES, &l->quantity_milli) ||
	    l->quantity_milli < 1 || l->quantity_milli > QUANTITY_MAX)
		return hl_reply_invalid(req, member(req, i, "quantity"), "a number from 0.001 to"
					" 1000000000, with at most 3 decimals");
	return 0;
}

static int item_read(struct hl_req *req, int item, int i, struct line *l)
{
	if (hl_body_type(req, item) != HL_JSON_OBJECT)
		return hl_reply_invalid(req, member(req, i, ""), "an object with description,"
					" quantity and unit_price_cents");
	int known = 0, tok = hl_body_find(req, item, "description");
	l->description = tok >= 0 ? hl_body_string(req, tok) : NULL;
	if (tok >= 0)
		known++;
	if (!l->description || !*l->description || hl_text_length(l->description) > DESCRIPTION_MAX)
		return hl_reply_invalid(req, member(req, i, "description"),
					"text of 1 to 500 characters");
	int rc = item_quantity(req, item, i, l, &known);
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
		return hl_reply_invalid(req, member(req, i, ""), "only description, quantity,"
					" unit_price_cents, tax_rate_bp and discount_cents");
	const char *problem = line_compute(l);
	return problem ? hl_reply_invalid(req, member(req, i, ""), "%s", problem) : 0;
}

int lines_read(struct hl_req *req, int tok, struct line **lines, int *n, struct totals *t)
{
	*n = tok >= 0 && hl_body_type(req, tok) == HL_JSON_ARRAY ? hl_body_count(req, tok) : 0;
	if (*n < 1 || *n > ITEMS_MAX)
		return hl_reply_invalid(req, "items", "an array of 1 to %d lines", ITEMS_MAX);
	*lines = hl_alloc(req, sizeof(**lines) * (size_t)*n);
	memset(*lines, 0, sizeof(**lines) * (size_t)*n);
	for (int i = 0; i < *n; i++) {
		int rc = item_read(req, hl_body_index(req, tok, i), i, &(*lines)[i]);
		if (rc)
			return rc;
	}
	if (totals_compute(*lines, *n, t))
		return hl_reply_invalid(req, "items", "the total is over 10000000000000 cents");
	return 0;
}

/* The same statement for every line: prepared once per connection. */
static int line_insert(struct hl_req *req, int64_t id, int position, const struct line *l)
{
	sqlite3_stmt *st = hl_scoped_write(req,
		"INSERT INTO invoice_items (location_id, invoice_id, position, description,"
		" quantity, unit_price_cents, tax_rate_bp, discount_cents, amount_cents, tax_cents)"
		" VALUES (:location, :invoice_id, :position, :description,"
		" iif(:quantity_milli % 1000, :quantity_milli / 1000.0, :quantity_milli / 1000),"  /* QUANTITY_SCALE */
		" :unit_price_cents, :tax_rate_bp, :discount_cents, :amount_cents, :tax_cents)");
	hl_bind_int(st, ":invoice_id", id);
	hl_bind_int(st, ":position", position);
	hl_bind_text(st, ":description", l->description);
	/* A whole quantity stays an integer (the statement above); another is
	 * a REAL of at most 3 decimals, which the column keeps as it is and
	 * JSON prints short. */
	hl_bind_int(st, ":quantity_milli", l->quantity_milli);
	hl_bind_int(st, ":unit_price_cents", l->unit_price_cents);
	hl_bind_int(st, ":tax_rate_bp", l->tax_rate_bp);
	hl_bind_int(st, ":discount_cents", l->discount_cents);
	hl_bind_int(st, ":amount_cents", l->amount_cents);
	hl_bind_int(st, ":tax_cents", l->tax_cents);
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

int lines_store(struct hl_req *req, int64_t id, const struct line *lines, int n,
		const struct totals *t)
{
	sqlite3_stmt *st = hl_scoped_write(req, "DELETE FROM invoice_items"
					   " WHERE invoice_id = :id AND location_id = :location");
	hl_bind_int(st, ":id", id);
	int rc = hl_step_changes(st) < 0 ? HL_EDB : 0;
	for (int i = 0; i < n && !rc; i++)
		rc = line_insert(req, id, i, &lines[i]);
	st = rc ? NULL : hl_scoped_write(req,
		"UPDATE invoices SET subtotal_cents = :subtotal_cents, tax_cents = :tax_cents,"
		" total_cents = :total_cents WHERE id = :id AND location_id = :location");
	hl_bind_int(st, ":id", id);
	hl_bind_int(st, ":subtotal_cents", t->subtotal_cents);
	hl_bind_int(st, ":tax_cents", t->tax_cents);
	hl_bind_int(st, ":total_cents", t->total_cents);
	return hl_step_changes(st) < 0 ? HL_EDB : 0;
}

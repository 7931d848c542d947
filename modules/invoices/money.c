/* SPDX-License-Identifier: MIT */
/*
 * money.c: the arithmetic of an invoice, in integer cents only.
 *
 * A line's amount is quantity × unit price − its discount, the product
 * rounded half up to a whole cent (the quantity may have 3 decimals:
 * 1.5 hours at $95.99 is $143.985, so $143.99). Its tax is
 * amount × rate / 10000 (the rate in basis points), rounded half up to a
 * whole cent, per line: 1,005 cents at 5 % is 50.25 → 50, 1,010 cents is
 * 50.5 → 51. The invoice's subtotal is the sum of the amounts, its tax the
 * sum of the lines' taxes, its total their sum. Every amount is at most
 * MONEY_MAX (10^13 cents), checked before each multiplication, so nothing
 * here can overflow int64.
 */
#include "invoices.h"

/* amount × rate_bp / 10000, half up: amount ≤ 10^13 and rate ≤ 10^4, so
 * the product stays under 10^17. Amounts are never negative. */
static int64_t tax_of(int64_t amount, int64_t rate_bp)
{
	return (amount * rate_bp + 5000) / 10000;
}

const char *line_compute(struct line *l)
{
	/* quantity_milli × price ≤ MONEY_MAX × QUANTITY_SCALE (10^16), checked
	 * before it is multiplied. */
	if (l->unit_price_cents && l->quantity_milli > MONEY_MAX * QUANTITY_SCALE / l->unit_price_cents)
		return "quantity × unit_price_cents is over 10000000000000 cents";
	int64_t gross = (l->quantity_milli * l->unit_price_cents + QUANTITY_SCALE / 2) / QUANTITY_SCALE;
	if (l->discount_cents > gross)
		return "discount_cents is more than quantity × unit_price_cents";
	l->amount_cents = gross - l->discount_cents;
	l->tax_cents = tax_of(l->amount_cents, l->tax_rate_bp);
	return NULL;
}

int totals_compute(const struct line *lines, int n, struct totals *t)
{
	t->subtotal_cents = t->tax_cents = 0;
	for (int i = 0; i < n; i++) {
		/* Each term is ≤ MONEY_MAX and the sums are checked as they
		 * grow, so they never pass 3 × MONEY_MAX. */
		t->subtotal_cents += lines[i].amount_cents;
		t->tax_cents += lines[i].tax_cents;
		if (t->subtotal_cents + t->tax_cents > MONEY_MAX)
			return HL_ETOOBIG;
	}
	t->total_cents = t->subtotal_cents + t->tax_cents;
	return 0;
}

-- What the server computes per line (a discount and a tax rate in basis
-- points, the line's tax in cents), the per-location counter that hands
-- out gap-free invoice numbers, and the list's order (newest first) with
-- and without a status filter.
ALTER TABLE invoice_items ADD COLUMN tax_rate_bp INTEGER NOT NULL DEFAULT 0;
ALTER TABLE invoice_items ADD COLUMN discount_cents INTEGER NOT NULL DEFAULT 0;
ALTER TABLE invoice_items ADD COLUMN tax_cents INTEGER NOT NULL DEFAULT 0;

-- The last number given out per location. A create takes the next one in
-- its own write transaction, so a refused or rolled-back create never
-- burns a number, and two creates never share one.
CREATE TABLE invoice_counters (
	location_id INTEGER PRIMARY KEY REFERENCES locations (id),
	last INTEGER NOT NULL
);

CREATE INDEX invoices_location_created ON invoices (location_id, created_at, id);
CREATE INDEX invoices_location_status_created ON invoices (location_id, status, created_at, id);

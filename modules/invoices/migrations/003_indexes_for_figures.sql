-- Unpaid invoices with their amounts, and payments over time, per
-- sub-account: the outstanding and overdue totals and the payments
-- series, read from the index alone. Made by the agency and reports
-- modules' migrations before; a database that has them keeps them.
CREATE INDEX IF NOT EXISTS invoices_location_unpaid ON invoices (location_id, status, due_at,
	total_cents, paid_cents);
CREATE INDEX IF NOT EXISTS payments_location_paid ON payments (location_id, paid_at,
	amount_cents);

-- Each sub-account's unpaid invoices (sent or partially paid): how many
-- and the amount due, kept by triggers. The agency's screens and the
-- dashboard read one row instead of stepping every unpaid invoice (on the
-- full data set 2 000, 47 000 of the 93 000 SQLite steps of the agency's
-- totals). Overdue
-- depends on the clock: it is those unpaid less the ones due from now on
-- and the undated, which are few (a range of invoices_location_unpaid).
-- Published as unpaid_invoice_totals.
CREATE TABLE unpaid_counts (
	location_id INTEGER PRIMARY KEY REFERENCES locations (id),
	unpaid INTEGER NOT NULL,
	due_cents INTEGER NOT NULL
);
INSERT INTO unpaid_counts (location_id, unpaid, due_cents)
	SELECT location_id, count(*), sum(total_cents - paid_cents)
	FROM invoices
	WHERE status IN ('sent', 'partially_paid') GROUP BY 1;

CREATE TRIGGER unpaid_counts_insert AFTER INSERT ON invoices
	WHEN new.status IN ('sent', 'partially_paid')
BEGIN
	INSERT INTO unpaid_counts (location_id, unpaid, due_cents)
		VALUES (new.location_id, 1, new.total_cents - new.paid_cents)
		ON CONFLICT (location_id)
		DO UPDATE SET unpaid = unpaid + 1, due_cents = due_cents + excluded.due_cents;
END;
CREATE TRIGGER unpaid_counts_delete AFTER DELETE ON invoices
	WHEN old.status IN ('sent', 'partially_paid')
BEGIN
	UPDATE unpaid_counts SET unpaid = unpaid - 1,
		due_cents = due_cents - (old.total_cents - old.paid_cents)
		WHERE location_id = old.location_id;
END;
CREATE TRIGGER unpaid_counts_update AFTER UPDATE OF location_id, status, total_cents, paid_cents
	ON invoices
	WHEN old.status IN ('sent', 'partially_paid') OR new.status IN ('sent', 'partially_paid')
BEGIN
	UPDATE unpaid_counts SET unpaid = unpaid - 1,
		due_cents = due_cents - (old.total_cents - old.paid_cents)
		WHERE location_id = old.location_id AND old.status IN ('sent', 'partially_paid');
	INSERT INTO unpaid_counts (location_id, unpaid, due_cents)
		SELECT new.location_id, 1, new.total_cents - new.paid_cents
		WHERE new.status IN ('sent', 'partially_paid')
		ON CONFLICT (location_id)
		DO UPDATE SET unpaid = unpaid + 1, due_cents = due_cents + excluded.due_cents;
END;
CREATE VIEW unpaid_invoice_totals (location_id, unpaid, due_cents) AS
	SELECT location_id, unpaid, due_cents FROM unpaid_counts;

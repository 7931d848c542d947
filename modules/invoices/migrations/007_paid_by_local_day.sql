-- Payments per sub-account and day paid in the sub-account's own time
-- zone (locations.timezone, through local_day), no longer UTC. One place
-- turns a payment into its day: the triggers write each change as a
-- payment moving in or out, with its amount, to payment_day_moves, a view
-- whose INSTEAD OF trigger keeps payment_days. Made again here, and by
-- the module's recounts when a zone changes.
DROP TRIGGER payment_days_insert;
DROP TRIGGER payment_days_delete;
DROP TRIGGER payment_days_update;
DELETE FROM payment_days;

CREATE VIEW payment_day_moves (location_id, at, payments, cents) AS
	SELECT NULL, NULL, NULL, NULL WHERE 0;
CREATE TRIGGER payment_day_moves_insert INSTEAD OF INSERT ON payment_day_moves
BEGIN
	-- A move out changes only a day that holds something.
	INSERT INTO payment_days (location_id, day, payments, cents)
		SELECT new.location_id, d.day, new.payments, new.cents
		FROM (SELECT local_day(unixepoch(new.at),
			(SELECT timezone FROM locations WHERE id = new.location_id)) AS day) d
		WHERE new.payments > 0 OR EXISTS (SELECT 1 FROM payment_days k
			WHERE k.location_id = new.location_id AND k.day = d.day)
		ON CONFLICT (location_id, day)
		DO UPDATE SET payments = payments + excluded.payments, cents = cents + excluded.cents;
END;

INSERT INTO payment_day_moves SELECT location_id, paid_at, 1, amount_cents FROM payments
	WHERE paid_at IS NOT NULL;

CREATE TRIGGER payment_days_insert AFTER INSERT ON payments WHEN new.paid_at IS NOT NULL
BEGIN
	INSERT INTO payment_day_moves VALUES (new.location_id, new.paid_at, 1, new.amount_cents);
END;
CREATE TRIGGER payment_days_delete AFTER DELETE ON payments WHEN old.paid_at IS NOT NULL
BEGIN
	INSERT INTO payment_day_moves VALUES (old.location_id, old.paid_at, -1, -old.amount_cents);
END;
CREATE TRIGGER payment_days_update AFTER UPDATE OF location_id, paid_at, amount_cents
	ON payments WHEN (old.location_id, old.paid_at, old.amount_cents)
		IS NOT (new.location_id, new.paid_at, new.amount_cents)
BEGIN
	INSERT INTO payment_day_moves SELECT old.location_id, old.paid_at, -1, -old.amount_cents
		WHERE old.paid_at IS NOT NULL;
	INSERT INTO payment_day_moves SELECT new.location_id, new.paid_at, 1, new.amount_cents
		WHERE new.paid_at IS NOT NULL;
END;

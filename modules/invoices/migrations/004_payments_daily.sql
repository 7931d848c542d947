-- Payments per sub-account and day paid (UTC, in days since 1970), with
-- their amount, kept by triggers: the agency's overview adds up 30 days
-- of rows per sub-account instead of stepping every payment of those
-- days. Published as payments_daily.
-- WITHOUT ROWID: a range of days is read straight from the key's b-tree.
CREATE TABLE payment_days (
	location_id INTEGER NOT NULL REFERENCES locations (id),
	day INTEGER NOT NULL,
	payments INTEGER NOT NULL,
	cents INTEGER NOT NULL,
	PRIMARY KEY (location_id, day)
) WITHOUT ROWID;
INSERT INTO payment_days (location_id, day, payments, cents)
	SELECT location_id, CAST(strftime('%s', paid_at) AS INTEGER) / 86400,
		count(*), sum(amount_cents)
	FROM payments
	WHERE paid_at IS NOT NULL GROUP BY 1, 2;

CREATE TRIGGER payment_days_insert AFTER INSERT ON payments
	WHEN new.paid_at IS NOT NULL
BEGIN
	INSERT INTO payment_days (location_id, day, payments, cents)
		VALUES (new.location_id, CAST(strftime('%s', new.paid_at) AS INTEGER) / 86400,
			1, new.amount_cents)
		ON CONFLICT (location_id, day)
		DO UPDATE SET payments = payments + excluded.payments, cents = cents + excluded.cents;
END;
CREATE TRIGGER payment_days_delete AFTER DELETE ON payments
	WHEN old.paid_at IS NOT NULL
BEGIN
	UPDATE payment_days SET payments = payments - 1, cents = cents - old.amount_cents
		WHERE location_id = old.location_id
		AND day = CAST(strftime('%s', old.paid_at) AS INTEGER) / 86400;
END;
CREATE TRIGGER payment_days_update AFTER UPDATE OF location_id, paid_at, amount_cents
	ON payments
	WHEN old.location_id IS NOT new.location_id
		OR old.paid_at IS NOT new.paid_at
		OR old.amount_cents IS NOT new.amount_cents
BEGIN
	UPDATE payment_days SET payments = payments - 1, cents = cents - old.amount_cents
		WHERE location_id = old.location_id
		AND day = CAST(strftime('%s', old.paid_at) AS INTEGER) / 86400
		AND old.paid_at IS NOT NULL;
	INSERT INTO payment_days (location_id, day, payments, cents)
		SELECT new.location_id, CAST(strftime('%s', new.paid_at) AS INTEGER) / 86400,
			1, new.amount_cents
		WHERE new.paid_at IS NOT NULL
		ON CONFLICT (location_id, day)
		DO UPDATE SET payments = payments + excluded.payments, cents = cents + excluded.cents;
END;
CREATE VIEW payments_daily (location_id, day, payments, cents) AS
	SELECT location_id, day, payments, cents FROM payment_days;

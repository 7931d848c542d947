-- Payments per sub-account and day paid now in the sub-account's own time zone
-- (locations.timezone, through local_day), no longer UTC: "today" and a
-- by-day series mean the sub-account's days. The counts are made again
-- here, and by the module's recounts when a sub-account's zone changes.
DROP TRIGGER payment_days_insert;
DROP TRIGGER payment_days_delete;
DROP TRIGGER payment_days_update;
DELETE FROM payment_days;
INSERT INTO payment_days (location_id, day, payments, cents)
	SELECT location_id, local_day(unixepoch(paid_at),
			(SELECT timezone FROM locations l WHERE l.id = payments.location_id)),
		count(*), sum(amount_cents)
	FROM payments
	WHERE paid_at IS NOT NULL GROUP BY 1, 2;

CREATE TRIGGER payment_days_insert AFTER INSERT ON payments
	WHEN new.paid_at IS NOT NULL
BEGIN
	INSERT INTO payment_days (location_id, day, payments, cents)
		VALUES (new.location_id, local_day(unixepoch(new.paid_at),
				(SELECT timezone FROM locations WHERE id = new.location_id)),
			1, new.amount_cents)
		ON CONFLICT (location_id, day)
		DO UPDATE SET payments = payments + excluded.payments, cents = cents + excluded.cents;
END;
CREATE TRIGGER payment_days_delete AFTER DELETE ON payments
	WHEN old.paid_at IS NOT NULL
BEGIN
	UPDATE payment_days SET payments = payments - 1, cents = cents - old.amount_cents
		WHERE location_id = old.location_id
		AND day = local_day(unixepoch(old.paid_at),
				(SELECT timezone FROM locations WHERE id = old.location_id));
END;
CREATE TRIGGER payment_days_update AFTER UPDATE OF location_id, paid_at, amount_cents
	ON payments
	WHEN old.location_id IS NOT new.location_id
		OR old.paid_at IS NOT new.paid_at
		OR old.amount_cents IS NOT new.amount_cents
BEGIN
	UPDATE payment_days SET payments = payments - 1, cents = cents - old.amount_cents
		WHERE location_id = old.location_id
		AND day = local_day(unixepoch(old.paid_at),
				(SELECT timezone FROM locations WHERE id = old.location_id))
		AND old.paid_at IS NOT NULL;
	INSERT INTO payment_days (location_id, day, payments, cents)
		SELECT new.location_id, local_day(unixepoch(new.paid_at),
				(SELECT timezone FROM locations WHERE id = new.location_id)),
			1, new.amount_cents
		WHERE new.paid_at IS NOT NULL
		ON CONFLICT (location_id, day)
		DO UPDATE SET payments = payments + excluded.payments, cents = cents + excluded.cents;
END;

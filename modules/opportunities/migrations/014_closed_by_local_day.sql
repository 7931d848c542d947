-- Deals won and lost per sub-account and day of closing now in the sub-account's own time zone
-- (locations.timezone, through local_day), no longer UTC: "today" and a
-- by-day series mean the sub-account's days. The counts are made again
-- here, and by the module's recounts when a sub-account's zone changes.
DROP TRIGGER closed_days_insert;
DROP TRIGGER closed_days_delete;
DROP TRIGGER closed_days_update;
DELETE FROM closed_days;
INSERT INTO closed_days (location_id, status, day, deals, cents)
	SELECT location_id, status, local_day(unixepoch(closed_at),
			(SELECT timezone FROM locations l WHERE l.id = opportunities.location_id)),
		count(*), sum(value_cents)
	FROM opportunities
	WHERE status IN ('won', 'lost') AND closed_at IS NOT NULL GROUP BY 1, 2, 3;

CREATE TRIGGER closed_days_insert AFTER INSERT ON opportunities
	WHEN new.status IN ('won', 'lost') AND new.closed_at IS NOT NULL
BEGIN
	INSERT INTO closed_days (location_id, status, day, deals, cents)
		VALUES (new.location_id, new.status,
			local_day(unixepoch(new.closed_at),
				(SELECT timezone FROM locations WHERE id = new.location_id)), 1, new.value_cents)
		ON CONFLICT (location_id, status, day)
		DO UPDATE SET deals = deals + 1, cents = cents + excluded.cents;
END;
CREATE TRIGGER closed_days_delete AFTER DELETE ON opportunities
	WHEN old.status IN ('won', 'lost') AND old.closed_at IS NOT NULL
BEGIN
	UPDATE closed_days SET deals = deals - 1, cents = cents - old.value_cents
		WHERE location_id = old.location_id AND status = old.status
		AND day = local_day(unixepoch(old.closed_at),
				(SELECT timezone FROM locations WHERE id = old.location_id));
END;
CREATE TRIGGER closed_days_update AFTER UPDATE OF location_id, status, closed_at, value_cents
	ON opportunities
	WHEN old.location_id IS NOT new.location_id
		OR old.status IS NOT new.status
		OR old.closed_at IS NOT new.closed_at
		OR old.value_cents IS NOT new.value_cents
BEGIN
	UPDATE closed_days SET deals = deals - 1, cents = cents - old.value_cents
		WHERE location_id = old.location_id AND status = old.status
		AND day = local_day(unixepoch(old.closed_at),
				(SELECT timezone FROM locations WHERE id = old.location_id))
		AND old.status IN ('won', 'lost') AND old.closed_at IS NOT NULL;
	INSERT INTO closed_days (location_id, status, day, deals, cents)
		SELECT new.location_id, new.status,
			local_day(unixepoch(new.closed_at),
				(SELECT timezone FROM locations WHERE id = new.location_id)), 1, new.value_cents
		WHERE new.status IN ('won', 'lost') AND new.closed_at IS NOT NULL
		ON CONFLICT (location_id, status, day)
		DO UPDATE SET deals = deals + 1, cents = cents + excluded.cents;
END;

-- Deals won and lost per sub-account and day of closing in the
-- sub-account's own time zone (locations.timezone, through local_day), no
-- longer UTC. One place turns a closing into its day: the triggers write
-- each change as a deal moving in or out, with its value, to
-- closed_day_moves, a view whose INSTEAD OF trigger keeps closed_days.
-- Made again here, and by the module's recounts when a zone changes.
DROP TRIGGER closed_days_insert;
DROP TRIGGER closed_days_delete;
DROP TRIGGER closed_days_update;
DELETE FROM closed_days;

CREATE VIEW closed_day_moves (location_id, status, at, deals, cents) AS
	SELECT NULL, NULL, NULL, NULL, NULL WHERE 0;
CREATE TRIGGER closed_day_moves_insert INSTEAD OF INSERT ON closed_day_moves
BEGIN
	-- A move out changes only a day that holds something.
	INSERT INTO closed_days (location_id, status, day, deals, cents)
		SELECT new.location_id, new.status, d.day, new.deals, new.cents
		FROM (SELECT local_day(unixepoch(new.at),
			(SELECT timezone FROM locations WHERE id = new.location_id)) AS day) d
		WHERE new.deals > 0 OR EXISTS (SELECT 1 FROM closed_days k
			WHERE k.location_id = new.location_id AND k.status = new.status
			AND k.day = d.day)
		ON CONFLICT (location_id, status, day)
		DO UPDATE SET deals = deals + excluded.deals, cents = cents + excluded.cents;
END;

INSERT INTO closed_day_moves SELECT location_id, status, closed_at, 1, value_cents
	FROM opportunities WHERE status IN ('won', 'lost') AND closed_at IS NOT NULL;

CREATE TRIGGER closed_days_insert AFTER INSERT ON opportunities
	WHEN new.status IN ('won', 'lost') AND new.closed_at IS NOT NULL
BEGIN
	INSERT INTO closed_day_moves
		VALUES (new.location_id, new.status, new.closed_at, 1, new.value_cents);
END;
CREATE TRIGGER closed_days_delete AFTER DELETE ON opportunities
	WHEN old.status IN ('won', 'lost') AND old.closed_at IS NOT NULL
BEGIN
	INSERT INTO closed_day_moves
		VALUES (old.location_id, old.status, old.closed_at, -1, -old.value_cents);
END;
CREATE TRIGGER closed_days_update AFTER UPDATE OF location_id, status, closed_at, value_cents
	ON opportunities WHEN (old.location_id, old.status, old.closed_at, old.value_cents)
		IS NOT (new.location_id, new.status, new.closed_at, new.value_cents)
BEGIN
	INSERT INTO closed_day_moves SELECT old.location_id, old.status, old.closed_at, -1,
		-old.value_cents WHERE old.status IN ('won', 'lost') AND old.closed_at IS NOT NULL;
	INSERT INTO closed_day_moves SELECT new.location_id, new.status, new.closed_at, 1,
		new.value_cents WHERE new.status IN ('won', 'lost') AND new.closed_at IS NOT NULL;
END;

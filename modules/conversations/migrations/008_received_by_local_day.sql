-- Messages received per sub-account and day now in the sub-account's own time zone
-- (locations.timezone, through local_day), no longer UTC: "today" and a
-- by-day series mean the sub-account's days. The counts are made again
-- here, and by the module's recounts when a sub-account's zone changes.
DROP TRIGGER received_days_insert;
DROP TRIGGER received_days_delete;
DROP TRIGGER received_days_update;
DELETE FROM received_days;
INSERT INTO received_days (location_id, day, received)
	SELECT location_id, local_day(unixepoch(created_at),
			(SELECT timezone FROM locations l WHERE l.id = messages.location_id)),
		count(*)
	FROM messages
	WHERE direction = 'inbound' GROUP BY 1, 2;

CREATE TRIGGER received_days_insert AFTER INSERT ON messages
	WHEN new.direction = 'inbound'
BEGIN
	INSERT INTO received_days (location_id, day, received)
		VALUES (new.location_id, local_day(unixepoch(new.created_at),
				(SELECT timezone FROM locations WHERE id = new.location_id)), 1)
		ON CONFLICT (location_id, day)
		DO UPDATE SET received = received + excluded.received;
END;
CREATE TRIGGER received_days_delete AFTER DELETE ON messages
	WHEN old.direction = 'inbound'
BEGIN
	UPDATE received_days SET received = received - 1
		WHERE location_id = old.location_id
		AND day = local_day(unixepoch(old.created_at),
				(SELECT timezone FROM locations WHERE id = old.location_id));
END;
CREATE TRIGGER received_days_update AFTER UPDATE OF location_id, direction, created_at
	ON messages
	WHEN old.location_id IS NOT new.location_id
		OR old.direction IS NOT new.direction
		OR old.created_at IS NOT new.created_at
BEGIN
	UPDATE received_days SET received = received - 1
		WHERE location_id = old.location_id
		AND day = local_day(unixepoch(old.created_at),
				(SELECT timezone FROM locations WHERE id = old.location_id))
		AND old.direction = 'inbound';
	INSERT INTO received_days (location_id, day, received)
		SELECT new.location_id, local_day(unixepoch(new.created_at),
				(SELECT timezone FROM locations WHERE id = new.location_id)), 1
		WHERE new.direction = 'inbound'
		ON CONFLICT (location_id, day)
		DO UPDATE SET received = received + excluded.received;
END;

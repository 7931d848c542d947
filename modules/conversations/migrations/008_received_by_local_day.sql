-- Messages received per sub-account and day in the sub-account's own time
-- zone (locations.timezone, through local_day), no longer UTC. One place
-- turns a message into its day: the triggers write each change as a
-- message moving in or out to received_day_moves, a view whose INSTEAD OF
-- trigger keeps received_days. Made again here, and by the module's
-- recounts when a zone changes.
DROP TRIGGER received_days_insert;
DROP TRIGGER received_days_delete;
DROP TRIGGER received_days_update;
DELETE FROM received_days;

CREATE VIEW received_day_moves (location_id, at, delta) AS SELECT NULL, NULL, NULL WHERE 0;
CREATE TRIGGER received_day_moves_insert INSTEAD OF INSERT ON received_day_moves
BEGIN
	-- A move out changes only a day that holds something.
	INSERT INTO received_days (location_id, day, received)
		SELECT new.location_id, d.day, new.delta
		FROM (SELECT local_day(unixepoch(new.at),
			(SELECT timezone FROM locations WHERE id = new.location_id)) AS day) d
		WHERE new.delta > 0 OR EXISTS (SELECT 1 FROM received_days k
			WHERE k.location_id = new.location_id AND k.day = d.day)
		ON CONFLICT (location_id, day) DO UPDATE SET received = received + excluded.received;
END;

INSERT INTO received_day_moves SELECT location_id, created_at, 1 FROM messages
	WHERE direction = 'inbound';

CREATE TRIGGER received_days_insert AFTER INSERT ON messages WHEN new.direction = 'inbound'
BEGIN
	INSERT INTO received_day_moves VALUES (new.location_id, new.created_at, 1);
END;
CREATE TRIGGER received_days_delete AFTER DELETE ON messages WHEN old.direction = 'inbound'
BEGIN
	INSERT INTO received_day_moves VALUES (old.location_id, old.created_at, -1);
END;
CREATE TRIGGER received_days_update AFTER UPDATE OF location_id, direction, created_at
	ON messages WHEN (old.location_id, old.direction, old.created_at)
		IS NOT (new.location_id, new.direction, new.created_at)
BEGIN
	INSERT INTO received_day_moves SELECT old.location_id, old.created_at, -1
		WHERE old.direction = 'inbound';
	INSERT INTO received_day_moves SELECT new.location_id, new.created_at, 1
		WHERE new.direction = 'inbound';
END;

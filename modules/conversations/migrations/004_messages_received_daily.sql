-- Messages received per sub-account and day (UTC, in days since 1970),
-- kept by triggers: the agency's overview adds up 30 days of rows per
-- sub-account instead of stepping every message of those days. Published
-- as messages_received_daily.
-- WITHOUT ROWID: a range of days is read straight from the key's b-tree.
CREATE TABLE received_days (
	location_id INTEGER NOT NULL REFERENCES locations (id),
	day INTEGER NOT NULL,
	received INTEGER NOT NULL,
	PRIMARY KEY (location_id, day)
) WITHOUT ROWID;
INSERT INTO received_days (location_id, day, received)
	SELECT location_id, CAST(strftime('%s', created_at) AS INTEGER) / 86400,
		count(*)
	FROM messages
	WHERE direction = 'inbound' GROUP BY 1, 2;

CREATE TRIGGER received_days_insert AFTER INSERT ON messages
	WHEN new.direction = 'inbound'
BEGIN
	INSERT INTO received_days (location_id, day, received)
		VALUES (new.location_id, CAST(strftime('%s', new.created_at) AS INTEGER) / 86400, 1)
		ON CONFLICT (location_id, day)
		DO UPDATE SET received = received + excluded.received;
END;
CREATE TRIGGER received_days_delete AFTER DELETE ON messages
	WHEN old.direction = 'inbound'
BEGIN
	UPDATE received_days SET received = received - 1
		WHERE location_id = old.location_id
		AND day = CAST(strftime('%s', old.created_at) AS INTEGER) / 86400;
END;
CREATE TRIGGER received_days_update AFTER UPDATE OF location_id, direction, created_at
	ON messages
	WHEN old.location_id IS NOT new.location_id
		OR old.direction IS NOT new.direction
		OR old.created_at IS NOT new.created_at
BEGIN
	UPDATE received_days SET received = received - 1
		WHERE location_id = old.location_id
		AND day = CAST(strftime('%s', old.created_at) AS INTEGER) / 86400
		AND old.direction = 'inbound';
	INSERT INTO received_days (location_id, day, received)
		SELECT new.location_id, CAST(strftime('%s', new.created_at) AS INTEGER) / 86400, 1
		WHERE new.direction = 'inbound'
		ON CONFLICT (location_id, day)
		DO UPDATE SET received = received + excluded.received;
END;
CREATE VIEW messages_received_daily (location_id, day, received) AS
	SELECT location_id, day, received FROM received_days;

-- Deals won per sub-account and day of closing (UTC, in days since 1970),
-- with their value, kept by triggers as stage_counts is: the agency's
-- overview adds up 30 days of rows per sub-account instead of stepping
-- every deal won in those days. Published as deals_won_daily.
-- WITHOUT ROWID: a range of days is read straight from the key's b-tree.
CREATE TABLE won_days (
	location_id INTEGER NOT NULL REFERENCES locations (id),
	day INTEGER NOT NULL,
	won INTEGER NOT NULL,
	won_cents INTEGER NOT NULL,
	PRIMARY KEY (location_id, day)
) WITHOUT ROWID;
INSERT INTO won_days (location_id, day, won, won_cents)
	SELECT location_id, CAST(strftime('%s', closed_at) AS INTEGER) / 86400,
		count(*), sum(value_cents)
	FROM opportunities
	WHERE status = 'won' AND closed_at IS NOT NULL GROUP BY 1, 2;

CREATE TRIGGER won_days_insert AFTER INSERT ON opportunities
	WHEN new.status = 'won' AND new.closed_at IS NOT NULL
BEGIN
	INSERT INTO won_days (location_id, day, won, won_cents)
		VALUES (new.location_id, CAST(strftime('%s', new.closed_at) AS INTEGER) / 86400,
			1, new.value_cents)
		ON CONFLICT (location_id, day)
		DO UPDATE SET won = won + excluded.won, won_cents = won_cents + excluded.won_cents;
END;
CREATE TRIGGER won_days_delete AFTER DELETE ON opportunities
	WHEN old.status = 'won' AND old.closed_at IS NOT NULL
BEGIN
	UPDATE won_days SET won = won - 1, won_cents = won_cents - old.value_cents
		WHERE location_id = old.location_id
		AND day = CAST(strftime('%s', old.closed_at) AS INTEGER) / 86400;
END;
CREATE TRIGGER won_days_update AFTER UPDATE OF location_id, status, closed_at, value_cents
	ON opportunities
	WHEN old.location_id IS NOT new.location_id
		OR old.status IS NOT new.status
		OR old.closed_at IS NOT new.closed_at
		OR old.value_cents IS NOT new.value_cents
BEGIN
	UPDATE won_days SET won = won - 1, won_cents = won_cents - old.value_cents
		WHERE location_id = old.location_id
		AND day = CAST(strftime('%s', old.closed_at) AS INTEGER) / 86400
		AND old.status = 'won' AND old.closed_at IS NOT NULL;
	INSERT INTO won_days (location_id, day, won, won_cents)
		SELECT new.location_id, CAST(strftime('%s', new.closed_at) AS INTEGER) / 86400,
			1, new.value_cents
		WHERE new.status = 'won' AND new.closed_at IS NOT NULL
		ON CONFLICT (location_id, day)
		DO UPDATE SET won = won + excluded.won, won_cents = won_cents + excluded.won_cents;
END;
CREATE VIEW deals_won_daily (location_id, day, won, won_cents) AS
	SELECT location_id, day, won, won_cents FROM won_days;

-- Deals won and lost per sub-account and day of closing (UTC, in days since
-- 1970), with their value, kept by triggers; this replaces won_days (008),
-- which kept the won alone. The dashboard counted the lost deals of its
-- period from the deals themselves, 594 in the largest sub-account of
-- perf-seed --scale 10, 48 at scale 1: a figure that grew with the data.
-- Published as deals_won_daily, as before, and deals_lost_daily.
-- WITHOUT ROWID: a range of days is read straight from the key's b-tree.
DROP VIEW deals_won_daily;
DROP TRIGGER won_days_insert;
DROP TRIGGER won_days_delete;
DROP TRIGGER won_days_update;
DROP TABLE won_days;

CREATE TABLE closed_days (
	location_id INTEGER NOT NULL REFERENCES locations (id),
	status TEXT NOT NULL,
	day INTEGER NOT NULL,
	deals INTEGER NOT NULL,
	cents INTEGER NOT NULL,
	PRIMARY KEY (location_id, status, day)
) WITHOUT ROWID;
INSERT INTO closed_days (location_id, status, day, deals, cents)
	SELECT location_id, status, CAST(strftime('%s', closed_at) AS INTEGER) / 86400,
		count(*), sum(value_cents)
	FROM opportunities
	WHERE status IN ('won', 'lost') AND closed_at IS NOT NULL GROUP BY 1, 2, 3;

CREATE TRIGGER closed_days_insert AFTER INSERT ON opportunities
	WHEN new.status IN ('won', 'lost') AND new.closed_at IS NOT NULL
BEGIN
	INSERT INTO closed_days (location_id, status, day, deals, cents)
		VALUES (new.location_id, new.status,
			CAST(strftime('%s', new.closed_at) AS INTEGER) / 86400, 1, new.value_cents)
		ON CONFLICT (location_id, status, day)
		DO UPDATE SET deals = deals + 1, cents = cents + excluded.cents;
END;
CREATE TRIGGER closed_days_delete AFTER DELETE ON opportunities
	WHEN old.status IN ('won', 'lost') AND old.closed_at IS NOT NULL
BEGIN
	UPDATE closed_days SET deals = deals - 1, cents = cents - old.value_cents
		WHERE location_id = old.location_id AND status = old.status
		AND day = CAST(strftime('%s', old.closed_at) AS INTEGER) / 86400;
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
		AND day = CAST(strftime('%s', old.closed_at) AS INTEGER) / 86400
		AND old.status IN ('won', 'lost') AND old.closed_at IS NOT NULL;
	INSERT INTO closed_days (location_id, status, day, deals, cents)
		SELECT new.location_id, new.status,
			CAST(strftime('%s', new.closed_at) AS INTEGER) / 86400, 1, new.value_cents
		WHERE new.status IN ('won', 'lost') AND new.closed_at IS NOT NULL
		ON CONFLICT (location_id, status, day)
		DO UPDATE SET deals = deals + 1, cents = cents + excluded.cents;
END;

CREATE VIEW deals_won_daily (location_id, day, won, won_cents) AS
	SELECT location_id, day, deals, cents FROM closed_days WHERE status = 'won';
CREATE VIEW deals_lost_daily (location_id, day, lost, lost_cents) AS
	SELECT location_id, day, deals, cents FROM closed_days WHERE status = 'lost';

-- Each stage's deals of each status and their value, kept by triggers so
-- that every writer keeps them right: screens over every sub-account (and
-- a location's open deals) read one row per stage and status instead of
-- adding up 20k deals (5 ms a request on the full data set).
CREATE TABLE stage_counts (
	stage_id INTEGER NOT NULL REFERENCES stages (id) ON DELETE CASCADE,
	status TEXT NOT NULL,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	deals INTEGER NOT NULL,
	cents INTEGER NOT NULL,
	PRIMARY KEY (stage_id, status)
);
CREATE INDEX stage_counts_location ON stage_counts (location_id, status, deals, cents);
INSERT INTO stage_counts (stage_id, status, location_id, deals, cents)
	SELECT stage_id, status, location_id, count(*), sum(value_cents) FROM opportunities
	GROUP BY stage_id, status;

CREATE TRIGGER stage_counts_insert AFTER INSERT ON opportunities BEGIN
	INSERT INTO stage_counts (stage_id, status, location_id, deals, cents)
		VALUES (new.stage_id, new.status, new.location_id, 1, new.value_cents)
		ON CONFLICT (stage_id, status) DO UPDATE SET deals = deals + 1,
			cents = cents + excluded.cents;
END;
CREATE TRIGGER stage_counts_delete AFTER DELETE ON opportunities BEGIN
	UPDATE stage_counts SET deals = deals - 1, cents = cents - old.value_cents
		WHERE stage_id = old.stage_id AND status = old.status;
END;
-- A change that matters takes the old row out and puts the new one in.
CREATE TRIGGER stage_counts_update AFTER UPDATE OF stage_id, status, value_cents, location_id
	ON opportunities BEGIN
	UPDATE stage_counts SET deals = deals - 1, cents = cents - old.value_cents
		WHERE stage_id = old.stage_id AND status = old.status;
	INSERT INTO stage_counts (stage_id, status, location_id, deals, cents)
		VALUES (new.stage_id, new.status, new.location_id, 1, new.value_cents)
		ON CONFLICT (stage_id, status) DO UPDATE SET deals = deals + 1,
			cents = cents + excluded.cents;
END;

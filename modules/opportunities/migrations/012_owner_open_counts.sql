-- Each owner's open deals per stage and their value, kept by triggers: the
-- phone's deals screen (the mobile module) counted them from the index of
-- migration 010, a range as long as the owner's open deals in the stage,
-- so that its cost grew with the sub-account (p95 at 10 clients 4.7 ms
-- for the largest one of perf-seed, 9.4 ms at ten times it). Deals
-- without an owner are not counted. Published as owner_open_totals.
-- The sub-account is a column so that a write makes stale only the
-- cached answers of its own (core/changes.c); the key leads with the
-- stage for its deletion's cascade.
CREATE TABLE owner_open_counts (
	stage_id INTEGER NOT NULL REFERENCES stages (id) ON DELETE CASCADE,
	owner_id INTEGER NOT NULL,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	deals INTEGER NOT NULL,
	cents INTEGER NOT NULL,
	PRIMARY KEY (stage_id, owner_id)
) WITHOUT ROWID;
INSERT INTO owner_open_counts (stage_id, owner_id, location_id, deals, cents)
	SELECT stage_id, owner_id, location_id, count(*), sum(value_cents) FROM opportunities
	WHERE status = 'open' AND owner_id IS NOT NULL GROUP BY 1, 2;

CREATE TRIGGER owner_open_counts_insert AFTER INSERT ON opportunities
	WHEN new.status = 'open' AND new.owner_id IS NOT NULL
BEGIN
	INSERT INTO owner_open_counts (stage_id, owner_id, location_id, deals, cents)
		VALUES (new.stage_id, new.owner_id, new.location_id, 1, new.value_cents)
		ON CONFLICT (stage_id, owner_id)
		DO UPDATE SET deals = deals + 1, cents = cents + excluded.cents;
END;
CREATE TRIGGER owner_open_counts_delete AFTER DELETE ON opportunities
	WHEN old.status = 'open' AND old.owner_id IS NOT NULL
BEGIN
	UPDATE owner_open_counts SET deals = deals - 1, cents = cents - old.value_cents
		WHERE stage_id = old.stage_id AND owner_id = old.owner_id;
END;
-- Fired only when a counted value changes (see 005): the old row out, the
-- new one in, each only when open and owned.
CREATE TRIGGER owner_open_counts_update AFTER UPDATE OF owner_id, stage_id, status, value_cents
	ON opportunities
	WHEN old.owner_id IS NOT new.owner_id OR old.stage_id IS NOT new.stage_id
		OR old.status IS NOT new.status OR old.value_cents IS NOT new.value_cents
BEGIN
	UPDATE owner_open_counts SET deals = deals - 1, cents = cents - old.value_cents
		WHERE stage_id = old.stage_id AND owner_id = old.owner_id
		AND old.status = 'open';
	INSERT INTO owner_open_counts (stage_id, owner_id, location_id, deals, cents)
		SELECT new.stage_id, new.owner_id, new.location_id, 1, new.value_cents
		WHERE new.status = 'open' AND new.owner_id IS NOT NULL
		ON CONFLICT (stage_id, owner_id)
		DO UPDATE SET deals = deals + 1, cents = cents + excluded.cents;
END;

CREATE VIEW owner_open_totals (owner_id, stage_id, location_id, deals, cents) AS
	SELECT owner_id, stage_id, location_id, deals, cents FROM owner_open_counts;

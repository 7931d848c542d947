-- The counts' update trigger of 004, fired only when a counted value
-- changes: SQLite fires UPDATE OF for every column in the SET list, and a
-- deal's PATCH sets stage, status and value whatever it changes, so
-- renaming a deal wrote stage_counts twice and dropped the cached agency
-- and phone screens that read it.
DROP TRIGGER stage_counts_update;
CREATE TRIGGER stage_counts_update AFTER UPDATE OF stage_id, status, value_cents, location_id
	ON opportunities
	WHEN old.stage_id IS NOT new.stage_id OR old.status IS NOT new.status
		OR old.value_cents IS NOT new.value_cents OR old.location_id IS NOT new.location_id
BEGIN
	UPDATE stage_counts SET deals = deals - 1, cents = cents - old.value_cents
		WHERE stage_id = old.stage_id AND status = old.status;
	INSERT INTO stage_counts (stage_id, status, location_id, deals, cents)
		VALUES (new.stage_id, new.status, new.location_id, 1, new.value_cents)
		ON CONFLICT (stage_id, status) DO UPDATE SET deals = deals + 1,
			cents = cents + excluded.cents;
END;

-- The counts' update trigger of 010, fired only when a counted value
-- changes: SQLite fires UPDATE OF for every column in the SET list, and
-- the health job sets scores that are mostly the same, so each rewrite
-- of an unchanged row wrote contact_counts twice and dropped the cached
-- screens that read it.
DROP TRIGGER contact_counts_update;
CREATE TRIGGER contact_counts_update AFTER UPDATE OF location_id, deleted_at, health_score
	ON contacts
	WHEN old.location_id IS NOT new.location_id OR old.deleted_at IS NOT new.deleted_at
		OR old.health_score IS NOT new.health_score
BEGIN
	UPDATE contact_counts SET live = live - 1, scored = scored - (old.health_score IS NOT NULL),
		health_sum = health_sum - coalesce(old.health_score, 0)
		WHERE location_id = old.location_id AND old.deleted_at IS NULL;
	INSERT INTO contact_counts (location_id, live, scored, health_sum)
		SELECT new.location_id, 1, new.health_score IS NOT NULL, coalesce(new.health_score, 0)
		WHERE new.deleted_at IS NULL
		ON CONFLICT (location_id) DO UPDATE SET live = live + 1,
			scored = scored + excluded.scored, health_sum = health_sum + excluded.health_sum;
END;

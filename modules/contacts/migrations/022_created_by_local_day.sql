-- New live contacts per sub-account and day in the sub-account's own time
-- zone (locations.timezone, through local_day), no longer UTC: "today"
-- and a series by day mean the sub-account's days. One place turns a
-- contact's creation into its day: the triggers write each change as a
-- move of one contact in or out to contact_day_moves, a view whose
-- INSTEAD OF trigger keeps contact_days. The counts are made again here,
-- and by the module's recounts when a sub-account's zone changes.
DROP TRIGGER contact_days_insert;
DROP TRIGGER contact_days_delete;
DROP TRIGGER contact_days_update;
DELETE FROM contact_days;

CREATE VIEW contact_day_moves (location_id, at, delta) AS SELECT NULL, NULL, NULL WHERE 0;
CREATE TRIGGER contact_day_moves_insert INSTEAD OF INSERT ON contact_day_moves
BEGIN
	-- A move out changes only a day that holds something.
	INSERT INTO contact_days (location_id, day, created)
		SELECT new.location_id, d.day, new.delta
		FROM (SELECT local_day(unixepoch(new.at),
			(SELECT timezone FROM locations WHERE id = new.location_id)) AS day) d
		WHERE new.delta > 0 OR EXISTS (SELECT 1 FROM contact_days k
			WHERE k.location_id = new.location_id AND k.day = d.day)
		ON CONFLICT (location_id, day) DO UPDATE SET created = created + excluded.created;
END;

INSERT INTO contact_day_moves SELECT location_id, created_at, 1 FROM contacts
	WHERE deleted_at IS NULL;

CREATE TRIGGER contact_days_insert AFTER INSERT ON contacts WHEN new.deleted_at IS NULL
BEGIN
	INSERT INTO contact_day_moves VALUES (new.location_id, new.created_at, 1);
END;
CREATE TRIGGER contact_days_delete AFTER DELETE ON contacts WHEN old.deleted_at IS NULL
BEGIN
	INSERT INTO contact_day_moves VALUES (old.location_id, old.created_at, -1);
END;
CREATE TRIGGER contact_days_update AFTER UPDATE OF location_id, deleted_at, created_at
	ON contacts WHEN (old.location_id, old.deleted_at IS NULL, old.created_at)
		IS NOT (new.location_id, new.deleted_at IS NULL, new.created_at)
BEGIN
	INSERT INTO contact_day_moves SELECT old.location_id, old.created_at, -1
		WHERE old.deleted_at IS NULL;
	INSERT INTO contact_day_moves SELECT new.location_id, new.created_at, 1
		WHERE new.deleted_at IS NULL;
END;

-- New live contacts per sub-account and day now in the sub-account's own time zone
-- (locations.timezone, through local_day), no longer UTC: "today" and a
-- by-day series mean the sub-account's days. The counts are made again
-- here, and by the module's recounts when a sub-account's zone changes.
DROP TRIGGER contact_days_insert;
DROP TRIGGER contact_days_delete;
DROP TRIGGER contact_days_update;
DELETE FROM contact_days;
INSERT INTO contact_days (location_id, day, created)
	SELECT location_id, local_day(unixepoch(created_at),
			(SELECT timezone FROM locations l WHERE l.id = contacts.location_id)),
		count(*)
	FROM contacts
	WHERE deleted_at IS NULL GROUP BY 1, 2;

CREATE TRIGGER contact_days_insert AFTER INSERT ON contacts
	WHEN new.deleted_at IS NULL
BEGIN
	INSERT INTO contact_days (location_id, day, created)
		VALUES (new.location_id, local_day(unixepoch(new.created_at),
				(SELECT timezone FROM locations WHERE id = new.location_id)), 1)
		ON CONFLICT (location_id, day)
		DO UPDATE SET created = created + excluded.created;
END;
CREATE TRIGGER contact_days_delete AFTER DELETE ON contacts
	WHEN old.deleted_at IS NULL
BEGIN
	UPDATE contact_days SET created = created - 1
		WHERE location_id = old.location_id
		AND day = local_day(unixepoch(old.created_at),
				(SELECT timezone FROM locations WHERE id = old.location_id));
END;
CREATE TRIGGER contact_days_update AFTER UPDATE OF location_id, deleted_at, created_at
	ON contacts
	WHEN old.location_id IS NOT new.location_id
		OR old.deleted_at IS NOT new.deleted_at
		OR old.created_at IS NOT new.created_at
BEGIN
	UPDATE contact_days SET created = created - 1
		WHERE location_id = old.location_id
		AND day = local_day(unixepoch(old.created_at),
				(SELECT timezone FROM locations WHERE id = old.location_id))
		AND old.deleted_at IS NULL;
	INSERT INTO contact_days (location_id, day, created)
		SELECT new.location_id, local_day(unixepoch(new.created_at),
				(SELECT timezone FROM locations WHERE id = new.location_id)), 1
		WHERE new.deleted_at IS NULL
		ON CONFLICT (location_id, day)
		DO UPDATE SET created = created + excluded.created;
END;

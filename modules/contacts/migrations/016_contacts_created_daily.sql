-- New live contacts per sub-account and day (UTC, counted in days since
-- 1970), kept by triggers as contact_counts is: the agency's overview adds
-- up 30 days of rows per sub-account instead of stepping every contact
-- made in those days. Published as contacts_created_daily, so that how
-- the module keeps it stays its own.
-- WITHOUT ROWID: a range of days is read straight from the key's b-tree.
CREATE TABLE contact_days (
	location_id INTEGER NOT NULL REFERENCES locations (id),
	day INTEGER NOT NULL,
	created INTEGER NOT NULL,
	PRIMARY KEY (location_id, day)
) WITHOUT ROWID;
INSERT INTO contact_days (location_id, day, created)
	SELECT location_id, CAST(strftime('%s', created_at) AS INTEGER) / 86400,
		count(*)
	FROM contacts
	WHERE deleted_at IS NULL GROUP BY 1, 2;

CREATE TRIGGER contact_days_insert AFTER INSERT ON contacts
	WHEN new.deleted_at IS NULL
BEGIN
	INSERT INTO contact_days (location_id, day, created)
		VALUES (new.location_id, CAST(strftime('%s', new.created_at) AS INTEGER) / 86400, 1)
		ON CONFLICT (location_id, day)
		DO UPDATE SET created = created + excluded.created;
END;
CREATE TRIGGER contact_days_delete AFTER DELETE ON contacts
	WHEN old.deleted_at IS NULL
BEGIN
	UPDATE contact_days SET created = created - 1
		WHERE location_id = old.location_id
		AND day = CAST(strftime('%s', old.created_at) AS INTEGER) / 86400;
END;
CREATE TRIGGER contact_days_update AFTER UPDATE OF location_id, deleted_at, created_at
	ON contacts
	WHEN old.location_id IS NOT new.location_id
		OR old.deleted_at IS NOT new.deleted_at
		OR old.created_at IS NOT new.created_at
BEGIN
	UPDATE contact_days SET created = created - 1
		WHERE location_id = old.location_id
		AND day = CAST(strftime('%s', old.created_at) AS INTEGER) / 86400
		AND old.deleted_at IS NULL;
	INSERT INTO contact_days (location_id, day, created)
		SELECT new.location_id, CAST(strftime('%s', new.created_at) AS INTEGER) / 86400, 1
		WHERE new.deleted_at IS NULL
		ON CONFLICT (location_id, day)
		DO UPDATE SET created = created + excluded.created;
END;
CREATE VIEW contacts_created_daily (location_id, day, created) AS
	SELECT location_id, day, created FROM contact_days;

-- The list's sort orders, each read from an index: by creation, by last
-- change and by name (case-insensitive, as people sort names), and a
-- first-name prefix for searches too short for the trigram index.
CREATE INDEX contacts_location_created ON contacts (location_id, created_at, id)
	WHERE deleted_at IS NULL;
CREATE INDEX contacts_location_updated ON contacts (location_id, updated_at, id)
	WHERE deleted_at IS NULL;
CREATE INDEX contacts_location_name ON contacts (location_id, last_name COLLATE NOCASE,
	first_name COLLATE NOCASE, id) WHERE deleted_at IS NULL;
CREATE INDEX contacts_location_first_name ON contacts (location_id, first_name COLLATE NOCASE)
	WHERE deleted_at IS NULL;

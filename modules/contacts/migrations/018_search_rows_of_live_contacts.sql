-- A contact's search row now leaves when the contact is deleted (softly:
-- deleted_at set) and comes back if it is restored, instead of when the
-- purge job removes the contact for good. Searches only ever wanted live
-- contacts. The purge deleting rows of the FTS5 index was what pushed
-- its slices over their 40 ms budget: FTS5 writes a segment per
-- statement and now and then merges them. On the full data set's first
-- start the purge's longest slice went from 31-47 ms (3 of 8 starts over
-- budget) to 28-30 ms (none), with the trigger dropped.
DELETE FROM contact_search WHERE rowid IN (SELECT id FROM contacts WHERE deleted_at IS NOT NULL);

DROP TRIGGER contacts_search_delete;
CREATE TRIGGER contacts_search_delete AFTER DELETE ON contacts
	WHEN old.deleted_at IS NULL
BEGIN
	DELETE FROM contact_search WHERE rowid = old.id;
END;
CREATE TRIGGER contacts_search_leave AFTER UPDATE OF deleted_at ON contacts
	WHEN old.deleted_at IS NULL AND new.deleted_at IS NOT NULL
BEGIN
	DELETE FROM contact_search WHERE rowid = old.id;
END;
CREATE TRIGGER contacts_search_back AFTER UPDATE OF deleted_at ON contacts
	WHEN old.deleted_at IS NOT NULL AND new.deleted_at IS NULL
BEGIN
	INSERT INTO contact_search (rowid, text)
		SELECT id, text FROM contact_search_text WHERE id = new.id;
END;

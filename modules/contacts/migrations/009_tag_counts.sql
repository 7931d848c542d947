-- A tag's number of live contacts, counted within its own range of
-- contact_tags instead of with a lookup of each contact: a soft-deleted
-- contact's links stay (the contact can still be purged or kept) but are
-- marked. /api/tags took 3.5 ms on 7,900 contacts with the lookups.
ALTER TABLE contact_tags ADD COLUMN contact_deleted INTEGER NOT NULL DEFAULT 0;
UPDATE contact_tags SET contact_deleted = 1
	WHERE contact_id IN (SELECT id FROM contacts WHERE deleted_at IS NOT NULL);

-- The purge job looks for contacts deleted before a cut-off. Ordered by
-- deletion time, each slice reads only rows it will delete, instead of
-- stepping over every recently deleted contact on the way.
DROP INDEX contacts_deleted;
CREATE INDEX contacts_deleted_at ON contacts (deleted_at, id) WHERE deleted_at IS NOT NULL;

-- A task may be about a deal (the opportunities module's, checked through
-- its service opportunities.get when a task is written). No foreign key:
-- the deals' table exists only while that module has ever been turned on;
-- a deal's deletion clears its tasks' link (opportunity.deleted, tasks.c).
ALTER TABLE tasks ADD COLUMN opportunity_id INTEGER;
-- A deal's few tasks, as tasks_contact finds a contact's.
CREATE INDEX tasks_opportunity ON tasks (opportunity_id, location_id)
	WHERE opportunity_id IS NOT NULL;

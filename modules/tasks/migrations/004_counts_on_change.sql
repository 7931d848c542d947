-- The counts' update trigger of 003, fired only when a counted value
-- changes: SQLite fires UPDATE OF for every column in the SET list, and a
-- task's PATCH sets the assignee whatever it changes, so retitling a task
-- wrote task_counts twice and dropped the cached screens that read it.
DROP TRIGGER task_counts_update;
CREATE TRIGGER task_counts_update AFTER UPDATE OF location_id, assignee_id, completed_at ON tasks
	WHEN old.location_id IS NOT new.location_id OR old.assignee_id IS NOT new.assignee_id
		OR (old.completed_at IS NULL) IS NOT (new.completed_at IS NULL)
BEGIN
	UPDATE task_counts SET open = open - 1
		WHERE location_id = old.location_id AND assignee = coalesce(old.assignee_id, 0)
		AND old.completed_at IS NULL;
	INSERT INTO task_counts (location_id, assignee, open)
		SELECT new.location_id, coalesce(new.assignee_id, 0), 1 WHERE new.completed_at IS NULL
		ON CONFLICT (location_id, assignee) DO UPDATE SET open = open + 1;
END;

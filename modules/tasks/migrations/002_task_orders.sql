-- The list's orders as indexes it can walk without sorting: open tasks by
-- due date with the undated ones last ('z' sorts after every ISO time),
-- then id; completed tasks by completion time and id, walked backwards for
-- the newest first. Each also per assignee, for ?assignee= and the users
-- who see only their own tasks.
CREATE INDEX tasks_open_due ON tasks (location_id, ifnull(due_at, 'z'), id)
	WHERE completed_at IS NULL;
CREATE INDEX tasks_open_assignee_due ON tasks (location_id, assignee_id, ifnull(due_at, 'z'), id)
	WHERE completed_at IS NULL;
CREATE INDEX tasks_done_at ON tasks (location_id, completed_at, id)
	WHERE completed_at IS NOT NULL;
CREATE INDEX tasks_done_assignee_at ON tasks (location_id, assignee_id, completed_at, id)
	WHERE completed_at IS NOT NULL;

-- Open tasks by due date, and by assignee and due date, per sub-account:
-- the overdue and due-today counts of the dashboard and the agency, each
-- read from the index alone. Made by the reports and agency modules'
-- migrations before; a database that has them keeps them.
CREATE INDEX IF NOT EXISTS tasks_location_completed_due ON tasks (location_id, completed_at,
	due_at);
CREATE INDEX IF NOT EXISTS tasks_location_completed_assignee ON tasks (location_id, completed_at,
	assignee_id, due_at);

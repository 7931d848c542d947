-- Open tasks counted by assignee in every sub-account at once: each
-- sub-account's open tasks are one range of this index, in assignee order,
-- and the index holds all the count reads (overdue is due_at < now).
CREATE INDEX tasks_location_completed_assignee ON tasks (location_id, completed_at, assignee_id,
	due_at);

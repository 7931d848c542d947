-- To-dos, about a contact or not, for one person.
CREATE TABLE tasks (
	id INTEGER PRIMARY KEY,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	contact_id INTEGER REFERENCES contacts (id) ON DELETE SET NULL,
	assignee_id INTEGER REFERENCES users (id),
	title TEXT NOT NULL,
	body TEXT,
	due_at TEXT,
	completed_at TEXT,
	created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
-- Open tasks by due date (overdue first), per location and per assignee.
CREATE INDEX tasks_location_open ON tasks (location_id, due_at, id) WHERE completed_at IS NULL;
CREATE INDEX tasks_assignee_open ON tasks (assignee_id, due_at, id) WHERE completed_at IS NULL;
-- Done tasks, most recent first.
CREATE INDEX tasks_location_done ON tasks (location_id, completed_at DESC)
	WHERE completed_at IS NOT NULL;
CREATE INDEX tasks_contact ON tasks (contact_id) WHERE contact_id IS NOT NULL;

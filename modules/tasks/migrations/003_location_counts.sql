-- Each location's open tasks, kept by triggers so that every writer keeps
-- the count right: the agency's screens read one row per sub-account
-- instead of counting 30k open tasks (7 ms a request on the full data
-- set). Overdue depends on the clock, so it is still counted when asked.
CREATE TABLE task_counts (
	location_id INTEGER PRIMARY KEY REFERENCES locations (id),
	open INTEGER NOT NULL
);
INSERT INTO task_counts (location_id, open)
	SELECT location_id, count(*) FROM tasks WHERE completed_at IS NULL GROUP BY location_id;

CREATE TRIGGER task_counts_insert AFTER INSERT ON tasks WHEN new.completed_at IS NULL BEGIN
	INSERT INTO task_counts (location_id, open) VALUES (new.location_id, 1)
		ON CONFLICT (location_id) DO UPDATE SET open = open + 1;
END;
CREATE TRIGGER task_counts_delete AFTER DELETE ON tasks WHEN old.completed_at IS NULL BEGIN
	UPDATE task_counts SET open = open - 1 WHERE location_id = old.location_id;
END;
CREATE TRIGGER task_counts_update AFTER UPDATE OF location_id, completed_at ON tasks BEGIN
	UPDATE task_counts SET open = open - 1
		WHERE location_id = old.location_id AND old.completed_at IS NULL;
	INSERT INTO task_counts (location_id, open) SELECT new.location_id, 1
		WHERE new.completed_at IS NULL
		ON CONFLICT (location_id) DO UPDATE SET open = open + 1;
END;

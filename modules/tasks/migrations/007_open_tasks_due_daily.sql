-- Open tasks per sub-account, assignee (0: nobody) and due day (UTC, in
-- days since 1970; tasks without a due date under day 2147483647), kept by
-- triggers as task_counts is. Overdue depends on the clock: it is a
-- sub-account's open tasks less those due from today on, plus today's
-- due before now. The days from today on are few (tasks get due dates
-- a few weeks ahead), while overdue tasks pile up for years: the agency's
-- screens read those days instead of counting every overdue task (14k
-- on the full data set, 1.7 ms a request). Published as
-- open_tasks_due_daily, so that how the module keeps it stays its own.
-- WITHOUT ROWID: a range of days is read straight from the key's b-tree.
CREATE TABLE due_days (
	location_id INTEGER NOT NULL REFERENCES locations (id),
	assignee INTEGER NOT NULL,
	day INTEGER NOT NULL,
	open INTEGER NOT NULL,
	PRIMARY KEY (location_id, assignee, day)
) WITHOUT ROWID;
INSERT INTO due_days (location_id, assignee, day, open)
	SELECT location_id, coalesce(assignee_id, 0),
		coalesce(CAST(strftime('%s', due_at) AS INTEGER) / 86400, 2147483647), count(*)
	FROM tasks
	WHERE completed_at IS NULL GROUP BY 1, 2, 3;

CREATE TRIGGER due_days_insert AFTER INSERT ON tasks
	WHEN new.completed_at IS NULL
BEGIN
	INSERT INTO due_days (location_id, assignee, day, open)
		VALUES (new.location_id, coalesce(new.assignee_id, 0),
			coalesce(CAST(strftime('%s', new.due_at) AS INTEGER) / 86400, 2147483647), 1)
		ON CONFLICT (location_id, assignee, day) DO UPDATE SET open = open + 1;
END;
CREATE TRIGGER due_days_delete AFTER DELETE ON tasks
	WHEN old.completed_at IS NULL
BEGIN
	UPDATE due_days SET open = open - 1
		WHERE location_id = old.location_id AND assignee = coalesce(old.assignee_id, 0)
		AND day = coalesce(CAST(strftime('%s', old.due_at) AS INTEGER) / 86400, 2147483647);
END;
CREATE TRIGGER due_days_update AFTER UPDATE OF location_id, assignee_id, due_at, completed_at
	ON tasks
	WHEN old.location_id IS NOT new.location_id
		OR old.assignee_id IS NOT new.assignee_id
		OR old.due_at IS NOT new.due_at
		OR (old.completed_at IS NULL) IS NOT (new.completed_at IS NULL)
BEGIN
	UPDATE due_days SET open = open - 1
		WHERE location_id = old.location_id AND assignee = coalesce(old.assignee_id, 0)
		AND day = coalesce(CAST(strftime('%s', old.due_at) AS INTEGER) / 86400, 2147483647)
		AND old.completed_at IS NULL;
	INSERT INTO due_days (location_id, assignee, day, open)
		SELECT new.location_id, coalesce(new.assignee_id, 0),
			coalesce(CAST(strftime('%s', new.due_at) AS INTEGER) / 86400, 2147483647), 1
		WHERE new.completed_at IS NULL
		ON CONFLICT (location_id, assignee, day) DO UPDATE SET open = open + 1;
END;
CREATE VIEW open_tasks_due_daily (location_id, assignee, day, open) AS
	SELECT location_id, assignee, day, open FROM due_days;

-- Open tasks per sub-account, assignee and due day in the sub-account's
-- own time zone (locations.timezone, through local_day), no longer UTC:
-- "today", "overdue" and a series by day mean the sub-account's days. One
-- place turns a due time into its day: the triggers write each change as
-- a task moving in or out to due_day_moves, a view whose INSTEAD OF
-- trigger keeps due_days (undated tasks under day 2147483647, as before).
-- Made again here, and by the module's recounts when a zone changes.
DROP TRIGGER due_days_insert;
DROP TRIGGER due_days_delete;
DROP TRIGGER due_days_update;
-- late_counts starts again from its lowest day as due_days fills (its
-- triggers), and the tasks.late job counts it up to today.
DELETE FROM late_counts;
DELETE FROM due_days;

CREATE VIEW due_day_moves (location_id, assignee, at, delta) AS
	SELECT NULL, NULL, NULL, NULL WHERE 0;
CREATE TRIGGER due_day_moves_insert INSTEAD OF INSERT ON due_day_moves
BEGIN
	-- A move out changes only a day that holds something.
	INSERT INTO due_days (location_id, assignee, day, open)
		SELECT new.location_id, coalesce(new.assignee, 0), d.day, new.delta
		FROM (SELECT coalesce(local_day(unixepoch(new.at),
			(SELECT timezone FROM locations WHERE id = new.location_id)), 2147483647) AS day) d
		WHERE new.delta > 0 OR EXISTS (SELECT 1 FROM due_days k
			WHERE k.location_id = new.location_id AND k.assignee = coalesce(new.assignee, 0)
			AND k.day = d.day)
		ON CONFLICT (location_id, assignee, day) DO UPDATE SET open = open + excluded.open;
END;

INSERT INTO due_day_moves SELECT location_id, assignee_id, due_at, 1 FROM tasks
	WHERE completed_at IS NULL;

CREATE TRIGGER due_days_insert AFTER INSERT ON tasks WHEN new.completed_at IS NULL
BEGIN
	INSERT INTO due_day_moves VALUES (new.location_id, new.assignee_id, new.due_at, 1);
END;
CREATE TRIGGER due_days_delete AFTER DELETE ON tasks WHEN old.completed_at IS NULL
BEGIN
	INSERT INTO due_day_moves VALUES (old.location_id, old.assignee_id, old.due_at, -1);
END;
CREATE TRIGGER due_days_update AFTER UPDATE OF location_id, assignee_id, due_at, completed_at
	ON tasks WHEN (old.location_id, old.assignee_id, old.due_at, old.completed_at IS NULL)
		IS NOT (new.location_id, new.assignee_id, new.due_at, new.completed_at IS NULL)
BEGIN
	INSERT INTO due_day_moves SELECT old.location_id, old.assignee_id, old.due_at, -1
		WHERE old.completed_at IS NULL;
	INSERT INTO due_day_moves SELECT new.location_id, new.assignee_id, new.due_at, 1
		WHERE new.completed_at IS NULL;
END;

-- Overdue by the sub-account's day too: the view adds the days from each
-- row's day up to the sub-account's today.
DROP VIEW overdue_task_totals;
CREATE VIEW overdue_task_totals (location_id, assignee, overdue) AS
	SELECT l.location_id, l.assignee, l.late + CASE WHEN l.day = z.today THEN 0
		ELSE (SELECT coalesce(sum(iif(d.day < z.today, d.open, -d.open)), 0)
			FROM due_days d WHERE d.location_id = l.location_id AND d.assignee = l.assignee
			AND d.day >= min(l.day, z.today) AND d.day < max(l.day, z.today)) END
	FROM late_counts l
	JOIN (SELECT id, local_day(unixepoch(), timezone) AS today FROM locations) z
		ON z.id = l.location_id;

-- Open tasks per sub-account, assignee and due day now in the sub-account's own time zone
-- (locations.timezone, through local_day), no longer UTC: "today" and a
-- by-day series mean the sub-account's days. The counts are made again
-- here, and by the module's recounts when a sub-account's zone changes.
DROP TRIGGER due_days_insert;
DROP TRIGGER due_days_delete;
DROP TRIGGER due_days_update;
DELETE FROM late_counts;
DELETE FROM due_days;
INSERT INTO due_days (location_id, assignee, day, open)
	SELECT location_id, coalesce(assignee_id, 0),
		coalesce(local_day(unixepoch(due_at),
			(SELECT timezone FROM locations l WHERE l.id = tasks.location_id)), 2147483647), count(*)
	FROM tasks
	WHERE completed_at IS NULL GROUP BY 1, 2, 3;

CREATE TRIGGER due_days_insert AFTER INSERT ON tasks
	WHEN new.completed_at IS NULL
BEGIN
	INSERT INTO due_days (location_id, assignee, day, open)
		VALUES (new.location_id, coalesce(new.assignee_id, 0),
			coalesce(local_day(unixepoch(new.due_at),
				(SELECT timezone FROM locations WHERE id = new.location_id)), 2147483647), 1)
		ON CONFLICT (location_id, assignee, day) DO UPDATE SET open = open + 1;
END;
CREATE TRIGGER due_days_delete AFTER DELETE ON tasks
	WHEN old.completed_at IS NULL
BEGIN
	UPDATE due_days SET open = open - 1
		WHERE location_id = old.location_id AND assignee = coalesce(old.assignee_id, 0)
		AND day = coalesce(local_day(unixepoch(old.due_at),
				(SELECT timezone FROM locations WHERE id = old.location_id)), 2147483647);
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
		AND day = coalesce(local_day(unixepoch(old.due_at),
				(SELECT timezone FROM locations WHERE id = old.location_id)), 2147483647)
		AND old.completed_at IS NULL;
	INSERT INTO due_days (location_id, assignee, day, open)
		SELECT new.location_id, coalesce(new.assignee_id, 0),
			coalesce(local_day(unixepoch(new.due_at),
				(SELECT timezone FROM locations WHERE id = new.location_id)), 2147483647), 1
		WHERE new.completed_at IS NULL
		ON CONFLICT (location_id, assignee, day) DO UPDATE SET open = open + 1;
END;

-- Overdue by the sub-account's day too: late_counts was emptied above and
-- made again from its lowest day as due_days filled (the tasks.late job
-- counts it up); the view adds the days up to the sub-account's today.
DROP VIEW overdue_task_totals;
CREATE VIEW overdue_task_totals (location_id, assignee, overdue) AS
	SELECT l.location_id, l.assignee, l.late + CASE WHEN l.day = z.today THEN 0
		ELSE (SELECT coalesce(sum(iif(d.day < z.today, d.open, -d.open)), 0)
			FROM due_days d WHERE d.location_id = l.location_id AND d.assignee = l.assignee
			AND d.day >= min(l.day, z.today) AND d.day < max(l.day, z.today)) END
	FROM late_counts l
	JOIN (SELECT id, local_day(unixepoch(), timezone) AS today FROM locations) z
		ON z.id = l.location_id;

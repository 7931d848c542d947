-- Each sub-account's and assignee's open tasks due before a day (UTC, in
-- days since 1970): `late` counts those due before `day`. The triggers
-- on due_days keep it as tasks change; the tasks.late job moves `day` up
-- to today after each midnight, adding the days it passes. Overdue is
-- then `late`, plus the days from `day` to yesterday (none once the job
-- has run), plus today's due before now: a few rows, however many days
-- lie ahead. Adding up those days instead (migration 007) stepped 5 000
-- rows a request on the full data set: 31 000 of the 59 000 SQLite steps
-- of the agency's projects page.
-- A new row starts at the lowest day there is (nothing before it, a
-- task due before 1970 included): the job counts it up.
CREATE TABLE late_counts (
	location_id INTEGER NOT NULL REFERENCES locations (id),
	assignee INTEGER NOT NULL,
	day INTEGER NOT NULL,
	late INTEGER NOT NULL,
	PRIMARY KEY (location_id, assignee)
) WITHOUT ROWID;
CREATE INDEX late_counts_day ON late_counts (day);
INSERT INTO late_counts (location_id, assignee, day, late)
	SELECT DISTINCT location_id, assignee, -2147483648, 0 FROM due_days;

CREATE TRIGGER late_counts_insert AFTER INSERT ON due_days
BEGIN
	INSERT INTO late_counts (location_id, assignee, day, late)
		VALUES (new.location_id, new.assignee, -2147483648, 0)
		ON CONFLICT (location_id, assignee) DO UPDATE SET late = late + new.open
		WHERE new.day < day;
END;
CREATE TRIGGER late_counts_update AFTER UPDATE OF open ON due_days
	WHEN new.open IS NOT old.open
BEGIN
	UPDATE late_counts SET late = late + new.open - old.open
		WHERE location_id = new.location_id AND assignee = new.assignee AND new.day < day;
END;
-- Published: each sub-account's and assignee's open tasks due before
-- today (UTC), by the clock of the statement that reads it (a row whose
-- day is past today, the clock having gone back, gives those days back).
-- Those due today before now are a range of tasks_location_completed_due.
CREATE VIEW overdue_task_totals (location_id, assignee, overdue) AS
	SELECT l.location_id, l.assignee, l.late + CASE WHEN l.day = unixepoch() / 86400 THEN 0
		ELSE (SELECT coalesce(sum(iif(d.day < unixepoch() / 86400, d.open, -d.open)), 0)
			FROM due_days d WHERE d.location_id = l.location_id AND d.assignee = l.assignee
			AND d.day >= min(l.day, unixepoch() / 86400)
			AND d.day < max(l.day, unixepoch() / 86400)) END
	FROM late_counts l;

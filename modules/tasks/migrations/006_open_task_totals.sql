-- Each sub-account's open tasks per assignee (0: nobody), published for
-- other modules (the agency's screens): a view, so that how the tasks
-- module keeps the counts (task_counts, its triggers) stays its own.
CREATE VIEW open_task_totals (location_id, assignee, open) AS
	SELECT location_id, assignee, open FROM task_counts;

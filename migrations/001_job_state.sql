-- The tick jobs' progress: where each job's next slice starts, and how its
-- runs went. Written by the scheduler inside each slice's transaction.
CREATE TABLE job_state (
	name TEXT PRIMARY KEY,
	cursor INTEGER NOT NULL DEFAULT 0,
	runs INTEGER NOT NULL DEFAULT 0,
	failures INTEGER NOT NULL DEFAULT 0,
	last_run_at TEXT,
	last_ms INTEGER,
	last_error TEXT
) WITHOUT ROWID;

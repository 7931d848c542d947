-- Every slice is reported: besides the last slice's time, job_state keeps
-- the longest, the sum and how many went over the budget, over the job's
-- whole life (the scheduler also keeps the same since the process started).
ALTER TABLE job_state ADD COLUMN max_ms INTEGER NOT NULL DEFAULT 0;
ALTER TABLE job_state ADD COLUMN total_ms INTEGER NOT NULL DEFAULT 0;
ALTER TABLE job_state ADD COLUMN overruns INTEGER NOT NULL DEFAULT 0;

-- The core.sessions job deletes expired sessions oldest first; deleted rows
-- leave this index, so each slice reads only the rows it deletes.
CREATE INDEX sessions_expires ON sessions (expires_at);

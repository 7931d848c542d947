-- Deals by status and stage with their value, and closed deals over time,
-- per sub-account: the open pipeline's value and the won and lost series,
-- read from the index alone. Made by the reports module's migration 002
-- before; a database that has them keeps them.
CREATE INDEX IF NOT EXISTS opportunities_location_stage_value ON opportunities (location_id,
	status, stage_id, value_cents);
CREATE INDEX IF NOT EXISTS opportunities_location_closed ON opportunities (location_id, status,
	closed_at, value_cents);

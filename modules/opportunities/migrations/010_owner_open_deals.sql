-- One owner's open deals, stage by stage in board order, with their value:
-- the phone's deals screen (the mobile module) reads each stage's first
-- page and its count and value from here, so its cost follows the stages
-- shown, not every deal the owner has in the sub-account.
-- The status is a column too: SQLite reads a partial index's own condition
-- from the table, a row per deal, unless the index holds it.
CREATE INDEX opportunities_owner_open ON opportunities (owner_id, stage_id, status, position,
	id, value_cents) WHERE status = 'open';

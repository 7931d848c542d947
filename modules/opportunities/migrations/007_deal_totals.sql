-- The number and value of deals per stage and status, with the stage's
-- sub-account, published for other modules (the agency's and the phone's
-- figures): a view, so that how this module keeps them (stage_counts, its
-- triggers) stays its own.
CREATE VIEW deal_totals (stage_id, status, location_id, deals, cents) AS
	SELECT stage_id, status, location_id, deals, cents FROM stage_counts;

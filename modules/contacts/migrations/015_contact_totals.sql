-- Each sub-account's live contacts and their health scores, published for
-- other modules (the agency's overview): a view, so that how the contacts
-- module keeps the figures (contact_counts, its triggers) stays its own.
CREATE VIEW contact_totals (location_id, live, scored, health_sum) AS
	SELECT location_id, live, scored, health_sum FROM contact_counts;

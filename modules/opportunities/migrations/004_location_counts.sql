-- Each location's open deals and their value, kept by triggers so that
-- every writer keeps them right: the agency's screens read one row per
-- sub-account instead of adding up 12k open deals (5 ms a request on the
-- full data set).
CREATE TABLE deal_counts (
	location_id INTEGER PRIMARY KEY REFERENCES locations (id),
	open INTEGER NOT NULL,
	open_cents INTEGER NOT NULL
);
INSERT INTO deal_counts (location_id, open, open_cents)
	SELECT location_id, count(*), sum(value_cents) FROM opportunities WHERE status = 'open'
	GROUP BY location_id;

CREATE TRIGGER deal_counts_insert AFTER INSERT ON opportunities WHEN new.status = 'open' BEGIN
	INSERT INTO deal_counts (location_id, open, open_cents) VALUES (new.location_id, 1, new.value_cents)
		ON CONFLICT (location_id) DO UPDATE SET open = open + 1,
			open_cents = open_cents + excluded.open_cents;
END;
CREATE TRIGGER deal_counts_delete AFTER DELETE ON opportunities WHEN old.status = 'open' BEGIN
	UPDATE deal_counts SET open = open - 1, open_cents = open_cents - old.value_cents
		WHERE location_id = old.location_id;
END;
CREATE TRIGGER deal_counts_update AFTER UPDATE OF location_id, status, value_cents
	ON opportunities BEGIN
	UPDATE deal_counts SET open = open - 1, open_cents = open_cents - old.value_cents
		WHERE location_id = old.location_id AND old.status = 'open';
	INSERT INTO deal_counts (location_id, open, open_cents)
		SELECT new.location_id, 1, new.value_cents WHERE new.status = 'open'
		ON CONFLICT (location_id) DO UPDATE SET open = open + 1,
			open_cents = open_cents + excluded.open_cents;
END;

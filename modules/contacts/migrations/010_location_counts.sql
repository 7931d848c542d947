-- Each location's live contacts, and the number and sum of their health
-- scores, kept by triggers so that every writer keeps them right: the
-- agency's screens read one row per sub-account instead of counting 100k
-- contacts (10 ms a request on the full data set). The insert trigger
-- opens a statement savepoint per contact, which flushes FTS5's pending
-- terms; the module writes the search index after a batch's contacts
-- (store.c), so that happens once per batch, not once per row.
CREATE TABLE contact_counts (
	location_id INTEGER PRIMARY KEY REFERENCES locations (id),
	live INTEGER NOT NULL,
	scored INTEGER NOT NULL,
	health_sum INTEGER NOT NULL
);
INSERT INTO contact_counts (location_id, live, scored, health_sum)
	SELECT location_id, count(*), count(health_score), coalesce(sum(health_score), 0)
	FROM contacts WHERE deleted_at IS NULL GROUP BY location_id;

CREATE TRIGGER contact_counts_insert AFTER INSERT ON contacts WHEN new.deleted_at IS NULL BEGIN
	INSERT INTO contact_counts (location_id, live, scored, health_sum)
		VALUES (new.location_id, 1, new.health_score IS NOT NULL, coalesce(new.health_score, 0))
		ON CONFLICT (location_id) DO UPDATE SET live = live + 1,
			scored = scored + excluded.scored, health_sum = health_sum + excluded.health_sum;
END;
CREATE TRIGGER contact_counts_delete AFTER DELETE ON contacts WHEN old.deleted_at IS NULL BEGIN
	UPDATE contact_counts SET live = live - 1, scored = scored - (old.health_score IS NOT NULL),
		health_sum = health_sum - coalesce(old.health_score, 0)
		WHERE location_id = old.location_id;
END;
-- A change that matters takes the old row out, if it was live, and puts
-- the new one in, if it is.
CREATE TRIGGER contact_counts_update AFTER UPDATE OF location_id, deleted_at, health_score
	ON contacts BEGIN
	UPDATE contact_counts SET live = live - 1, scored = scored - (old.health_score IS NOT NULL),
		health_sum = health_sum - coalesce(old.health_score, 0)
		WHERE location_id = old.location_id AND old.deleted_at IS NULL;
	INSERT INTO contact_counts (location_id, live, scored, health_sum)
		SELECT new.location_id, 1, new.health_score IS NOT NULL, coalesce(new.health_score, 0)
		WHERE new.deleted_at IS NULL
		ON CONFLICT (location_id) DO UPDATE SET live = live + 1,
			scored = scored + excluded.scored, health_sum = health_sum + excluded.health_sum;
END;

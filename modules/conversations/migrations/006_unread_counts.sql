-- Each sub-account's unread conversations, kept by triggers as they
-- change: the agency's projects, the phone's counters, the dashboard and
-- the project read one row per sub-account instead of counting a range of
-- an index, which grows with the inbox. Published as conversation_totals,
-- so that how this module keeps them stays its own. A row of zero stays
-- when the last unread conversation is read. The index that was read only
-- to count them (conversations_location_unread_count, migration 003) goes:
-- one b-tree fewer to write on each change of an unread count. The inbox's
-- unread list has its own (conversations_location_unread, migration 001).
CREATE TABLE conversation_counts (
	location_id INTEGER PRIMARY KEY REFERENCES locations (id),
	unread INTEGER NOT NULL
);
INSERT INTO conversation_counts (location_id, unread)
	SELECT location_id, count(*) FROM conversations WHERE unread_count > 0 GROUP BY location_id;

CREATE TRIGGER conversation_counts_insert AFTER INSERT ON conversations
	WHEN new.unread_count > 0 BEGIN
	INSERT INTO conversation_counts (location_id, unread) VALUES (new.location_id, 1)
		ON CONFLICT (location_id) DO UPDATE SET unread = unread + 1;
END;
CREATE TRIGGER conversation_counts_delete AFTER DELETE ON conversations
	WHEN old.unread_count > 0 BEGIN
	UPDATE conversation_counts SET unread = unread - 1 WHERE location_id = old.location_id;
END;
-- A change that matters takes the old row out, if it was unread, and puts
-- the new one in, if it is.
CREATE TRIGGER conversation_counts_update AFTER UPDATE OF location_id, unread_count
	ON conversations WHEN (old.unread_count > 0) <> (new.unread_count > 0)
	OR old.location_id <> new.location_id BEGIN
	UPDATE conversation_counts SET unread = unread - 1
		WHERE location_id = old.location_id AND old.unread_count > 0;
	INSERT INTO conversation_counts (location_id, unread)
		SELECT new.location_id, 1 WHERE new.unread_count > 0
		ON CONFLICT (location_id) DO UPDATE SET unread = unread + 1;
END;

CREATE VIEW conversation_totals (location_id, unread) AS
	SELECT location_id, unread FROM conversation_counts;

DROP INDEX IF EXISTS conversations_location_unread_count;

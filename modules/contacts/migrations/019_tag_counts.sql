-- Each tag's live contacts, kept by triggers on contact_tags: /api/tags
-- counted every tag's links on each request, which grows with the
-- sub-account (p95 5.7 ms at 7,750 contacts, 60 ms at 77,000, uncached:
-- make bench-growth). Rows of zeros stay when the last link goes. The
-- location is there for the read cache: a write stales the tags of its
-- own sub-account only.
CREATE TABLE tag_counts (
	tag_id INTEGER PRIMARY KEY REFERENCES tags (id) ON DELETE CASCADE,
	location_id INTEGER NOT NULL REFERENCES locations (id),
	contacts INTEGER NOT NULL
);
INSERT INTO tag_counts (tag_id, location_id, contacts)
	SELECT tag_id, location_id, count(*) FROM contact_tags WHERE contact_deleted = 0
	GROUP BY tag_id;

CREATE TRIGGER tag_counts_insert AFTER INSERT ON contact_tags
	WHEN new.contact_deleted = 0
BEGIN
	INSERT INTO tag_counts (tag_id, location_id, contacts) VALUES (new.tag_id, new.location_id, 1)
		ON CONFLICT (tag_id) DO UPDATE SET contacts = contacts + 1;
END;
CREATE TRIGGER tag_counts_delete AFTER DELETE ON contact_tags
	WHEN old.contact_deleted = 0
BEGIN
	UPDATE tag_counts SET contacts = contacts - 1 WHERE tag_id = old.tag_id;
END;
-- A contact deleted (migration 009's mark), or a link moved to another tag.
CREATE TRIGGER tag_counts_update AFTER UPDATE OF tag_id, contact_deleted ON contact_tags
	WHEN old.tag_id IS NOT new.tag_id OR old.contact_deleted IS NOT new.contact_deleted
BEGIN
	UPDATE tag_counts SET contacts = contacts - 1
		WHERE tag_id = old.tag_id AND old.contact_deleted = 0;
	INSERT INTO tag_counts (tag_id, location_id, contacts)
		SELECT new.tag_id, new.location_id, 1 WHERE new.contact_deleted = 0
		ON CONFLICT (tag_id) DO UPDATE SET contacts = contacts + 1;
END;

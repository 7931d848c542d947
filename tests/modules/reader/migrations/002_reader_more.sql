-- A table whose location_id comes after a generated column (the hook
-- counts generated columns, table_info does not), and a full-text index
-- (a virtual table, which the cache refuses as a read).
CREATE TABLE reader_scores (
	id INTEGER PRIMARY KEY,
	points INTEGER NOT NULL,
	doubled INTEGER GENERATED ALWAYS AS (points * 2) STORED,
	location_id INTEGER NOT NULL
);
CREATE VIRTUAL TABLE reader_search USING fts5(name, tokenize = 'trigram');

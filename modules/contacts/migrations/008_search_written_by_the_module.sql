-- The search index is written by the module's own statements (store.c)
-- from now on: an FTS5 insert made by a trigger runs inside the contact
-- insert's statement savepoint, where SQLite 3.40's FTS5 flushes its
-- pending terms to a new segment, once per row. An import of 100k rows
-- spent three quarters of its time there. Deleting still goes through
-- the trigger: the purge job deletes 500 contacts in one statement.
DROP TRIGGER contacts_search_insert;
DROP TRIGGER contacts_search_update;

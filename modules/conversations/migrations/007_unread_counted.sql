-- conversations_location_unread_count (migration 003) was read only to
-- count each sub-account's unread conversations, which conversation_counts
-- (migration 006) now keeps: one index fewer to write on each change of a
-- conversation's unread count. The inbox's unread list has its own index
-- (conversations_location_unread, migration 001).
DROP INDEX IF EXISTS conversations_location_unread_count;

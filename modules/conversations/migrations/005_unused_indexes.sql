-- messages_location_time (migration 001) is read by no statement: the
-- figures read messages by direction and time (migration 003), and a
-- sub-account's messages are found through that index too. One index
-- fewer on the largest table: 6.7 MB of the full data set, and a b-tree
-- less to write per message.
DROP INDEX IF EXISTS messages_location_time;

-- Which run of the server handed a message over: one found on its way
-- with another run's mark was sent by a process that has ended, so it
-- may or may not have left (shown unknown). A mark rather than a look
-- once at the start: a start's look undone by a rolled-back slice would
-- not come again.
ALTER TABLE outbox ADD COLUMN boot INTEGER;

-- The search index's lines folded (fold(): case folded, accents taken
-- off, "José Núñez" as "jose nunez"), as store.c writes them from now on
-- and a search folds what is typed, so that "jose" finds "José" and
-- "JOSÉ" finds "jose". A line that will not fold keeps its text.
UPDATE contact_search SET text = coalesce(fold(text), text);

-- The trigger that puts a contact brought back from the bin into the
-- index (migration 018) still copies its text as it is: no route of the
-- server restores a contact, and SQL run in another SQLite shell, which
-- knows no fold(), must not fail for want of it. Such a line is folded
-- when the contact is next changed.

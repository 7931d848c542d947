-- Each owner's open deals by sub-account (012's counts): the figures of a
-- user who sees only what is assigned to them read their own rows of
-- owner_open_counts by owner and location, which its key (stage, owner)
-- cannot find without reading every sub-account's.
CREATE INDEX owner_open_counts_owner ON owner_open_counts (owner_id, location_id);

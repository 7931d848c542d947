-- The rows the probe.work job processed, each with the cursor its slice
-- started at (one value per slice); a row processed twice appears twice.
CREATE TABLE probe_work (
	id INTEGER PRIMARY KEY,
	row INTEGER NOT NULL,
	slice INTEGER NOT NULL
);

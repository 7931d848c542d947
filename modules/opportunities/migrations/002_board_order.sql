-- The board's order within a stage, and why a deal was lost. A deal's
-- position is a sort key (ties by id): moving a deal to position P puts it
-- before the deal that held P. The board walks a pipeline's deals of one
-- status stage by stage in that order, without sorting (the older
-- opportunities_board stays: other modules count by its prefix).
ALTER TABLE opportunities ADD COLUMN position INTEGER NOT NULL DEFAULT 0;
ALTER TABLE opportunities ADD COLUMN lost_reason TEXT;
CREATE INDEX opportunities_board_order ON opportunities (pipeline_id, status, stage_id, position, id);

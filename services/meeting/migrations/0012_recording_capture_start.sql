-- Up Migration
-- A recording is `capturing` once its recorder reports it active (Egress's EGRESS_ACTIVE): from
-- then on the room says "Recording" (before, "Starting…"), and `started_at` is when capture began,
-- as the recorder reports it, not when the start was asked. Recordings from before this column
-- were all capturing or done.

ALTER TABLE recordings ADD COLUMN capturing boolean NOT NULL DEFAULT false;
UPDATE recordings SET capturing = true;

-- Down Migration
ALTER TABLE recordings DROP COLUMN capturing;

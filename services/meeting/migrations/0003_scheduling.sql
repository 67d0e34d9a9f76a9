-- Up Migration
-- What a scheduling tool needs: a planned end, rescheduling, and cancellation.

ALTER TABLE meetings DROP CONSTRAINT meetings_status_check;
ALTER TABLE meetings ADD CONSTRAINT meetings_status_check CHECK (status IN ('scheduled', 'live', 'ended', 'cancelled'));
ALTER TABLE meetings ADD COLUMN planned_end timestamptz;
ALTER TABLE meetings ADD COLUMN cancelled_at timestamptz;
ALTER TABLE meetings ADD CONSTRAINT meetings_cancelled_at_iff_cancelled CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL));
ALTER TABLE meetings ADD CONSTRAINT meetings_planned_end_after_start CHECK (planned_end IS NULL OR (start IS NOT NULL AND planned_end > start));

-- Listing by start time within an organization.
CREATE INDEX meetings_org_id_start_idx ON meetings (org_id, start);
-- Meetings whose planned end may pass: the lifecycle sweeper looks them up by it.
CREATE INDEX meetings_planned_end_open_idx ON meetings (planned_end) WHERE planned_end IS NOT NULL AND status IN ('scheduled', 'live');

-- Down Migration
DROP INDEX meetings_planned_end_open_idx;
DROP INDEX meetings_org_id_start_idx;
ALTER TABLE meetings DROP CONSTRAINT meetings_planned_end_after_start;
ALTER TABLE meetings DROP CONSTRAINT meetings_cancelled_at_iff_cancelled;
ALTER TABLE meetings DROP COLUMN cancelled_at;
ALTER TABLE meetings DROP COLUMN planned_end;
ALTER TABLE meetings DROP CONSTRAINT meetings_status_check;
ALTER TABLE meetings ADD CONSTRAINT meetings_status_check CHECK (status IN ('scheduled', 'live', 'ended'));

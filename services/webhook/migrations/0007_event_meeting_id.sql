-- Up Migration
-- The meeting an event is about (data.meetingId of its body; null for events about none, such as
-- webhook.test), so the dashboard's meeting page finds the deliveries about one meeting.
ALTER TABLE events ADD COLUMN meeting_id text GENERATED ALWAYS AS ((body::jsonb) #>> '{data,meetingId}') STORED;
CREATE INDEX events_by_meeting ON events (org_id, meeting_id) WHERE meeting_id IS NOT NULL;

-- Down Migration
DROP INDEX events_by_meeting;
ALTER TABLE events DROP COLUMN meeting_id;

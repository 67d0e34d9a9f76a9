-- Up Migration
-- Meeting rooms: who is and was present (from the media server's webhooks), when a room emptied,
-- and which media-server webhooks were already applied.

-- "live" used to mean "its start time has passed"; it now means someone entered the room, so
-- meetings nobody has joined are scheduled again.
UPDATE meetings SET status = 'scheduled' WHERE status = 'live';

-- Set when the last participant leaves a live meeting, cleared when someone enters: the meeting
-- ends once it has been empty for the grace period.
ALTER TABLE meetings ADD COLUMN empty_since timestamptz;
ALTER TABLE meetings ADD CONSTRAINT meetings_empty_only_when_live CHECK (empty_since IS NULL OR status = 'live');
CREATE INDEX meetings_empty_since_idx ON meetings (empty_since) WHERE empty_since IS NOT NULL;
-- Reconciliation with the media server visits every live meeting.
CREATE INDEX meetings_live_idx ON meetings (id) WHERE status = 'live';

-- One row per visit: LiveKit's participant session id is new for every connection, so a rejoin
-- (even with the same participant identity) is a second row.
CREATE TABLE room_participants (
  meeting_id     text        NOT NULL REFERENCES meetings (id) ON DELETE CASCADE,
  session_id     text        NOT NULL CHECK (char_length(session_id) BETWEEN 1 AND 128),
  participant_id text        NOT NULL CHECK (char_length(participant_id) BETWEEN 1 AND 128),
  display_name   text        NOT NULL CHECK (char_length(display_name) BETWEEN 1 AND 64),
  joined_at      timestamptz NOT NULL,
  left_at        timestamptz,
  PRIMARY KEY (meeting_id, session_id)
);

CREATE INDEX room_participants_present_idx ON room_participants (meeting_id) WHERE left_at IS NULL;

-- Media-server webhooks are at least once: each id is applied once, in the transaction that
-- applies it. Rows older than a day are deleted (a redelivery never comes that late).
CREATE TABLE media_webhook_events (
  id          text        PRIMARY KEY CHECK (char_length(id) BETWEEN 1 AND 128),
  received_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX media_webhook_events_received_at_idx ON media_webhook_events (received_at);

-- Down Migration
DROP TABLE media_webhook_events;
DROP TABLE room_participants;
ALTER TABLE meetings DROP CONSTRAINT meetings_empty_only_when_live;
DROP INDEX meetings_live_idx;
DROP INDEX meetings_empty_since_idx;
ALTER TABLE meetings DROP COLUMN empty_since;

-- Up Migration
-- Recordings of meeting rooms (LiveKit Egress) and each meeting's recording setting
-- (docs/meeting-room.md, "Recording"; docs/decisions/0016-recording-downloads-through-the-meeting-service.md).

ALTER TABLE meetings ADD COLUMN recording text NOT NULL DEFAULT 'off' CHECK (recording IN ('off', 'manual', 'auto'));

CREATE TABLE recordings (
  id             uuid        PRIMARY KEY,
  meeting_id     text        NOT NULL REFERENCES meetings (id) ON DELETE CASCADE,
  org_id         text        NOT NULL,
  -- The recorder's id; null only while the start call is under way (the row claims the meeting first).
  egress_id      text        UNIQUE,
  layout         text        NOT NULL CHECK (layout IN ('grid', 'audio')),
  status         text        NOT NULL CHECK (status IN ('recording', 'processing', 'ready', 'failed')),
  started_by     text        NOT NULL CHECK (started_by IN ('host', 'api', 'auto')),
  -- Where the file is: 'filesystem' (RECORDING_DIR) or 's3' (the configured bucket), under object_key.
  storage        text        NOT NULL CHECK (storage IN ('filesystem', 's3')),
  object_key     text        NOT NULL,
  started_at     timestamptz NOT NULL DEFAULT now(),
  ended_at       timestamptz,
  duration_ms    bigint,
  size_bytes     bigint,
  error          text,
  -- The recorder was last not seen in the room since then (the watchdog's clue that it was lost).
  missing_since  timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX recordings_meeting_id_idx ON recordings (meeting_id, created_at DESC);
-- One recording in progress per meeting.
CREATE UNIQUE INDEX recordings_one_active_per_meeting_idx ON recordings (meeting_id) WHERE status = 'recording';
CREATE INDEX recordings_unfinished_idx ON recordings (status) WHERE status IN ('recording', 'processing');
CREATE INDEX recordings_ended_at_idx ON recordings (ended_at) WHERE ended_at IS NOT NULL;

-- Down Migration
DROP TABLE recordings;
ALTER TABLE meetings DROP COLUMN recording;

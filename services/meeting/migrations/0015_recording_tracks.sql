-- Up Migration
-- Each speaker's own audio beside a recording of a meeting whose `transcription` is on
-- (docs/transcription.md, "Speaker tracks"): one LiveKit track egress per microphone track, written
-- as Opus in OGG, transcribed separately so every segment has its speaker.

CREATE TABLE recording_tracks (
  id              uuid        PRIMARY KEY,
  recording_id    uuid        NOT NULL REFERENCES recordings (id) ON DELETE CASCADE,
  -- The speaker: their identity in the room, their name there and, for an invited person who
  -- entered with their personal link, their e-mail address.
  participant_id  text        NOT NULL,
  display_name    text        NOT NULL,
  email           text,
  track_sid       text        NOT NULL,
  -- The track egress's id; null only while its start is asked (the row claims the track first).
  egress_id       text        UNIQUE,
  storage         text        NOT NULL CHECK (storage IN ('filesystem', 's3')),
  object_key      text        NOT NULL,
  status          text        NOT NULL DEFAULT 'recording' CHECK (status IN ('recording', 'ready', 'failed')),
  -- When the egress began writing (its own report): the track's second 0 on the recording's time line.
  started_at      timestamptz,
  ended_at        timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (recording_id, track_sid)
);
CREATE INDEX recording_tracks_unfinished_idx ON recording_tracks (recording_id) WHERE status = 'recording';

-- A recording's transcript is created once, however many notifications report its last track's end.
CREATE UNIQUE INDEX transcripts_one_per_recording_idx ON transcripts (recording_id) WHERE recording_id IS NOT NULL;

-- Down Migration
DROP INDEX transcripts_one_per_recording_idx;
DROP TABLE recording_tracks;

-- Up Migration
-- Transcripts and the jobs that make them (docs/transcription.md, "Jobs"). A transcript is made
-- from one or more audio sources (a participant's track each, issue 43); each source is one job,
-- transcribed piece by piece by a transcription worker that leases it like the outbox relay leases
-- events. A piece's segments and the job's next start are written in one transaction, so a worker
-- that dies mid-piece loses nothing and repeats nothing: the lease expires and the piece is redone.

CREATE TABLE transcripts (
  id            uuid        PRIMARY KEY,
  meeting_id    text        NOT NULL REFERENCES meetings (id) ON DELETE CASCADE,
  org_id        text        NOT NULL,
  status        text        NOT NULL CHECK (status IN ('processing', 'ready', 'failed')),
  -- A stable reason (docs/transcription.md, "Failures"); null unless failed.
  error_code    text        CHECK (error_code IN ('audio_unreadable', 'model_refused', 'transcriber_failed')),
  created_at    timestamptz NOT NULL DEFAULT now(),
  completed_at  timestamptz
);
CREATE INDEX transcripts_meeting_id_idx ON transcripts (meeting_id, created_at DESC);

CREATE TABLE transcription_jobs (
  id             uuid             PRIMARY KEY,
  transcript_id  uuid             NOT NULL REFERENCES transcripts (id) ON DELETE CASCADE,
  -- The audio: where it is stored ('filesystem' or 's3', like recordings) and its key there.
  storage        text             NOT NULL CHECK (storage IN ('filesystem', 's3')),
  object_key     text             NOT NULL,
  -- Added to the audio's times to place them on the transcript's time line (a track's start in the meeting).
  offset_ms      bigint           NOT NULL DEFAULT 0,
  status         text             NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'done', 'failed')),
  -- Where the next piece starts, in seconds of the audio.
  next_start     double precision NOT NULL DEFAULT 0,
  -- Leases of the current piece so far: a piece that fails (or kills its worker) this often fails the job.
  attempts       int              NOT NULL DEFAULT 0,
  lease_token    uuid,
  leased_until   timestamptz,
  error_code     text,
  created_at     timestamptz      NOT NULL DEFAULT now(),
  updated_at     timestamptz      NOT NULL DEFAULT now()
);
CREATE INDEX transcription_jobs_queued_idx ON transcription_jobs (created_at) WHERE status = 'queued';
CREATE INDEX transcription_jobs_transcript_id_idx ON transcription_jobs (transcript_id);

CREATE TABLE transcript_segments (
  id             bigserial PRIMARY KEY,
  transcript_id  uuid      NOT NULL REFERENCES transcripts (id) ON DELETE CASCADE,
  job_id         uuid      NOT NULL REFERENCES transcription_jobs (id) ON DELETE CASCADE,
  -- On the transcript's time line (the job's offset added).
  start_ms       bigint    NOT NULL,
  end_ms         bigint    NOT NULL,
  text           text      NOT NULL,
  -- [{start_ms, end_ms, word, probability}]
  words          jsonb     NOT NULL DEFAULT '[]'
);
CREATE INDEX transcript_segments_transcript_idx ON transcript_segments (transcript_id, start_ms);

-- Down Migration
DROP TABLE transcript_segments;
DROP TABLE transcription_jobs;
DROP TABLE transcripts;

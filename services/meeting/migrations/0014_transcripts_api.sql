-- Up Migration
-- Transcripts' public side (docs/transcription.md, issue 43): each meeting's `transcription`
-- setting and its organization's default, and who speaks in each transcription job's audio (a
-- participant's own track), so every segment names its speaker.

ALTER TABLE meetings ADD COLUMN transcription text NOT NULL DEFAULT 'off' CHECK (transcription IN ('off', 'on'));

-- Per-organization settings of meetings that the meeting context owns (the organization itself is identity's).
CREATE TABLE organization_meeting_settings (
  org_id         text        PRIMARY KEY,
  transcription  text        NOT NULL DEFAULT 'off' CHECK (transcription IN ('off', 'on')),
  updated_at     timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE transcripts ADD COLUMN language text NOT NULL DEFAULT 'en';
-- The recording whose run the audio tracks were taken beside, if any.
ALTER TABLE transcripts ADD COLUMN recording_id uuid;

ALTER TABLE transcription_jobs ADD COLUMN speaker_name text NOT NULL DEFAULT '';
-- For an invited host or attendee who entered with their personal link.
ALTER TABLE transcription_jobs ADD COLUMN speaker_email text;
-- The speaker's place in the transcript's list of speakers (its jobs are created in one transaction, at one time).
ALTER TABLE transcription_jobs ADD COLUMN ordinal int NOT NULL DEFAULT 0;

CREATE INDEX transcripts_completed_at_idx ON transcripts (completed_at) WHERE completed_at IS NOT NULL;

-- Down Migration
DROP INDEX transcripts_completed_at_idx;
ALTER TABLE transcription_jobs DROP COLUMN ordinal;
ALTER TABLE transcription_jobs DROP COLUMN speaker_email;
ALTER TABLE transcription_jobs DROP COLUMN speaker_name;
ALTER TABLE transcripts DROP COLUMN recording_id;
ALTER TABLE transcripts DROP COLUMN language;
DROP TABLE organization_meeting_settings;
ALTER TABLE meetings DROP COLUMN transcription;

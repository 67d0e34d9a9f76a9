-- Up Migration
-- Meetings, their participants, and the transactional outbox of meeting events.
-- Organization, user and client ids come from the identity service; this schema only stores them.

CREATE TABLE meetings (
  -- base64url of 16 random bytes (128 bits): the join URL is the capability, so it must be unguessable.
  id                   text        PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9_-]{22}$'),
  -- Keyset pagination order of ListMeetings (newest first), independent of clock precision.
  seq                  bigint      GENERATED ALWAYS AS IDENTITY UNIQUE,
  org_id               text        NOT NULL,
  created_by_user_id   text        NOT NULL,
  -- The OAuth client that created it; NULL when it was created with an API key.
  created_by_client_id text,
  title                text        NOT NULL CHECK (char_length(title) BETWEEN 1 AND 255),
  start                timestamptz,
  -- As stored at creation or end; a scheduled meeting whose start has passed is reported live.
  status               text        NOT NULL CHECK (status IN ('scheduled', 'live', 'ended')),
  created_at           timestamptz NOT NULL DEFAULT now(),
  ended_at             timestamptz,
  CONSTRAINT meetings_ended_at_iff_ended CHECK ((status = 'ended') = (ended_at IS NOT NULL))
);

CREATE INDEX meetings_org_id_seq_idx ON meetings (org_id, seq DESC);

CREATE TABLE participants (
  meeting_id text    NOT NULL REFERENCES meetings (id) ON DELETE CASCADE,
  -- Position in the request, so attendees come back in the order they were given.
  ordinal    integer NOT NULL CHECK (ordinal >= 0),
  email      text    NOT NULL CHECK (char_length(email) BETWEEN 3 AND 254),
  PRIMARY KEY (meeting_id, ordinal)
);

CREATE UNIQUE INDEX participants_meeting_id_email_key ON participants (meeting_id, lower(email));

-- Written in the transaction that changes a meeting; the relay publishes unsent rows and marks
-- them sent, so an event is never lost between the database and the broker.
CREATE TABLE outbox (
  id         bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id   uuid        NOT NULL UNIQUE,
  topic      text        NOT NULL,
  key        text        NOT NULL,
  type       text        NOT NULL,
  payload    bytea       NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at    timestamptz
);

CREATE INDEX outbox_unsent_idx ON outbox (id) WHERE sent_at IS NULL;

-- Down Migration
DROP TABLE outbox;
DROP TABLE participants;
DROP TABLE meetings;

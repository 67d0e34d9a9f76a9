-- Up Migration
-- Hosts and personal join links, the room's settings, who each participant was (role, e-mail),
-- and no-show reporting (docs/meeting-room.md).

-- An invited person is a host or an attendee (one address, one role per meeting).
ALTER TABLE participants ADD COLUMN role text NOT NULL DEFAULT 'attendee' CHECK (role IN ('host', 'attendee'));

ALTER TABLE meetings ADD COLUMN lobby boolean NOT NULL DEFAULT false;
ALTER TABLE meetings ADD COLUMN screen_share text NOT NULL DEFAULT 'everyone' CHECK (screen_share IN ('everyone', 'hosts'));
ALTER TABLE meetings ADD COLUMN no_show_after_minutes integer NOT NULL DEFAULT 5 CHECK (no_show_after_minutes BETWEEN 1 AND 60);
-- Set in the transaction that wrote the meeting's meeting.no_show events, so they are written once.
ALTER TABLE meetings ADD COLUMN no_show_reported_at timestamptz;
-- Meetings that started before no-shows existed are not reported now.
UPDATE meetings SET no_show_reported_at = now() WHERE start IS NOT NULL AND start < now();
-- A host locked the room: nobody new enters (hosts with their link still do).
ALTER TABLE meetings ADD COLUMN room_locked boolean NOT NULL DEFAULT false;
CREATE INDEX meetings_no_show_due_idx ON meetings (start) WHERE no_show_reported_at IS NULL AND start IS NOT NULL AND status <> 'cancelled';

-- Personal join links: only the SHA-256 of the secret is kept.
CREATE TABLE join_links (
  id          uuid        PRIMARY KEY,
  meeting_id  text        NOT NULL REFERENCES meetings (id) ON DELETE CASCADE,
  secret_hash bytea       NOT NULL UNIQUE CHECK (octet_length(secret_hash) = 32),
  role        text        NOT NULL CHECK (role IN ('host', 'attendee', 'guest')),
  email       text        CHECK (email IS NULL OR char_length(email) BETWEEN 3 AND 254),
  name        text        CHECK (name IS NULL OR char_length(name) BETWEEN 1 AND 64),
  expires_at  timestamptz NOT NULL,
  revoked_at  timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT join_links_invitee_has_email CHECK ((role = 'guest') = (email IS NULL))
);
CREATE INDEX join_links_meeting_id_idx ON join_links (meeting_id);

-- Who each participant identity (one per join grant) is: role, the e-mail of a personal link,
-- the browser session it came from; its room session (the credential of the room's own API) as
-- a hash. A removed participant's link and browser session cannot enter again.
CREATE TABLE room_admissions (
  participant_id text        PRIMARY KEY CHECK (char_length(participant_id) BETWEEN 1 AND 128),
  meeting_id     text        NOT NULL REFERENCES meetings (id) ON DELETE CASCADE,
  role           text        NOT NULL CHECK (role IN ('host', 'attendee', 'guest')),
  email          text,
  link_id        uuid,
  display_name   text        NOT NULL CHECK (char_length(display_name) BETWEEN 1 AND 64),
  visitor_hash   bytea,
  session_hash   bytea       NOT NULL UNIQUE,
  removed_at     timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX room_admissions_meeting_id_idx ON room_admissions (meeting_id);

-- The lobby: people waiting to be admitted by a host (the ticket they poll with, hashed).
CREATE TABLE lobby_entries (
  id           uuid        PRIMARY KEY,
  meeting_id   text        NOT NULL REFERENCES meetings (id) ON DELETE CASCADE,
  ticket_hash  bytea       NOT NULL UNIQUE,
  display_name text        NOT NULL CHECK (char_length(display_name) BETWEEN 1 AND 64),
  role         text        NOT NULL CHECK (role IN ('attendee', 'guest')),
  email        text,
  link_id      uuid,
  visitor_hash bytea,
  status       text        NOT NULL DEFAULT 'waiting' CHECK (status IN ('waiting', 'admitted', 'denied')),
  created_at   timestamptz NOT NULL DEFAULT now(),
  decided_at   timestamptz
);
CREATE INDEX lobby_entries_waiting_idx ON lobby_entries (meeting_id, created_at) WHERE status = 'waiting';

-- Chat of the people in the room, kept only while the meeting lasts: deleted in the transaction
-- that ends or cancels it.
CREATE TABLE room_chat_messages (
  id             bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  meeting_id     text        NOT NULL REFERENCES meetings (id) ON DELETE CASCADE,
  participant_id text        NOT NULL,
  display_name   text        NOT NULL,
  body           text        NOT NULL CHECK (char_length(body) BETWEEN 1 AND 1000),
  sent_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX room_chat_messages_meeting_id_idx ON room_chat_messages (meeting_id, id);

-- Down Migration
DROP TABLE room_chat_messages;
DROP TABLE lobby_entries;
DROP TABLE room_admissions;
DROP TABLE join_links;
DROP INDEX meetings_no_show_due_idx;
ALTER TABLE meetings DROP COLUMN room_locked;
ALTER TABLE meetings DROP COLUMN no_show_reported_at;
ALTER TABLE meetings DROP COLUMN no_show_after_minutes;
ALTER TABLE meetings DROP COLUMN screen_share;
ALTER TABLE meetings DROP COLUMN lobby;
ALTER TABLE participants DROP COLUMN role;

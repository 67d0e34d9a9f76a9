-- Up Migration
-- Idempotency keys (services/platform/src/db/idempotency.ts), one table in each service schema
-- that takes keys (meeting, webhook), defined here once: runService applies this folder in the
-- service's schema after the service's own migrations, tracked in `platform_migrations`.
--
-- Until issue 47 each service created the table itself (meeting 0004, webhook 0002 and 0006, since
-- emptied), and the two had drifted: only webhook's had `subject_id`. This migration reconciles a
-- schema in either state without losing a key: it creates the table where none exists, and adds
-- what an existing one lacks; rows are never rewritten.
CREATE TABLE IF NOT EXISTS idempotency_keys (
  org_id      text        NOT NULL,
  -- SHA-256 (hex) of the sending credential and the caller's key (idempotentRequest).
  key         text        NOT NULL CHECK (char_length(key) BETWEEN 1 AND 255),
  -- SHA-256 (hex) of the operation and its request message.
  fingerprint text        NOT NULL CHECK (char_length(fingerprint) = 64),
  response    bytea       NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, key)
);
-- What the reply is about (a webhook subscription), so that deleting it deletes its replies.
ALTER TABLE idempotency_keys ADD COLUMN IF NOT EXISTS subject_id text;
CREATE INDEX IF NOT EXISTS idempotency_keys_created_at_idx ON idempotency_keys (org_id, created_at);
CREATE INDEX IF NOT EXISTS idempotency_keys_subject_idx ON idempotency_keys (org_id, subject_id) WHERE subject_id IS NOT NULL;

-- Down Migration
-- The keys outlive this migration's undoing: a schema whose own migrations made the table keeps it.
SELECT 1;

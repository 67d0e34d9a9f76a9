-- Up Migration
-- Idempotency keys (services/platform/src/db/idempotency.ts): the response of the first request
-- with a key, per organization, kept 24 hours (expired rows are deleted as keys are used).
CREATE TABLE idempotency_keys (
  org_id      text        NOT NULL,
  key         text        NOT NULL CHECK (char_length(key) BETWEEN 1 AND 255),
  -- SHA-256 (hex) of the operation and its request message.
  fingerprint text        NOT NULL CHECK (char_length(fingerprint) = 64),
  response    bytea       NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, key)
);

CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (org_id, created_at);

-- Down Migration
DROP TABLE idempotency_keys;

-- Up Migration
-- Which subscription a stored idempotent reply is about: CreateSubscription's and RotateSecret's
-- replies hold its signing secret (encrypted), and are deleted when the subscription is.
-- (Keys are now stored as SHA-256 of the sending credential and the key: services/platform/src/db/idempotency.ts.)
ALTER TABLE idempotency_keys ADD COLUMN subject_id text;
CREATE INDEX idempotency_keys_subject_idx ON idempotency_keys (org_id, subject_id) WHERE subject_id IS NOT NULL;

-- Down Migration
DROP INDEX idempotency_keys_subject_idx;
ALTER TABLE idempotency_keys DROP COLUMN subject_id;

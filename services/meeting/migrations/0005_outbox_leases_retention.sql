-- Up Migration
-- The outbox relay claims rows with a lease (a short transaction) and publishes outside any
-- transaction: a slow broker no longer holds row locks and an open transaction for the length of
-- a publish. A row is marked sent only by the holder of its current lease.
ALTER TABLE outbox ADD COLUMN lease_token uuid;
ALTER TABLE outbox ADD COLUMN leased_until timestamptz;
-- A claim skips a meeting's later events while an earlier one is leased to another relay.
CREATE INDEX outbox_unsent_by_key_idx ON outbox (key, id) WHERE sent_at IS NULL;
-- Retention removes sent rows by age.
CREATE INDEX outbox_sent_at_idx ON outbox (sent_at) WHERE sent_at IS NOT NULL;

-- Down Migration
DROP INDEX outbox_sent_at_idx;
DROP INDEX outbox_unsent_by_key_idx;
ALTER TABLE outbox DROP COLUMN leased_until;
ALTER TABLE outbox DROP COLUMN lease_token;

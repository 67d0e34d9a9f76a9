-- Up Migration
-- The request id and W3C trace context an event was published with (the Kafka message headers of
-- the Postgres bus), so the consumer's work continues that request's trace and log correlation.
ALTER TABLE events ADD COLUMN context jsonb;

-- Down Migration
ALTER TABLE events DROP COLUMN context;

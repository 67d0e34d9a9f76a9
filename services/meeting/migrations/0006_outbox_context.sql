-- Up Migration
-- The request id and W3C trace context of the transaction that wrote the event, carried to the
-- event bus as message headers, so the event's consumers continue that request's trace.
ALTER TABLE outbox ADD COLUMN context_headers jsonb;

-- Down Migration
ALTER TABLE outbox DROP COLUMN context_headers;

-- Up Migration
-- The request id and W3C trace context the event arrived with, so each delivery attempt (possibly
-- minutes later) is a span of the request's trace and its log lines name the request.
ALTER TABLE events ADD COLUMN context_headers jsonb;

-- Down Migration
ALTER TABLE events DROP COLUMN context_headers;

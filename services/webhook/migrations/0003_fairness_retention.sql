-- Up Migration
-- Tenant fairness (a per-endpoint circuit breaker, pending caps, fair claims) and retention
-- (purging finished deliveries, their attempts and orphaned events after a window).

-- Consecutive attempts to the endpoint that timed out; any other outcome resets the count. At
-- the threshold the circuit opens: no attempt until circuit_open_until, then one probe at a time
-- until an attempt does not time out.
ALTER TABLE subscriptions ADD COLUMN consecutive_timeouts integer NOT NULL DEFAULT 0;
ALTER TABLE subscriptions ADD COLUMN circuit_open_until timestamptz;

-- Claims visit each subscription with due deliveries and take its oldest; pending caps count an
-- endpoint's pending deliveries.
CREATE INDEX deliveries_pending_by_subscription ON deliveries (subscription_id, next_attempt_at) WHERE status = 'pending';
-- Retention finds finished deliveries by when they finished (updated_at), and old events.
CREATE INDEX deliveries_finished ON deliveries (updated_at) WHERE status <> 'pending';
CREATE INDEX events_created_at ON events (created_at);

-- Down Migration
DROP INDEX events_created_at;
DROP INDEX deliveries_finished;
DROP INDEX deliveries_pending_by_subscription;
ALTER TABLE subscriptions DROP COLUMN circuit_open_until;
ALTER TABLE subscriptions DROP COLUMN consecutive_timeouts;

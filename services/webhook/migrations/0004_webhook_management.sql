-- Up Migration
-- Webhook management (issue 15): descriptions, secret rotation with a grace window, and a
-- per-endpoint delivery rate limit. Numbered 0004 so it sorts after 0003 of the delivery
-- hardening branch, whichever lands first.

ALTER TABLE subscriptions ADD COLUMN description text NOT NULL DEFAULT '' CHECK (char_length(description) <= 500);

-- After a rotation the replaced secret keeps signing (beside the new one) until
-- previous_secret_expires_at, sealed like secret_sealed (AES-256-GCM bound to the id); then it is
-- wiped. Deleting the subscription wipes it at once.
ALTER TABLE subscriptions ADD COLUMN previous_secret_sealed bytea;
ALTER TABLE subscriptions ADD COLUMN previous_secret_expires_at timestamptz;
ALTER TABLE subscriptions ADD CONSTRAINT previous_secret_with_expiry
  CHECK ((previous_secret_sealed IS NULL) = (previous_secret_expires_at IS NULL));
CREATE INDEX subscriptions_previous_secret_expiry ON subscriptions (previous_secret_expires_at) WHERE previous_secret_sealed IS NOT NULL;

-- Most deliveries per second to this endpoint over all dispatcher replicas; NULL: no limit.
ALTER TABLE subscriptions ADD COLUMN rate_limit_per_second integer CHECK (rate_limit_per_second BETWEEN 1 AND 1000);

-- Recovering a window finds a subscription's failed deliveries by creation time.
CREATE INDEX deliveries_failed_by_subscription ON deliveries (subscription_id, created_at) WHERE status = 'failed';

-- Down Migration
DROP INDEX deliveries_failed_by_subscription;
ALTER TABLE subscriptions DROP COLUMN rate_limit_per_second;
DROP INDEX subscriptions_previous_secret_expiry;
ALTER TABLE subscriptions DROP CONSTRAINT previous_secret_with_expiry;
ALTER TABLE subscriptions DROP COLUMN previous_secret_expires_at;
ALTER TABLE subscriptions DROP COLUMN previous_secret_sealed;
ALTER TABLE subscriptions DROP COLUMN description;

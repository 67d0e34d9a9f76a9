-- Up Migration

-- An organization's webhook endpoints. Deleting one keeps the row (deleted_at) so the delivery
-- log stays consistent, but wipes its signing secret.
CREATE TABLE subscriptions (
  id uuid PRIMARY KEY,
  org_id text NOT NULL,
  url text NOT NULL CHECK (length(url) <= 2048),
  events text[] NOT NULL CHECK (cardinality(events) > 0),
  -- AES-256-GCM: version | iv | tag | ciphertext, bound to the id (secret-box.ts). NULL once deleted.
  secret_sealed bytea,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- First failed attempt since the last success; cleared by any success (the disable policy).
  failing_since timestamptz,
  disabled_at timestamptz,
  disabled_reason text,
  deleted_at timestamptz,
  CHECK (deleted_at IS NOT NULL OR secret_sealed IS NOT NULL),
  CHECK ((disabled_at IS NULL) = (disabled_reason IS NULL))
);
CREATE INDEX subscriptions_by_org ON subscriptions (org_id, created_at) WHERE deleted_at IS NULL;

-- Each event once, with the exact JSON body every delivery of it sends (and signs).
CREATE TABLE events (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  type text NOT NULL,
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- One delivery per event and subscription; its id is the webhook-id header.
-- Pending deliveries are due at next_attempt_at. A dispatcher claims one by moving
-- next_attempt_at to the end of a lease and setting lease_token; when the attempt ends it records
-- the outcome only if it still holds the lease. A crashed dispatcher's lease simply expires and the
-- delivery is due again.
CREATE TABLE deliveries (
  id uuid PRIMARY KEY,
  subscription_id uuid NOT NULL REFERENCES subscriptions (id),
  event_id text NOT NULL REFERENCES events (id),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled')),
  next_attempt_at timestamptz,
  lease_token uuid,
  attempt_count integer NOT NULL DEFAULT 0,
  -- A redelivery requested by the subscriber: one attempt, no automatic retries after it.
  single_attempt boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (event_id, subscription_id),
  CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_by_subscription ON deliveries (subscription_id, created_at DESC, id DESC);

-- Every attempt, as it happened.
CREATE TABLE attempts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  delivery_id uuid NOT NULL REFERENCES deliveries (id),
  attempted_at timestamptz NOT NULL,
  -- NULL when no response arrived (timeout, connection error, refused target).
  status_code integer,
  latency_ms integer NOT NULL,
  error text,
  response_excerpt text NOT NULL DEFAULT '' CHECK (octet_length(response_excerpt) <= 1024)
);
CREATE INDEX attempts_by_delivery ON attempts (delivery_id, attempted_at);

-- Down Migration
DROP TABLE attempts;
DROP TABLE deliveries;
DROP TABLE events;
DROP TABLE subscriptions;

-- Up Migration
-- Third-party applications allowed to run the OAuth 2.0 authorization-code flow for the users
-- of one organization. Only a SHA-256 hash of the client secret is kept.

CREATE TABLE oauth_clients (
  client_id text PRIMARY KEY CHECK (length(client_id) BETWEEN 1 AND 100),
  org_id uuid NOT NULL REFERENCES organizations (id),
  -- Shown on the consent page.
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  -- Compared exactly (no prefix or pattern matching) with the redirect_uri of each request.
  redirect_uris text[] NOT NULL CHECK (cardinality(redirect_uris) BETWEEN 1 AND 10),
  -- The scopes this client may ask a user for; anything else is refused with invalid_scope.
  scopes text[] NOT NULL CHECK (cardinality(scopes) >= 1),
  -- SHA-256 of the client secret, hex. The secret itself is shown once and never stored.
  secret_hash text NOT NULL CHECK (secret_hash ~ '^[0-9a-f]{64}$'),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX oauth_clients_org_id_idx ON oauth_clients (org_id, created_at);

-- Down Migration
DROP TABLE oauth_clients;

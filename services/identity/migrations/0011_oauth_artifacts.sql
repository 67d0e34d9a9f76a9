-- Up Migration
-- Everything the authorization server (oidc-provider) persists: authorization codes, access and
-- refresh tokens, grants, browser sessions and pending interactions. Rows are keyed by the
-- SHA-256 of the artifact's id, and the id is removed from the stored payload, so a copy of this
-- table yields no usable code, token or session cookie.

CREATE TABLE oauth_artifacts (
  -- oidc-provider's model name: AuthorizationCode, AccessToken, RefreshToken, Grant, Session, Interaction.
  model text NOT NULL,
  -- SHA-256 of the id (for codes and tokens the id is the value presented to us), hex.
  id_hash text NOT NULL CHECK (id_hash ~ '^[0-9a-f]{64}$'),
  payload jsonb NOT NULL,
  -- The grant a code or token belongs to (a Grant row carries its own id here): revoking a grant
  -- deletes every row with its id.
  grant_id text,
  -- The OAuth client a code, token or grant was issued to: deleting the client deletes them.
  client_id text,
  -- A session's uid (not its cookie value), for findByUid.
  session_uid text,
  -- Set once, atomically, when a code or refresh token is exchanged: the second exchange loses.
  consumed_at timestamptz,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (model, id_hash)
);

CREATE INDEX oauth_artifacts_grant_id_idx ON oauth_artifacts (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX oauth_artifacts_client_id_idx ON oauth_artifacts (client_id) WHERE client_id IS NOT NULL;
CREATE INDEX oauth_artifacts_session_uid_idx ON oauth_artifacts (session_uid) WHERE session_uid IS NOT NULL;
CREATE INDEX oauth_artifacts_expires_at_idx ON oauth_artifacts (expires_at);

-- Down Migration
DROP TABLE oauth_artifacts;

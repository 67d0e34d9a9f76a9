-- Up Migration
-- Roles and deactivation of users, and the developer dashboard's sign-in sessions.

-- Users that existed before roles were introduced were all created by an operator with the admin
-- CLI to run their organization: they become admins. New users default to member; the CLI and
-- sign-up create admins explicitly.
ALTER TABLE users ADD COLUMN role text NOT NULL DEFAULT 'admin' CHECK (role IN ('admin', 'member'));
ALTER TABLE users ALTER COLUMN role SET DEFAULT 'member';
-- A deactivated user cannot sign in, and their keys, tokens and sessions are refused; nothing is deleted.
ALTER TABLE users ADD COLUMN deactivated_at timestamptz;

CREATE TABLE sessions (
  id uuid PRIMARY KEY,
  user_id uuid NOT NULL,
  org_id uuid NOT NULL,
  -- SHA-256 of the opaque session token (the cookie value), hex. The token itself is never stored.
  token_hash text NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  -- SHA-256 of the session's CSRF token, hex.
  csrf_hash text NOT NULL CHECK (csrf_hash ~ '^[0-9a-f]{64}$'),
  created_at timestamptz NOT NULL DEFAULT now(),
  -- Moved forward by every request; the session ends after the idle timeout without one.
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  -- The absolute end, whatever the activity.
  expires_at timestamptz NOT NULL,
  FOREIGN KEY (user_id, org_id) REFERENCES users (id, org_id)
);

CREATE INDEX sessions_user_id_idx ON sessions (user_id);
CREATE INDEX sessions_expires_at_idx ON sessions (expires_at);

-- Down Migration
DROP TABLE sessions;
ALTER TABLE users DROP COLUMN deactivated_at;
ALTER TABLE users DROP COLUMN role;

-- Up Migration
-- A client's registration may require PKCE (a code_challenge, S256) on every authorization request,
-- even though it authenticates with its secret (docs/security.md, "PKCE").
ALTER TABLE oauth_clients ADD COLUMN require_pkce boolean NOT NULL DEFAULT false;

-- Down Migration
ALTER TABLE oauth_clients DROP COLUMN require_pkce;

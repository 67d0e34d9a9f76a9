-- Up Migration
-- Which third-party OAuth clients the members of an organization may authorize (issue 33, finding 4:
-- consent phishing across organizations). 'all' keeps the behaviour from before: any organization's
-- client. 'listed' admits only the clients in oauth_client_allow_list, plus (always) the
-- organization's own clients, which its admins registered and need no listing.
ALTER TABLE organizations ADD COLUMN oauth_client_policy text NOT NULL DEFAULT 'all' CHECK (oauth_client_policy IN ('all', 'listed'));

CREATE TABLE oauth_client_allow_list (
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  -- Any organization's client; deleting the client removes it from every list.
  client_id text NOT NULL REFERENCES oauth_clients (client_id) ON DELETE CASCADE,
  -- The admin who listed it (kept for the record; the user may later be deactivated).
  added_by uuid NOT NULL,
  added_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, client_id)
);

-- Deleting a client looks up the lists holding it.
CREATE INDEX oauth_client_allow_list_client_id_idx ON oauth_client_allow_list (client_id);

-- Down Migration
DROP TABLE oauth_client_allow_list;
ALTER TABLE organizations DROP COLUMN oauth_client_policy;

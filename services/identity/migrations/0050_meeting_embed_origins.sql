-- Up Migration
-- The sites allowed to frame an organization's meetings (issue 42, embedding): origins
-- (scheme://host[:port]) as services/identity/src/embedding/embed-origins.ts normalizes them,
-- sent in the join page's Content-Security-Policy frame-ancestors. Empty (the default): no site
-- may, the page keeps frame-ancestors 'none'. The size bound repeats identityLimits.embedOriginsMax
-- as a last guard; the service refuses a longer list with a message first.
ALTER TABLE organizations ADD COLUMN embed_origins text[] NOT NULL DEFAULT '{}' CHECK (cardinality(embed_origins) <= 25);

-- Down Migration
ALTER TABLE organizations DROP COLUMN embed_origins;

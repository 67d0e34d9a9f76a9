-- Up Migration
-- Emptied by issue 47: the idempotency_keys table is defined once, by the platform
-- (services/platform/migrations/idempotency_keys/0001_idempotency_keys.sql), which runService applies
-- in this schema after this folder. The file stays so that a schema that applied it keeps its history
-- (node-pg-migrate checks the order of what ran); on such a schema the table it made is kept, and
-- the platform's migration adds what it lacked without touching a row.
SELECT 1;

-- Down Migration
SELECT 1;

-- Up Migration
-- The webhook schema starts empty; later migrations add its tables.
SELECT 1;

-- Down Migration
SELECT 1;

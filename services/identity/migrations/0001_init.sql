-- Up Migration
-- The identity schema starts empty; later migrations add its tables.
SELECT 1;

-- Down Migration
SELECT 1;

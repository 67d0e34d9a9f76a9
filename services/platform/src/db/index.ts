// @svc/platform/db: Postgres for the services (pool, migrations, idempotency keys, purges, row
// mapping). Never imported by the gateway (eslint.config.js): the gateway has no database.
export * from "./pool.ts";
export * from "./migrate.ts";
export * from "./idempotency.ts";
export * from "./purge.ts";
export * from "./snake-case-row.ts";

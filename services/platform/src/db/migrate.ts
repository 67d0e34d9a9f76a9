import { createHash } from "node:crypto";
import { runner } from "node-pg-migrate";
import type { Logger } from "../logger.ts";

/**
 * Applies a service's pending migrations (paired up/down SQL files in `dir`) inside its own
 * schema, creating the schema when missing. node-pg-migrate holds an advisory lock while it runs;
 * the lock is per schema and waited for, so replicas of one service apply each migration once
 * while different services migrate side by side.
 */
export async function migrate(options: { databaseUrl: string; schema: string; dir: string; logger: Logger }): Promise<string[]> {
  const applied = await runner({
    databaseUrl: options.databaseUrl,
    schema: options.schema,
    createSchema: true,
    migrationsSchema: options.schema,
    migrationsTable: "schema_migrations",
    dir: options.dir,
    direction: "up",
    checkOrder: true,
    singleTransaction: true,
    advisoryLockMode: "wait",
    lockValue: lockIdFor(options.schema),
    log: () => undefined,
    logger: {
      debug: () => undefined,
      info: (message: string) => options.logger.debug({ migration: message }),
      warn: (message: string) => options.logger.warn({ migration: message }),
      error: (message: string) => options.logger.error({ migration: message }),
    },
  });
  if (applied.length > 0) options.logger.info({ schema: options.schema, applied: applied.map((m) => m.name) }, "migrations applied");
  return applied.map((migration) => migration.name);
}

/** A stable 48-bit advisory-lock id per schema (fits a JavaScript number exactly). */
function lockIdFor(schema: string): number {
  return Number.parseInt(createHash("sha256").update(`svc-migrations:${schema}`).digest("hex").slice(0, 12), 16);
}

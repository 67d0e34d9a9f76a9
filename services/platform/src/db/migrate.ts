import { createHash } from "node:crypto";
import path from "node:path";
import { baseEnvSchema, loadConfigOrExit } from "../config.ts";
import { createLogger, type Logger } from "../logger.ts";

/**
 * Applies a service's pending migrations (paired up/down SQL files in `dir`) inside its own
 * schema, creating the schema when missing. node-pg-migrate holds an advisory lock while it runs;
 * the lock is per schema and waited for, so replicas of one service apply each migration once
 * while different services migrate side by side.
 */
export async function migrate(options: { databaseUrl: string; schema: string; dir: string; logger: Logger; table?: string }): Promise<string[]> {
  // Imported when migrating, not with the platform library: node-pg-migrate brings jiti and glob
  // (about 15 MB resident), which the gateway, with no database, would otherwise load for nothing.
  const { runner } = await import("node-pg-migrate");
  const applied = await runner({
    databaseUrl: options.databaseUrl,
    schema: options.schema,
    createSchema: true,
    migrationsSchema: options.schema,
    migrationsTable: options.table ?? "schema_migrations",
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

/** The platform's own tables in a service's schema (idempotency keys), applied after the service's. */
const IDEMPOTENCY_KEYS_MIGRATIONS = path.join(import.meta.dirname, "../../migrations/idempotency_keys");

/**
 * A service's schema brought up to date: its own migrations (`dir`), then, for a service that takes
 * Idempotency-Keys, the platform's idempotency_keys table (tracked in `platform_migrations`, so the
 * two histories never interleave).
 */
export async function migrateServiceSchema(options: { databaseUrl: string; schema: string; dir: string; logger: Logger; idempotencyKeys: boolean }) {
  const applied = await migrate(options);
  if (options.idempotencyKeys) applied.push(...(await migrate({ ...options, dir: IDEMPOTENCY_KEYS_MIGRATIONS, table: "platform_migrations" })));
  return applied;
}

/** A stable 48-bit advisory-lock id per schema (fits a JavaScript number exactly). */
function lockIdFor(schema: string): number {
  return Number.parseInt(createHash("sha256").update(`svc-migrations:${schema}`).digest("hex").slice(0, 12), 16);
}

/**
 * A service's migrate-only entry point (the Helm pre-install/pre-upgrade Job runs it): applies the
 * pending migrations and exits, non-zero on failure. Reads only DATABASE_URL and LOG_LEVEL.
 */
export async function runMigrationsAndExit(options: { service: string; schema: string; dir: string; idempotencyKeys: boolean }): Promise<void> {
  const name = `${options.service}-migrate`;
  const config = loadConfigOrExit(name, baseEnvSchema.pick({ DATABASE_URL: true, LOG_LEVEL: true }));
  const logger = createLogger(name, config.LOG_LEVEL);
  try {
    const applied = await migrateServiceSchema({
      databaseUrl: config.DATABASE_URL,
      schema: options.schema,
      dir: options.dir,
      logger,
      idempotencyKeys: options.idempotencyKeys,
    });
    logger.info({ schema: options.schema, newlyApplied: applied.length }, "schema is up to date");
  } catch (error) {
    logger.fatal({ err: error }, "migrations failed");
    process.exit(1);
  }
}

// Applies the identity schema's pending migrations and exits. The Helm chart's pre-install/pre-upgrade
// Job runs it (node services/identity/dist/migrate.js), so new pods start against an up-to-date schema;
// main.ts applies the same migrations at start too (advisory-locked, so both are safe at once).
import path from "node:path";
import { baseEnvSchema, createLogger, loadConfigOrExit, migrate } from "@svc/platform";

const SERVICE = "identity-migrate";
const SCHEMA = "identity";

const config = loadConfigOrExit(SERVICE, baseEnvSchema.pick({ DATABASE_URL: true, LOG_LEVEL: true }));
const logger = createLogger(SERVICE, config.LOG_LEVEL);

try {
  const applied = await migrate({ databaseUrl: config.DATABASE_URL, schema: SCHEMA, dir: path.join(import.meta.dirname, "../migrations"), logger });
  logger.info({ schema: SCHEMA, newlyApplied: applied.length }, "schema is up to date");
} catch (error) {
  logger.fatal({ err: error }, "migrations failed");
  process.exit(1);
}

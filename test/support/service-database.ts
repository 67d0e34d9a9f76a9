import path from "node:path";
import { type Logger } from "@svc/platform";
import { createPool, migrateServiceSchema, type Pool } from "@svc/platform/db";
import { createTestDatabase, endPoolBeforeDrop } from "./infra.ts";
import { useResource } from "./use-resource.ts";

/** A service that owns a schema and its migrations under services/<service>/migrations. */
export type SchemaOwner = "identity" | "meeting" | "webhook";

export interface ServiceDatabase {
  url: string;
  /** A pool on the service's schema, as the service opens it. */
  pool: Pool;
  /** Ends the pool, then drops the database. */
  drop: () => Promise<void>;
}

/**
 * A fresh database with `service`'s schema migrated exactly as the service migrates it at start, so
 * its queries can be tested against real Postgres without starting the service.
 */
export async function createServiceDatabase(service: SchemaOwner, logger: Logger, poolOptions: { max?: number } = {}): Promise<ServiceDatabase> {
  const database = await createTestDatabase();
  const dir = path.resolve(import.meta.dirname, `../../services/${service}/migrations`);
  await migrateServiceSchema({ databaseUrl: database.url, schema: service, dir, logger, idempotencyKeys: service !== "identity" });
  const pool = createPool({ databaseUrl: database.url, schema: service, logger, ...poolOptions });
  return {
    url: database.url,
    pool,
    drop: async () => {
      await endPoolBeforeDrop(pool);
      await database.drop();
    },
  };
}

/** createServiceDatabase for the test file: created before its tests, dropped after (see useResource); read `pool` and `url` inside tests and hooks. */
export function useServiceDatabase(service: SchemaOwner, logger: Logger, poolOptions: { max?: number } = {}): Omit<ServiceDatabase, "drop"> {
  const database = useResource(
    `the ${service} test database`,
    () => createServiceDatabase(service, logger, poolOptions),
    (created) => created.drop(),
  );
  return {
    get url() {
      return database().url;
    },
    get pool() {
      return database().pool;
    },
  };
}

import path from "node:path";
import { createLogger, createPool, loadConfigOrExit, migrate, runUntilSignalled, startServer } from "@svc/platform";
import { configSchema } from "./config.ts";

const SERVICE = "meeting";
const SCHEMA = "meeting";

const config = loadConfigOrExit(SERVICE, configSchema);
const logger = createLogger(SERVICE, config.LOG_LEVEL);

runUntilSignalled(logger, async () => {
  await migrate({ databaseUrl: config.DATABASE_URL, schema: SCHEMA, dir: path.join(import.meta.dirname, "../migrations"), logger });
  const pool = createPool({ databaseUrl: config.DATABASE_URL, schema: SCHEMA, logger });
  const server = await startServer({
    name: SERVICE,
    host: config.HOST,
    port: config.GRPC_PORT,
    logger,
    services: [],
    routes: () => {},
    isServing: async () => pool.query("select 1").then(() => true, () => false),
  });
  return [() => pool.end(), () => server.close()];
});

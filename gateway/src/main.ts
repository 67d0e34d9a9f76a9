import { Redis } from "ioredis";
import { createLogger, loadConfigOrExit, runUntilSignalled } from "@svc/platform";
import { buildApp } from "./app.ts";
import { createClients } from "./clients.ts";
import { configSchema } from "./config.ts";

const config = loadConfigOrExit("gateway", configSchema);
const logger = createLogger("gateway", config.LOG_LEVEL);

runUntilSignalled(logger, async () => {
  // Commands fail fast while Redis is unreachable, so the rate limiter's in-process insurance takes over.
  const redis = config.REDIS_URL ? new Redis(config.REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1 }) : undefined;
  redis?.on("error", (error: Error) => logger.warn({ error: error.message }, "redis connection problem"));
  const app = buildApp({ config, clients: createClients(config), logger, redis });
  const server = app.listen(config.PORT, config.HOST);
  await new Promise<void>((resolve, reject) => server.once("listening", resolve).once("error", reject));
  logger.info({ port: config.PORT, publicUrl: config.PUBLIC_URL }, "gateway listening");
  return [() => redis?.quit(), () => new Promise((resolve) => server.close(resolve))];
});

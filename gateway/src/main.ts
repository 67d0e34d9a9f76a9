import { createLogger, loadConfigOrExit, runUntilSignalled } from "@svc/platform";
import { buildApp } from "./app.ts";
import { createClients } from "./clients.ts";
import { configSchema } from "./config.ts";

const config = loadConfigOrExit("gateway", configSchema);
const logger = createLogger("gateway", config.LOG_LEVEL);

runUntilSignalled(logger, async () => {
  const app = buildApp({ config, clients: createClients(config), logger });
  const server = app.listen(config.PORT, config.HOST);
  await new Promise<void>((resolve, reject) => server.once("listening", resolve).once("error", reject));
  logger.info({ port: config.PORT, publicUrl: config.PUBLIC_URL }, "gateway listening");
  return [() => new Promise((resolve) => server.close(resolve))];
});

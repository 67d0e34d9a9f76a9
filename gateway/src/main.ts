import { connectCallerResolver, createLogger, loadConfigOrExit, runUntilSignalled } from "@svc/platform";
import { metricsRegistryIfServed, serveMetricsIfConfigured } from "@svc/platform/telemetry";
import { buildApp } from "./app.ts";
import { createClients } from "./clients.ts";
import { configSchema } from "./config.ts";
import { loadAssets } from "./pages/assets.ts";

const config = loadConfigOrExit("gateway", configSchema);
const logger = createLogger("gateway", config.LOG_LEVEL);
const metrics = metricsRegistryIfServed("gateway", config);

runUntilSignalled({ logger, graceMs: config.SHUTDOWN_GRACE_MS }, async () => {
  // Redis holds the shared rate-limit buckets and identity's verification cache; without it the
  // limiter counts in-process and every credential is resolved by identity.
  const { redis, credentialCache, resolveCaller, close } = await connectCallerResolver(config, logger, metrics);
  const assets = await loadAssets(logger);
  const app = buildApp({ config, clients: createClients(config), logger, metrics, redis, credentialCache, resolveCaller, assets });
  const server = app.listen(config.PORT, config.HOST);
  await new Promise<void>((resolve, reject) => server.once("listening", resolve).once("error", reject));
  logger.info({ port: config.PORT, publicUrl: config.PUBLIC_URL }, "gateway listening");
  const closeMetrics = await serveMetricsIfConfigured(config, metrics, logger);
  return { stopAccepting: [() => new Promise((resolve) => server.close(resolve)), closeMetrics], thenClose: [close] };
});

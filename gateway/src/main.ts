import { connectCallerResolver, createLogger, afterDrain, createShutdownDrain, loadConfigOrExit, runUntilSignalled } from "@svc/platform";
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
  const drain = createShutdownDrain(config.SHUTDOWN_DRAIN_SECONDS * 1000);
  const app = buildApp({
    config,
    clients: createClients(config),
    logger,
    metrics,
    redis,
    credentialCache,
    resolveCaller,
    assets,
    draining: () => drain.draining,
  });
  const server = app.listen(config.PORT, config.HOST);
  drain.httpServer(server);
  await new Promise<void>((resolve, reject) => server.once("listening", resolve).once("error", reject));
  logger.info({ port: config.PORT, publicUrl: config.PUBLIC_URL }, "gateway listening");
  const closeMetrics = await serveMetricsIfConfigured(config, metrics, logger);
  // The listeners close after the drain (shutdown-drain.ts), then Redis.
  return { stopAccepting: afterDrain(drain, [() => new Promise((resolve) => server.close(resolve)), closeMetrics]), thenClose: [close] };
});

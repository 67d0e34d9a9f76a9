import type { z } from "zod";
import { loadConfigOrExit, type baseEnvSchema } from "./config.ts";
import { migrateServiceSchema } from "./db/migrate.ts";
import { createServicePool, type Pool } from "./db/pool.ts";
import { startServer, type RunningServer, type ServerOptions } from "./grpc/server.ts";
import { runUntilSignalled, type Shutdown } from "./lifecycle.ts";
import { createLogger, type Logger } from "./logger.ts";
import { afterDrain, createShutdownDrain, type ShutdownDrain } from "./shutdown-drain.ts";
import { metricsRegistryIfServed, type Registry } from "./telemetry/metrics-registry.ts";
import { serveMetricsIfConfigured } from "./telemetry/metrics-server.ts";

/**
 * The settings a service process reads besides its own: the platform's, its gRPC port, and the
 * grpc-js port for the platform's own callers where the service has one (meeting, webhook).
 */
export type ServiceProcessSettings = z.output<typeof baseEnvSchema> & { GRPC_PORT: number; INTERNAL_GRPC_PORT?: number };

/** What every service process has before it wires its own parts. */
export interface ServiceProcess<Config> {
  config: Config;
  logger: Logger;
  /** The registry when METRICS_PORT is set (metricsRegistryIfServed). */
  metrics: Registry | undefined;
  /** On the service's own schema, migrated; ended by runService after everything else closed. */
  pool: Pool;
  drain: ShutdownDrain;
  /**
   * Starts a gRPC server of this process: named after the service on GRPC_PORT (and
   * INTERNAL_GRPC_PORT, when set) unless told otherwise, healthy while the pool answers, drained on stop.
   */
  serve(options: Pick<ServerOptions, "services" | "routes"> & Partial<Pick<ServerOptions, "name" | "port">>): Promise<RunningServer>;
}

/**
 * The process of a gRPC service with a schema of its own (identity, meeting, webhook): its
 * configuration (or an exit naming the bad variable), logger and metrics registry, then, until
 * signalled (lifecycle.ts), its schema migrated from `migrationsDir`, its pool and drain, its own
 * parts as `start` wires them, and the metrics listener. The Shutdown `start` answers is extended:
 * the metrics listener closes after the drain, the pool after everything else.
 */
export function runService<S extends z.ZodType<ServiceProcessSettings>>(
  service: {
    name: string;
    configSchema: S;
    migrationsDir: string;
    defaultPoolSize: number;
    /** Takes Idempotency-Keys: its schema gets the platform's idempotency_keys table. */ idempotencyKeys: boolean;
  },
  start: (started: ServiceProcess<z.output<S>>) => Promise<Shutdown>,
): void {
  const { name } = service;
  const config: ServiceProcessSettings & z.output<S> = loadConfigOrExit(name, service.configSchema);
  const logger = createLogger(name, config.LOG_LEVEL);
  const metrics = metricsRegistryIfServed(name, config);
  runUntilSignalled({ logger, graceMs: config.SHUTDOWN_GRACE_MS }, async () => {
    // Each service's schema is named after it.
    await migrateServiceSchema({
      databaseUrl: config.DATABASE_URL,
      schema: name,
      dir: service.migrationsDir,
      logger,
      idempotencyKeys: service.idempotencyKeys,
    });
    const pool = createServicePool(config, { schema: name, logger, defaultSize: service.defaultPoolSize });
    const drain = createShutdownDrain(config.SHUTDOWN_DRAIN_SECONDS * 1000);
    const isServing = () =>
      pool.query("select 1").then(
        () => true,
        () => false,
      );
    const serve: ServiceProcess<unknown>["serve"] = (options) =>
      startServer({ name, port: config.GRPC_PORT, internalPort: config.INTERNAL_GRPC_PORT, ...options, drain, host: config.HOST, logger, metrics, isServing });
    const shutdown = await start({ config, logger, metrics, pool, drain, serve });
    const closeMetrics = await serveMetricsIfConfigured(config, metrics, logger);
    return {
      stopAccepting: [...shutdown.stopAccepting, ...afterDrain(drain, [closeMetrics])],
      thenClose: [...shutdown.thenClose, () => pool.end()],
    };
  });
}

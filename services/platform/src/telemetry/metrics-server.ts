import http from "node:http";
import type { Logger } from "../logger.ts";
import type { Registry } from "./metrics-registry.ts";

export interface MetricsServerOptions {
  registry: Registry;
  host: string;
  /** METRICS_PORT; 0 picks a free port (tests). */
  port: number;
  logger: Logger;
}

export interface RunningMetricsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * `GET /metrics` in the Prometheus text format, on a port of its own: never the public port, so
 * the gateway's listener does not expose it and a network policy can admit only the scraper.
 */
export async function startMetricsServer(options: MetricsServerOptions): Promise<RunningMetricsServer> {
  const { registry, logger } = options;
  const server = http.createServer((request, response) => {
    const path = (request.url ?? "").split("?")[0];
    if (path !== "/metrics") return void response.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
    if (request.method !== "GET" && request.method !== "HEAD") return void response.writeHead(405, { allow: "GET, HEAD" }).end();
    registry.metrics().then(
      (text) => response.writeHead(200, { "content-type": registry.contentType }).end(request.method === "HEAD" ? undefined : text),
      (error: unknown) => {
        logger.error({ err: error }, "collecting metrics failed");
        response.writeHead(500, { "content-type": "text/plain" }).end("collecting metrics failed\n");
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  logger.info({ host: options.host, port }, "metrics listening (GET /metrics)");
  return {
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Starts the metrics server when METRICS_PORT is set; metrics are off otherwise. Returns its closer. */
export async function serveMetricsIfConfigured(
  config: { METRICS_PORT?: number | undefined; HOST: string },
  registry: Registry | undefined,
  logger: Logger,
): Promise<() => Promise<void>> {
  if (config.METRICS_PORT === undefined || !registry) return async () => undefined;
  const server = await startMetricsServer({ registry, host: config.HOST, port: config.METRICS_PORT, logger });
  return server.close;
}

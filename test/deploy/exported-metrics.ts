// The names of every metric the processes export, read from the registries themselves: each
// metric module is registered (with stand-ins for its database, bus and sender) in one registry,
// so a new or renamed metric is seen here without a list to keep in sync.
import { createLogger, createMemoryCredentialCache } from "@svc/platform";
import { type Pool } from "@svc/platform/db";
import { type EventBus } from "@svc/platform/events";
import { consumerLagGauge, countingCacheLookups, createMetricsRegistry, rpcMetrics } from "@svc/platform/telemetry";
import { httpMetrics } from "../../gateway/src/http/http-metrics.ts";
import { countThrottledSignIns } from "../../services/identity/src/sign-in/sign-in-metrics.ts";
import { outboxLagGauges } from "../../services/meeting/src/outbox-metrics.ts";
import { deliveryBacklogGauges, measuredSender } from "../../services/webhook/src/delivery/delivery-metrics.ts";

/** Sample names as Prometheus stores them (a histogram's _bucket, _sum and _count included). */
export async function exportedMetricNames(): Promise<Set<string>> {
  const registry = createMetricsRegistry("names");
  const logger = createLogger("names", "silent");
  const noDatabase = { query: async () => ({ rows: [{}] }) } as unknown as Pool;
  const noBus = { consumerLag: async () => 0 } as unknown as EventBus;
  rpcMetrics(registry);
  httpMetrics(registry);
  countingCacheLookups(createMemoryCredentialCache(), registry);
  countThrottledSignIns(registry);
  outboxLagGauges(registry, noDatabase, logger);
  deliveryBacklogGauges(registry, noDatabase, logger);
  measuredSender(
    { send: async () => ({ attemptedAt: new Date(), succeeded: true, latencyMs: 1, responseExcerpt: "", timedOut: false }), close: async () => undefined },
    registry,
  );
  consumerLagGauge(registry, noBus, [], logger);

  const names = new Set<string>();
  for (const metric of await registry.getMetricsAsJSON()) {
    names.add(metric.name);
    if (String(metric.type) === "histogram") for (const suffix of ["_bucket", "_sum", "_count"]) names.add(metric.name + suffix);
  }
  return names;
}
